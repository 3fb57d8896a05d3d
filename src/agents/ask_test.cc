#include "agents/ask.h"

#include <gtest/gtest.h>

#include "agents/planner.h"
#include "retrieve/rerank.h"
#include "llm/llm_config.h"
#include "llm/openai_chat.h"
#include "support/chat_fixtures.h"
#include "support/scripted_http_server.h"
#include "support/ask_fixtures.h"
#include "support/temp_dir.h"
#include "index/lexical.h"
#include "store/store.h"
#include "support/store_fixtures.h"

namespace mmkg {
namespace {

class AskStore : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    add("w1", "/c/wiki.txt", 0,
        {"Attention is a machine learning method that determines the relative importance of each component "
         "in a sequence relative to the other components in that sequence. It was introduced for machine "
         "translation.",
         "Recurrent networks process tokens one after another, which makes training slow on long sequences."});
    add("p1", "/c/paper.pdf", 4,
        {"The numerically stable implementation subtracts the maximum from all values before the softmax is "
         "computed. This avoids overflow when some scores are very large.",
         "Gardening requires patience, water and good soil for tomatoes to grow."});
  }
  void add(const std::string& id, const std::string& path, int page, std::vector<std::string> texts) {
    mmkg::testing::put_text_document(*store, id, path, texts, page);
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(AskStore, PlannerKeepsQuestionAndAddsKeyPhrases) {
  TermStats st(*store);
  Plan p = plan_rules(analyse_question("what is attention?"), st);
  ASSERT_EQ(p.subqueries.size(), 3u);
  EXPECT_EQ(p.subqueries[0], "what is attention?");
  EXPECT_EQ(p.subqueries[1], "attention");
  EXPECT_EQ(p.definiendum, "attention");
  EXPECT_NE(p.matches[2].find("NEAR(\"attention\" \"is\", 2)"), std::string::npos);
  Plan q = plan_rules(analyse_question("How does the softmax avoid overflow with large scores?"), st, 2);
  EXPECT_EQ(q.subqueries.size(), 3u);
}

TEST_F(AskStore, AnswersWithCitationsToDocPageAndChunk) {
  AskOptions o;
  AskResult r = testing::ask_with(*store, "what is attention?", o);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("relative importance"), std::string::npos) << r.answer;
  EXPECT_NE(r.answer.find("[1]"), std::string::npos);
  ASSERT_FALSE(r.citations.empty());
  EXPECT_EQ(r.citations[0].doc, "wiki.txt");
  EXPECT_EQ(r.citations[0].chunk_id, "w1-0");
  EXPECT_EQ(r.citations[0].page, 0);
  EXPECT_FALSE(r.citations[0].quote.empty());
  // The trace has every step with its time.
  std::vector<std::string> steps;
  for (auto& s : trace_json(r.trace)) {
    steps.push_back(s["step"]);
    EXPECT_GE(s["ms"].get<double>(), 0.0);
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"plan", "retrieve", "synthesize", "verify", "orchestrate"}));
  EXPECT_EQ(trace_json(r.trace).back()["stop"], "no gaps");
  EXPECT_EQ(r.rounds, 1);
}

TEST_F(AskStore, ParallelSubQueriesGiveTheSameAnswerAsSequential) {
  AskOptions seq, par;
  seq.retrieve.parallel = 1;
  par.retrieve.parallel = 4;
  for (const char* q : {"what is attention?", "How do implementations keep the softmax from overflowing?"}) {
    AskResult a = testing::ask_with(*store, q, seq), b = testing::ask_with(*store, q, par);
    EXPECT_EQ(a.answer, b.answer);
    EXPECT_EQ(a.subqueries.size(), b.subqueries.size());
    ASSERT_EQ(a.citations.size(), b.citations.size());
    for (size_t i = 0; i < a.citations.size(); ++i) EXPECT_EQ(a.citations[i].chunk_id, b.citations[i].chunk_id);
  }
}

TEST_F(AskStore, CitesPagesOfPagedDocuments) {
  AskResult r = testing::ask_with(*store, "How do implementations keep the softmax from overflowing?", {});
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("subtracts the maximum"), std::string::npos) << r.answer;
  EXPECT_EQ(r.citations[0].doc, "paper.pdf");
  EXPECT_EQ(r.citations[0].page, 4);
}

