// The query team's pieces: the agent wrapper, the verifier (judge, revision), gaps, and the
// orchestrator's follow-up round. A scripted server stands in for the model so its answers are
// known; the real local model runs in tests/e2e/test_llm_ask.py.
#include "agents/team.h"

#include <gtest/gtest.h>

#include "agents/ask.h"
#include "support/ask_fixtures.h"
#include "support/chat_fixtures.h"
#include "support/temp_dir.h"
#include "text/words.h"
#include "index/lexical.h"
#include "llm/llm_config.h"
#include "llm/openai_chat.h"
#include "support/scripted_http_server.h"
#include "store/store.h"
#include "support/store_fixtures.h"

namespace mmkg {
namespace {

using testing::chat_answer;

class Doubler : public Agent<int, int> {
 public:
  std::string name() const override { return "double"; }
  int run(const int& x, AgentStep& step) override {
    if (x < 0) throw Error("negative input");
    step.detail = OrchestrateStep{.rounds = x};
    return 2 * x;
  }
};

TEST(AgentWrapper, TimesRecordsAndPassesFailuresOn) {
  Trace trace(false);
  std::vector<std::string> streamed;  // the per-step callback sees each step as it finishes
  trace.on_step = [&](const StepRecord& r) { streamed.push_back(r.step + (r.error.empty() ? "" : ":failed")); };
  Doubler d;
  EXPECT_EQ(run_agent(d, 21, trace), 42);
  trace.set_round(2);
  EXPECT_THROW(run_agent(d, -1, trace), Error);
  // The typed records...
  const auto& rec = trace.steps();
  ASSERT_EQ(rec.size(), 2u);
  EXPECT_EQ(rec[0].step, "double");
  ASSERT_TRUE(std::holds_alternative<OrchestrateStep>(rec[0].detail));
  EXPECT_EQ(std::get<OrchestrateStep>(rec[0].detail).rounds, 21);
  EXPECT_EQ(rec[1].error, "negative input");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rec[1].detail));
  // ...and the JSON rendered from them.
  const auto s = trace_json(rec);
  EXPECT_EQ(s[0]["step"], "double");
  EXPECT_EQ(s[0]["rounds"], 21);
  EXPECT_GE(s[0]["ms"].get<double>(), 0.0);
  EXPECT_FALSE(s[0].contains("round"));
  EXPECT_FALSE(s[0].contains("error"));
  EXPECT_EQ(s[1]["error"], "negative input");
  EXPECT_EQ(s[1]["round"], 2);
  EXPECT_EQ(streamed, (std::vector<std::string>{"double", "double:failed"}));
}

// A retrieval of hand-made passages (the verifier needs no store).
Retrieval passages(const std::vector<std::string>& texts) {
  Retrieval r;
  for (size_t i = 0; i < texts.size(); ++i) {
    Candidate c;
    c.hit.chunk_id = "c" + std::to_string(i);
    c.hit.doc = "doc.txt";
    c.hit.text = texts[i];
    r.context.push_back(c);
  }
  return r;
}

Draft model_draft(std::vector<DraftSentence> sentences, size_t passages) {
  Draft d;
  d.extractive.found = true;
  d.extractive.text = "extractive answer [1].";
  d.sentences = std::move(sentences);
  d.passages = passages;
  return d;
}

const char* kPassage =
    "Dropout randomly zeroes activations during training to reduce overfitting. It is disabled at inference "
    "time.";

