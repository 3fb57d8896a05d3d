// Citations of a trimmed chunk (retrieve/context_budget.h) by the extractive and the LLM
// synthesizers, checked by the verifier.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agents/llm_synthesizer.h"
#include "agents/synthesizer.h"
#include "agents/verifier.h"
#include "index/lexical.h"
#include "llm/llm_config.h"
#include "llm/openai_chat.h"
#include "store/store.h"
#include "support/chat_fixtures.h"
#include "support/context_fixtures.h"
#include "support/scripted_http_server.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using namespace context_fixture;

// Citations of a trimmed chunk: the extractive and the LLM synthesizer both cite the chunk, and
// their quotes are verbatim text of it; the model saw only the budgeted passages.
class BudgetSynth : public ::testing::Test {
 protected:
  void SetUp() override { store = Store::open(dir.str()); }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

using testing::chat_answer;

TEST_F(BudgetSynth, CitationsOfATrimmedChunkPointAtItWithVerbatimQuotes) {
  const std::string q = "Why does the softmax overflow when scores are very large?";
  Retrieval r;
  Candidate first = cand("a", "Gardening requires patience.");
  pack_context({first, cand("b", kLong, "monograph.txt")}, terms({"softmax", "overflow", "score", "large"}),
               {8, tokens_whole(1, first) + 30, nullptr}, r);
  ASSERT_EQ(r.context.size(), 2u);
  ASSERT_TRUE(r.context[1].trimmed());
  TermStats stats(*store);
  Answer a = synthesize_extractive(analyse_question(q), r, stats);
  ASSERT_TRUE(a.found) << a.text;
  ASSERT_FALSE(a.citations.empty());
  bool cited_b = false;
  for (const auto& c : a.citations) {
    if (c.chunk_id != "b") continue;
    cited_b = true;
    EXPECT_EQ(c.doc, "monograph.txt");
    EXPECT_EQ(c.text, kLong) << "the citation carries the whole chunk";
    EXPECT_NE(kLong.find(c.quote), std::string::npos) << c.quote;
    EXPECT_EQ(c.quote.find(kGap), std::string::npos);
  }
  EXPECT_TRUE(cited_b) << a.text;

  mmkg::testing::ScriptedHttpServer srv;
  srv.push_json(200, chat_answer("The softmax overflows when some scores are very large [2].", 50, 10));
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test")));
  Draft draft = draft_llm(*model, analyse_question(q), r, stats, {}, {});
  VerifyReport rep;
  Answer l = verify_draft(q, r, draft, {}, rep);
  ASSERT_TRUE(rep.used_model) << rep.fallback;
  ASSERT_EQ(l.citations.size(), 1u);
  EXPECT_EQ(l.citations[0].chunk_id, "b");
  EXPECT_EQ(l.citations[0].quote, "Without that subtraction the softmax overflows when some scores are very large.");
  // The prompt held exactly the budgeted passages.
  auto req = nlohmann::json::parse(srv.requests()[0].body);
  const std::string prompt = req["messages"][1]["content"];
  EXPECT_NE(prompt.find(format_passage(1, r.context[0]) + format_passage(2, r.context[1])), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("Gardening requires patience, water"), std::string::npos) << "left-out text is not sent";
}

}  // namespace
}  // namespace mmkg