TEST_F(AskStore, SaysSoWhenTheDocumentsDoNotContainIt) {
  AskResult r = testing::ask_with(*store, "Which GPU was the quantum chromodynamics simulation benchmarked on?", {});
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.answer.rfind("The documents do not say: ", 0), 0u) << r.answer;
  EXPECT_TRUE(r.citations.empty());
  AskResult e = testing::ask_with(*store, "???", {});
  EXPECT_FALSE(e.found);
}

TEST_F(AskStore, ContextRespectsTokenBudgetAndDeduplicates) {
  AskOptions wide;
  AskResult w = testing::ask_with(*store, "attention softmax recurrent gardening", wide);
  EXPECT_LE(w.context_chunks, 4u);
  EXPECT_GT(w.context_tokens, 0u);
  // A budget smaller than the chunks: what does not fit whole is trimmed to its best sentences,
  // and the count never goes over the budget.
  AskOptions o;
  o.retrieve.max_context_tokens = 45;
  AskResult r = testing::ask_with(*store, "attention softmax recurrent gardening", o);
  EXPECT_GE(r.context_chunks, 1u) << "the first chunk is never left out for size";
  EXPECT_LE(r.context_tokens, 45u);
  EXPECT_LT(r.context_tokens, w.context_tokens);
  const auto retrieve = trace_json(r.trace)[1];
  ASSERT_EQ(retrieve["step"], "retrieve");
  EXPECT_EQ(retrieve["context_tokens"], r.context_tokens);
  EXPECT_GE(retrieve["trimmed_chunks"].get<int>() + retrieve["skipped_chunks"].get<int>(), 1) << retrieve.dump();
  EXPECT_GE(retrieve["unbudgeted_tokens"].get<size_t>(), w.context_tokens);
}

TEST_F(AskStore, RerankerRunsBeforeTheBudgetAndIsTraced) {
  TermStats stats(*store);
  auto reranker = make_reranker(RerankSpec::parse("lexical"), {&stats, nullptr, nullptr});
  AskOptions o;
  o.retrieve.reranker = reranker.get();
  AskResult r = testing::ask_with(*store, "Which softmax implementation avoids overflow, and why is recurrent training slow?", o);
  ASSERT_TRUE(r.found) << r.answer;
  const auto retrieve = trace_json(r.trace)[1];
  ASSERT_TRUE(retrieve.contains("rerank")) << retrieve.dump();
  EXPECT_EQ(retrieve["rerank"]["reranker"], "lexical");
  EXPECT_GE(retrieve["rerank"]["ms"].get<double>(), 0.0);
  ASSERT_GE(retrieve["unique_chunks"].get<size_t>(), 2u);
  EXPECT_EQ(retrieve["rerank"]["scored"].get<size_t>(), std::min<size_t>(20, retrieve["unique_chunks"].get<size_t>()));
  EXPECT_GT(r.context[0].rerank, 0.0);
}

// The model's answer is verified sentence by sentence against the passage it cites; a scripted
// server stands in for the model so the answer is known (the real local model is tested in
// tests/e2e/test_llm_ask.py).
// The first trace record of step `name` (in round 1).
nlohmann::json step_of(const AskResult& r, const std::string& name) {
  for (const auto& s : trace_json(r.trace))
    if (s["step"] == name && !s.contains("round")) return s;
  ADD_FAILURE() << "no step " << name << " in " << trace_json(r.trace).dump();
  return nlohmann::json::object();
}

using testing::chat_answer;

const char* kPlan = R"({"subqueries": ["attention importance of components", "bananas"], "tools": ["rag", "graph"]})";