TEST(Verifier, JudgeDecidesBorderlineSentencesAndMayVetoWithScopeAll) {
  Retrieval r = passages({kPassage});
  // 2 of 5 content words in the passage: borderline. The other sentence is fully supported.
  DraftSentence border{"Dropout zeroes activations to help networks generalise", {0}};
  DraftSentence strong{"Dropout randomly zeroes activations during training", {0}};
  for (bool yes : {true, false}) {
    mmkg::testing::ScriptedHttpServer srv;
    srv.push_json(200, chat_answer(std::string(R"({"verdicts":[{"claim":1,"supported":)") + (yes ? "true" : "false") + "}]}",
                                   50, 10));
    auto judge = make_openai_chat(parse_llm_spec(srv.url("/v1#model=judge")));
    VerifyOptions o;
    o.judge = judge.get();
    o.revise_min_overlap = 0;  // no revision: keep or drop
    VerifyReport rep;
    Answer a = verify_draft("what does dropout do?", r, model_draft({border, strong}, 1), o, rep);
    EXPECT_EQ(rep.judged, 1u);  // only the borderline sentence is asked about
    EXPECT_EQ(rep.judge_answered, 1u);
    EXPECT_EQ(rep.kept_by_judge, yes ? 1u : 0u);
    EXPECT_EQ(rep.kept_sentences, yes ? 2u : 1u);
    EXPECT_EQ(a.text.find("generalise") != std::string::npos, yes) << a.text;
    auto req = nlohmann::json::parse(srv.requests()[0].body);
    EXPECT_NE(req["messages"][1]["content"].get<std::string>().find("Claim 1: Dropout zeroes activations to help"), std::string::npos);
    EXPECT_EQ(req["response_format"]["type"], "json_schema");
  }
  // Scope "all": the judge also sees supported sentences and its "no" vetoes one.
  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(R"({"verdicts":[{"claim":1,"supported":false},{"claim":2,"supported":true}]})", 50, 10));
  auto judge = make_openai_chat(parse_llm_spec(srv.url("/v1#model=judge")));
  VerifyOptions o;
  o.judge = judge.get();
  o.judge_scope = JudgeScope::All;
  o.revise_min_overlap = 0;
  VerifyReport rep;
  DraftSentence negated{"Dropout randomly zeroes activations during inference", {0}};
  Answer a = verify_draft("q", r, model_draft({negated, border}, 1), o, rep);
  EXPECT_EQ(rep.judged, 2u);
  EXPECT_EQ(rep.judge_answered, 2u);
  EXPECT_EQ(rep.judge_vetoes, 1u);
  EXPECT_EQ(a.text.find("during inference"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("generalise"), std::string::npos) << a.text;
}

TEST(Verifier, GarbageFromTheJudgeLeavesTheOtherChecksInCharge) {
  Retrieval r = passages({kPassage});
  mmkg::testing::ScriptedHttpServer srv;
  for (int i = 0; i < 4; ++i) srv.push_json(200, chat_answer("I think they are all fine!", 50, 10));
  auto judge = make_openai_chat(parse_llm_spec(srv.url("/v1#model=judge&retries=0")));
  VerifyOptions o;
  o.judge = judge.get();
  o.revise_min_overlap = 0;
  o.embed = [](const std::vector<std::string>& t) { return std::vector<std::vector<float>>(t.size(), {1.0f}); };
  VerifyReport rep;
  Answer a = verify_draft("q", r, model_draft({{"Dropout zeroes activations to help networks generalise", {0}}}, 1), o, rep);
  EXPECT_FALSE(rep.judge_error.empty());
  EXPECT_EQ(rep.judge_answered, 0u);  // no verdict: the embedding decided
  EXPECT_EQ(rep.kept_by_embedding, 1u);  // no verdict: the embedding decided
  EXPECT_TRUE(a.found);
}

TEST(Verifier, RevisesAnUnsupportedClaimToTheSourcesWords) {
  Retrieval r = passages({kPassage});
  // Most words are the passage's, but the claim is wrong (the judge says so): the passage's own
  // sentence replaces it, verbatim, with the same citation.
  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(R"({"verdicts":[{"claim":1,"supported":false}]})", 50, 10));
  auto judge = make_openai_chat(parse_llm_spec(srv.url("/v1#model=judge")));
  VerifyOptions o;
  o.judge = judge.get();
  o.judge_scope = JudgeScope::All;
  VerifyReport rep;
  Answer a = verify_draft("q", r, model_draft({{"Dropout zeroes activations at inference to reduce overfitting", {0}}}, 1),
                          o, rep);
  EXPECT_EQ(rep.revised, 1u);
  EXPECT_EQ(a.text, "Dropout randomly zeroes activations during training to reduce overfitting [1].");
  ASSERT_EQ(a.citations.size(), 1u);
  EXPECT_EQ(a.citations[0].chunk_id, "c0");
  // Nothing like it in the passage: dropped, and with nothing left the extractive answer stands.
  VerifyReport rep2;
  VerifyOptions plain;
  Answer b = verify_draft("q", r, model_draft({{"Bananas grow in tropical climates", {0}}}, 1), plain, rep2);
  EXPECT_EQ(rep2.dropped, 1u);
  EXPECT_EQ(b.text, "extractive answer [1].");
  EXPECT_FALSE(rep2.fallback.empty());
}

