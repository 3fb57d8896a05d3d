// Rerankers: each moves a low-ranked right answer up in a constructed case; the LLM reranker
// against a scripted server (ranking, garbage, failure -> the fused order stands); the blend,
// top_n, "A+B" and the factory's errors.
#include "retrieve/rerank.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <map>

#include "core/error.h"
#include "support/chat_fixtures.h"
#include "support/temp_dir.h"
#include "text/words.h"
#include "embed/embedder.h"
#include "index/lexical.h"
#include "llm/llm_config.h"
#include "llm/openai_chat.h"
#include "support/scripted_http_server.h"
#include "store/store.h"

namespace mmkg {
namespace {

Candidate cand(const std::string& id, const std::string& text) {
  Candidate c;
  c.hit.chunk_id = id;
  c.hit.doc = "notes.txt";
  c.hit.text = text;
  return c;
}

std::vector<std::string> ids(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (auto& c : cs) out.push_back(c.hit.chunk_id);
  return out;
}

const std::string kQuestion = "How does the softmax avoid overflow when scores are large?";

// The right answer ("ans") comes last; the others share the question's words but scattered over
// unrelated sentences, or are about something else.
std::vector<Candidate> constructed() {
  return {cand("scattered", "The softmax appears in many layers. Training on large corpora takes weeks of compute. "
                            "Memory overflow is a common problem of long sequences. Exam scores rose every year."),
          cand("other", "Recurrent networks process tokens one after another, which makes training slow."),
          cand("garden", "Gardening requires patience, water and good soil for tomatoes to grow."),
          cand("ans", "Transformers are everywhere. To avoid overflow, the softmax subtracts the largest of the "
                      "scores before exponentiating, which keeps large scores finite.")};
}

class RerankStore : public ::testing::Test {
 protected:
  void SetUp() override { store = Store::open(dir.str()); }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(RerankStore, LexicalPutsTheAnswerWithAllTermsTogetherFirst) {
  TermStats stats(*store);
  auto r = make_reranker(RerankSpec::parse("lexical"), {&stats, nullptr, nullptr});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name(), "lexical");
  auto cs = constructed();
  RerankReport rep = rerank(*r, kQuestion, cs, 20, 1.0);
  EXPECT_TRUE(rep.fallback.empty()) << rep.fallback;
  EXPECT_EQ(rep.scored, 4u);
  EXPECT_EQ(cs[0].hit.chunk_id, "ans") << ::testing::PrintToString(ids(cs));
  EXPECT_EQ(cs[1].hit.chunk_id, "scattered");
  EXPECT_GT(cs[0].rerank, cs[1].rerank);
  EXPECT_GE(rep.moved, 2u);
  // Blended half and half with the fused order, the answer still climbs (from 4th to 2nd).
  auto blend = constructed();
  rerank(*r, kQuestion, blend, 20, 0.5);
  EXPECT_EQ(ids(blend), (std::vector<std::string>{"scattered", "ans", "other", "garden"}));
}

TEST_F(RerankStore, OnlyTheTopNAreReordered) {
  TermStats stats(*store);
  auto r = make_reranker(RerankSpec::parse("lexical"), {&stats, nullptr, nullptr});
  auto cs = constructed();
  rerank(*r, kQuestion, cs, 3, 1.0);  // "ans" is 4th: outside the top 3, it stays there
  EXPECT_EQ(cs[3].hit.chunk_id, "ans");
  EXPECT_EQ(cs[0].hit.chunk_id, "scattered");
  auto one = constructed();
  RerankReport rep = rerank(*r, kQuestion, one, 1, 1.0);
  EXPECT_EQ(rep.scored, 0u);  // nothing to reorder
  EXPECT_EQ(ids(one), ids(constructed()));
}

// A bi-encoder stand-in: bag of content-word stems hashed into 64 dimensions, L2-normalised, so
// that a sentence sharing the question's words has a high cosine. Counts the texts it embeds.
class BagEmbedder : public Embedder {
 public:
  std::string id() const override { return "test:bag"; }
  int dim() const override { return 64; }
  std::vector<float> embed(const std::vector<std::string>& texts, EmbedKind) override {
    if (fail) throw Error("the test embedder is down; restart it");
    embedded += texts.size();
    std::vector<float> out;
    for (const auto& t : texts) {
      std::vector<float> v(64, 0.0f);
      for (auto& s : content_stems(t)) v[std::hash<std::string>{}(s) % 64] += 1.0f;
      double n = 0;
      for (float x : v) n += x * x;
      for (float& x : v) x = n > 0 ? static_cast<float>(x / std::sqrt(n)) : 0.0f;
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }
  std::atomic<size_t> embedded{0};
  bool fail = false;
};

TEST(Rerank, EmbedScoresPassagesByTheirBestSentenceAndCachesSentenceVectors) {
  BagEmbedder emb;
  auto r = make_reranker(RerankSpec::parse("embed"), {nullptr, &emb, nullptr});
  EXPECT_EQ(r->name(), "embed");
  auto cs = constructed();
  RerankReport rep = rerank(*r, kQuestion, cs, 20, 1.0);
  EXPECT_TRUE(rep.fallback.empty()) << rep.fallback;
  EXPECT_EQ(cs[0].hit.chunk_id, "ans") << ::testing::PrintToString(ids(cs));
  const size_t first = emb.embedded;
  EXPECT_GT(first, 4u);  // sentences, not chunks
  auto again = constructed();
  rerank(*r, kQuestion, again, 20, 1.0);
  EXPECT_EQ(emb.embedded, first + 1) << "only the question is embedded again";
  EXPECT_EQ(ids(again), ids(cs));
  // A failing model keeps the fused order and says why.
  emb.fail = true;
  auto kept = constructed();
  RerankReport bad = rerank(*r, "a new question", kept, 20, 1.0);
  EXPECT_NE(bad.fallback.find("test embedder is down"), std::string::npos) << bad.fallback;
  EXPECT_EQ(ids(kept), ids(constructed()));
}

TEST_F(RerankStore, FusedRerankersCombineAndFactoryErrorsSayWhatToDo) {
  TermStats stats(*store);
  BagEmbedder emb;
  auto r = make_reranker(RerankSpec::parse("lexical+embed"), {&stats, &emb, nullptr});
  EXPECT_EQ(r->name(), "lexical+embed");
  auto cs = constructed();
  rerank(*r, kQuestion, cs, 20, 1.0);
  EXPECT_EQ(cs[0].hit.chunk_id, "ans");
  // One member failing leaves the other's order.
  emb.fail = true;
  auto one = constructed();
  RerankReport rep = rerank(*r, "softmax overflow scores", one, 20, 1.0);
  EXPECT_TRUE(rep.fallback.empty());
  EXPECT_EQ(one[0].hit.chunk_id, "ans");

  EXPECT_EQ(make_reranker(RerankSpec::parse("none"), {}), nullptr);
  EXPECT_EQ(make_reranker(RerankSpec::parse(""), {}), nullptr);
  auto message = [](const std::string& spec, const RerankDeps& d) {
    try {
      make_reranker(RerankSpec::parse(spec), d);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("bogus", {}).find("use none, lexical, embed, llm"), std::string::npos);
  EXPECT_NE(message("embed", {}).find("use --rerank lexical or none"), std::string::npos);
  EXPECT_NE(message("llm", {}).find("--llm local"), std::string::npos);
  EXPECT_NE(message("lexical+", {&stats, nullptr, nullptr}).find("unknown reranker ''"), std::string::npos);
}

TEST(RerankSpec, ParsesOnceAndPrintsBack) {
  EXPECT_EQ(RerankSpec().text(), "lexical");
  EXPECT_TRUE(RerankSpec::parse("").parts.empty());
  EXPECT_EQ(RerankSpec::parse("none").text(), "none");
  const RerankSpec two = RerankSpec::parse("lexical+embed");
  EXPECT_EQ(two.text(), "lexical+embed");
  EXPECT_TRUE(two.uses(RerankerKind::Embed));
  EXPECT_FALSE(two.uses(RerankerKind::Llm));
  EXPECT_TRUE(RerankSpec::parse("llm").uses(RerankerKind::Llm));
  EXPECT_THROW(RerankSpec::parse("lexical+bogus"), UsageError);
}

// What every backend promises: one score per passage (or none, with a reason), for any question.
TEST_F(RerankStore, EveryBackendGivesOneScorePerPassage) {
  TermStats stats(*store);
  BagEmbedder emb;
  mmkg::testing::ScriptedHttpServer srv;
  for (int i = 0; i < 4; ++i)
    srv.push_json(200, nlohmann::json({{"choices", {{{"index", 0},
                                                     {"message", {{"role", "assistant"}, {"content", R"({"ranking": [2]})"}}},
                                                     {"finish_reason", "stop"}}}}})
                           .dump());
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test&retries=0")));
  const auto cs = constructed();
  std::vector<const SearchHit*> three = {&cs[0].hit, &cs[1].hit, &cs[2].hit};
  SearchHit empty_text;
  for (const char* spec : {"lexical", "embed", "llm", "lexical+embed"}) {
    auto r = make_reranker(RerankSpec::parse(spec), {&stats, &emb, model.get()});
    for (const std::string& q : {kQuestion, std::string("???"), std::string()}) {
      std::string why;
      auto s = r->score(q, three, why);
      EXPECT_TRUE(s.size() == 3 || (s.empty() && !why.empty())) << spec << " '" << q << "': " << why;
    }
    std::string why;
    auto one = r->score(kQuestion, {&empty_text}, why);
    EXPECT_TRUE(one.size() == 1 || (one.empty() && !why.empty())) << spec << ": " << why;
  }
}

using testing::chat_answer;

TEST(Rerank, LlmRanksListwiseWithStructuredOutput) {
  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(R"({"ranking": [4, "1", 4, 9]})", 80, 8));  // repeats and out-of-range ignored
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test&retries=0")));
  auto r = make_reranker(RerankSpec::parse("llm"), {nullptr, nullptr, model.get()});
  EXPECT_EQ(r->name(), "llm");
  auto cs = constructed();
  RerankReport rep = rerank(*r, kQuestion, cs, 20, 1.0);
  EXPECT_TRUE(rep.fallback.empty()) << rep.fallback;
  // Its ranking first (4, 1), then the rest in the fused order.
  EXPECT_EQ(ids(cs), (std::vector<std::string>{"ans", "scattered", "other", "garden"}));
  auto req = nlohmann::json::parse(srv.requests()[0].body);
  EXPECT_EQ(req["response_format"]["type"], "json_schema");
  EXPECT_EQ(req["temperature"], 0);
  const std::string prompt = req["messages"][1]["content"];
  EXPECT_NE(prompt.find("[4] Transformers are everywhere."), std::string::npos) << prompt;
  EXPECT_NE(prompt.find(kQuestion), std::string::npos);
}

TEST(Rerank, LlmGarbageOrFailureKeepsTheInputOrder) {
  mmkg::testing::ScriptedHttpServer srv;
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test&retries=0")));
  auto r = make_reranker(RerankSpec::parse("llm"), {nullptr, nullptr, model.get()});
  // Not JSON, twice (the client asks once more): the call fails, the order stands.
  srv.push_json(200, chat_answer("Passage four looks best to me, then maybe one.", 80, 8));
  srv.push_json(200, chat_answer("I would say four.", 80, 8));
  auto cs = constructed();
  RerankReport rep = rerank(*r, kQuestion, cs, 20, 1.0);
  EXPECT_EQ(ids(cs), ids(constructed()));
  EXPECT_NE(rep.fallback.find("model call failed"), std::string::npos) << rep.fallback;
  EXPECT_EQ(rep.scored, 0u);
  // JSON of the right shape naming no passage.
  srv.push_json(200, chat_answer(R"({"ranking": [0, 17, "x"]})", 80, 8));
  auto cs2 = constructed();
  RerankReport rep2 = rerank(*r, kQuestion, cs2, 20, 1.0);
  EXPECT_EQ(ids(cs2), ids(constructed()));
  EXPECT_NE(rep2.fallback.find("names no passage"), std::string::npos) << rep2.fallback;
  // A server error.
  srv.push_json(500, R"({"error":{"message":"overloaded"}})");
  srv.push_json(500, R"({"error":{"message":"overloaded"}})");
  auto cs3 = constructed();
  RerankReport rep3 = rerank(*r, kQuestion, cs3, 20, 1.0);
  EXPECT_EQ(ids(cs3), ids(constructed()));
  EXPECT_FALSE(rep3.fallback.empty());
}

}  // namespace
}  // namespace mmkg