TEST_F(AskStore, LlmAnswerKeepsOnlySentencesItsPassagesSupport) {
  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(kPlan));
  srv.push_json(200, chat_answer("Attention determines the relative importance of each component in a sequence [1]. "
                                 "Attention was invented by Napoleon on the island of Elba [1]. "
                                 "Attention determines the relative importance of each component in a sequence [1]."));
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test")));
  AskOptions o;
  o.chat = model.get();
  AskResult r = testing::ask_with(*store, "what is attention?", o);
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("relative importance of each component in a sequence [1]"), std::string::npos) << r.answer;
  EXPECT_EQ(r.answer.find("Napoleon"), std::string::npos) << r.answer;
  ASSERT_EQ(r.citations.size(), 1u);
  EXPECT_EQ(r.citations[0].chunk_id, "w1-0");
  // the quote is verbatim from the chunk
  EXPECT_NE(r.citations[0].text.find(r.citations[0].quote.substr(0, 40)), std::string::npos) << r.citations[0].quote;
  // the plan came from the model (structured output); an unrelated sub-query was dropped
  EXPECT_EQ(trace_json(r.trace)[0]["planner"], "llm");
  EXPECT_EQ(r.subqueries, (std::vector<std::string>{"what is attention?", "attention importance of components",
                                                     "attention is ..."}));
  EXPECT_EQ(trace_json(r.trace)[0]["tools"], nlohmann::json({"rag", "graph"}));
  auto plan_req = nlohmann::json::parse(srv.requests()[0].body);
  EXPECT_EQ(plan_req["response_format"]["type"], "json_schema");
  // The model is shown worked plans as earlier turns, each a plan the schema it is held to
  // accepts (bounded queries in a bounded list), and then the question.
  const auto& schema = plan_req["response_format"]["json_schema"]["schema"]["properties"]["subqueries"];
  const auto& msgs = plan_req["messages"];
  ASSERT_GE(msgs.size(), 4u);
  EXPECT_EQ(msgs.back()["content"], "what is attention?");
  size_t shown = 0;
  for (size_t i = 1; i + 1 < msgs.size(); i += 2) {
    EXPECT_EQ(msgs[i]["role"], "user");
    ASSERT_EQ(msgs[i + 1]["role"], "assistant");
    auto subs = nlohmann::json::parse(msgs[i + 1]["content"].get<std::string>())["subqueries"];
    EXPECT_GE(subs.size(), schema["minItems"].get<size_t>());
    EXPECT_LE(subs.size(), schema["maxItems"].get<size_t>());
    for (const auto& q : subs) EXPECT_LE(q.get<std::string>().size(), schema["items"]["maxLength"].get<size_t>()) << q;
    ++shown;
  }
  EXPECT_GE(shown, 2u);
  const auto synth = step_of(r, "synthesize");
  const auto verify = step_of(r, "verify");
  EXPECT_EQ(synth["synthesizer"], "llm");
  EXPECT_EQ(verify["answer_from"], "llm");
  EXPECT_EQ(verify["model_sentences"], 3);  // the repeated sentence is dropped too
  EXPECT_EQ(verify["verified_sentences"], 1);
  EXPECT_EQ(verify["dropped"], 2);
  EXPECT_EQ(synth["prompt_tokens"], 100);
  // the request carried the numbered passage and the question
  auto req = nlohmann::json::parse(srv.requests()[1].body);
  EXPECT_NE(req["messages"][1]["content"].get<std::string>().find("[1] (wiki.txt)"), std::string::npos);
}

TEST_F(AskStore, LlmParaphraseIsKeptOnlyWithEmbeddingOverlap) {
  // 2 of the sentence's 5 content words are in the passage: too few alone (0.6), enough (0.3)
  // together with an embedding close to one of the passage's sentences.
  const std::string para = "Attention weighs the relevance of every sequence element [1].";
  for (double cos : {1.0, 0.0}) {
    mmkg::testing::ScriptedHttpServer srv;
    srv.push_json(200, chat_answer(kPlan));
    srv.push_json(200, chat_answer(para));
    auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test")));
    AskOptions o;
    o.chat = model.get();
    o.verify.embed = [cos](const std::vector<std::string>& texts) {
      std::vector<std::vector<float>> v(texts.size(), std::vector<float>{0.0f, 1.0f});
      v[0] = cos == 1.0 ? std::vector<float>{0.0f, 1.0f} : std::vector<float>{1.0f, 0.0f};
      return v;
    };
    AskResult r = testing::ask_with(*store, "what is attention?", o, "none");
    ASSERT_TRUE(r.found);
    if (cos == 1.0) {
      EXPECT_EQ(step_of(r, "verify")["answer_from"], "llm") << r.answer;
      EXPECT_EQ(step_of(r, "verify")["verified_by_embedding"], 1);
      EXPECT_NE(r.answer.find("relevance of every sequence element [1]"), std::string::npos) << r.answer;
    } else {
      EXPECT_EQ(step_of(r, "verify")["answer_from"], "extractive") << r.answer;  // dropped, so extractive
    }
  }
}