class TeamStore : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    add("a", "/c/boil.txt",
        {"How many degrees does zorblium need to boil? Zorblium boils at 412 degrees under standard pressure, "
         "many degrees above most soft metals.",
         "Zorblium boils quickly in thin crucibles; zorblium vapour is toxic, so boiling zorblium at many degrees "
         "needs care."});
    add("b", "/c/history.txt",
        {"Cornwall has a long history of mining. Its tin and copper pits were worked from the Bronze Age, its "
         "engine houses still stand on the cliffs, and its miners took their skills around the world in the "
         "nineteenth century. The county's ports shipped ore to smelters in Wales, its towns grew around the "
         "shafts, and its chapels, schools and institutes were paid for by the profits of the lodes. Many "
         "families left when prices fell, for America, Australia and South Africa, and the skills of the "
         "Cornish miner spread with them to every continent. In one of those tin mines, in 1901, the chemist Ada Kestrel isolated zorblium."});
    add("c", "/c/other.txt",
        {"Copper is a soft metal used in wires.", "Tin is a soft metal used in solder.",
         "Lead is a soft metal once used in pipes."});
  }
  void add(const std::string& id, const std::string& path, std::vector<std::string> texts) {
    mmkg::testing::put_text_document(*store, id, path, texts);
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(TeamStore, GapsAreInformativeQuestionWordsTheSourcesLack) {
  TermStats st(*store);
  Retrieval r;
  Answer a;
  a.found = true;
  Citation c;
  c.text = "How many degrees does zorblium need to boil? Zorblium boils at 412 degrees.";
  a.citations.push_back(c);
  // "chemist" is in the corpus but not in the cited text; "spectroscopy" is in no chunk;
  // "discovered" is a verb form (framing, not content).
  const std::string q = "At how many degrees does zorblium boil, and which chemist discovered it by spectroscopy?";
  EXPECT_EQ(answer_gaps(q, a, r, st), std::vector<std::string>{"chemist"});
  // a word naming a document is a reference to it, not a gap
  EXPECT_EQ(document_name_stems(*store), (std::set<std::string>{"boil", stem("history"), "other", "txt"}));
  EXPECT_TRUE(answer_gaps("what does the history say about zorblium boiling?", a, r, st, {stem("history")}).empty());
  EXPECT_EQ(answer_gaps("what does the history say about zorblium boiling?", a, r, st, {}),
            std::vector<std::string>{"history"});
  a.citations[0].text += " The chemist Ada Kestrel discovered it.";
  EXPECT_TRUE(answer_gaps(q, a, r, st).empty());
}

TEST_F(TeamStore, FollowUpPlanAimsAtTheGap) {
  Plan p;
  p.subqueries = {"q"};
  p.matches = {""};
  Plan f = plan_followup(p, analyse_question("At what temperature does zorblium boil, and who discovered it?"), {"discovered"});
  ASSERT_EQ(f.subqueries.size(), 2u);
  EXPECT_EQ(f.subqueries[1], "discovered");
  EXPECT_EQ(f.matches[1].rfind("\"discovered\" AND (", 0), 0u) << f.matches[1];
  // the same gap again adds nothing
  EXPECT_EQ(plan_followup(f, analyse_question("At what temperature does zorblium boil, and who discovered it?"), {"discovered"})
                .subqueries.size(),
            2u);
}

TEST_F(TeamStore, OrchestratorRunsAFollowUpRoundForAGapAndKeepsTheBetterAnswer) {
  AskOptions o;
  o.retrieve.max_chunks = 2;  // room for two passages: round 1 fills it with the boiling chunks
  o.retrieve.k_per_query = 2;
  o.max_phrases = 0;          // the question alone is searched in round 1
  const std::string q = "Under standard pressure, at how many degrees does zorblium boil, and which chemist isolated it?";
  AskResult one = [&] {
    AskOptions o1 = o;
    o1.max_rounds = 1;
    return testing::ask_with(*store, q, o1, "none");
  }();
  ASSERT_TRUE(one.found) << one.answer;
  EXPECT_EQ(one.rounds, 1);
  EXPECT_EQ(one.gaps, std::vector<std::string>{"chemist"}) << trace_json(one.trace).dump();
  EXPECT_EQ(trace_json(one.trace).back()["stop"], "no rounds left");

  AskResult two = testing::ask_with(*store, q, o, "none");
  EXPECT_EQ(two.rounds, 2) << trace_json(two.trace).dump();
  EXPECT_TRUE(two.gaps.empty()) << trace_json(two.trace).dump();
  EXPECT_EQ(trace_json(two.trace).back()["answer_round"], 2);
  EXPECT_NE(two.answer.find("Kestrel"), std::string::npos) << two.answer;
  bool cites_history = false;
  for (auto& c : two.citations) cites_history = cites_history || c.doc == "history.txt";
  EXPECT_TRUE(cites_history);
  // the follow-up steps carry their round
  size_t round2 = 0;
  for (auto& s : trace_json(two.trace)) round2 += s.value("round", 0) == 2;
  EXPECT_EQ(round2, 4u);  // plan, retrieve, synthesize, verify
}

}  // namespace
}  // namespace mmkg