TEST_F(AskStore, LlmFallsBackToExtractiveWhenNothingIsSupportedOrTheModelFails) {
  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(kPlan));
  srv.push_json(200, chat_answer("Bananas are yellow [1]."));
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test&retries=0")));
  AskOptions o;
  o.chat = model.get();
  AskResult r = testing::ask_with(*store, "what is attention?", o);
  ASSERT_TRUE(r.found);
  EXPECT_NE(r.answer.find("relative importance"), std::string::npos) << r.answer;  // extractive
  EXPECT_EQ(step_of(r, "verify")["answer_from"], "extractive");
  EXPECT_TRUE(step_of(r, "verify").contains("fallback"));
  // a server error: still an answer, from the extractive path
  srv.push_json(400, R"({"error":{"message":"model overloaded"}})");
  srv.push_json(400, R"({"error":{"message":"model overloaded"}})");
  AskResult e = testing::ask_with(*store, "How do implementations keep the softmax from overflowing?", o);
  ASSERT_TRUE(e.found);
  EXPECT_EQ(trace_json(e.trace)[0]["planner"], "rules");
  EXPECT_NE(trace_json(e.trace)[0]["fallback"].get<std::string>().find("model call failed"), std::string::npos);
  EXPECT_NE(step_of(e, "synthesize")["fallback"].get<std::string>().find("model call failed"), std::string::npos);
  // not in the documents: the plan asks the model, the answer does not (the honest answer)
  srv.push_json(200, chat_answer(kPlan));
  size_t before = srv.request_count();
  AskResult n = testing::ask_with(*store, "Which GPU was the quantum chromodynamics simulation benchmarked on?", o);
  EXPECT_FALSE(n.found);
  EXPECT_EQ(srv.request_count(), before + 1);
  EXPECT_EQ(step_of(n, "synthesize")["prompt_tokens"], 0);
}

// A follow-up answer replaces the last only when it is found where the last was not, or when
// its own sentences say a word the last answer's sources lacked; citing more passages (fewer
// gaps) is not enough, nor is a word that only shares a stem ("weak" for "weakness").
TEST(FollowUp, ABetterAnswerSaysAWordTheLastOneLacked) {
  auto verified = [](bool found, std::string text, std::vector<std::string> gaps) {
    Verified v;
    v.answer.found = found;
    v.answer.text = std::move(text);
    v.gaps = std::move(gaps);
    return v;
  };
  const Verified last = verified(true, "Zorblium boils at 412 degrees. [1]", {"vignette", "chemist"});
  EXPECT_TRUE(follow_up_is_better(last, verified(true, "The chemist Kestrel isolated it. [2]", {"vignette"})));
  EXPECT_TRUE(follow_up_is_better(last, verified(true, "Two chemists isolated it. [2]", {"vignette"})));
  EXPECT_FALSE(follow_up_is_better(last, verified(true, "It boils at 412 degrees. [1] [2]", {"vignette"})))
      << "fewer gaps only because it cites more";
  EXPECT_FALSE(follow_up_is_better(last, verified(true, "The chemist isolated it. [2]", {"vignette", "chemist"})))
      << "no fewer gaps";
  const Verified weak = verified(true, "The F statistics detect a shift. [1]", {"weakness"});
  EXPECT_FALSE(follow_up_is_better(weak, verified(true, "It denotes weak convergence. [1]", {})));
  EXPECT_TRUE(follow_up_is_better(verified(false, "The documents do not say.", {}), verified(true, "Found. [1]", {"x"})));
  EXPECT_FALSE(follow_up_is_better(verified(true, "Found. [1]", {"x"}), verified(false, "The documents do not say.", {})));
}

}  // namespace
}  // namespace mmkg
