#include "agents/ask.h"

#include <gtest/gtest.h>

#include "agents/planner.h"
#include "core/test_util.h"
#include "index/lexical.h"
#include "store/store.h"

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
    DocumentRecord d;
    d.id = id;
    d.path = path;
    d.name = path.substr(3);
    d.format = "text";
    std::vector<Chunk> cs;
    for (size_t i = 0; i < texts.size(); ++i) {
      Chunk c;
      c.id = id + "-" + std::to_string(i);
      c.seq = static_cast<int>(i);
      c.text = texts[i];
      c.page_start = c.page_end = page;
      cs.push_back(c);
    }
    store->put_document(d, "", cs, std::nullopt);
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(AskStore, PlannerKeepsQuestionAndAddsKeyPhrases) {
  TermStats st(*store);
  Plan p = plan_rules("what is attention?", st);
  ASSERT_EQ(p.subqueries.size(), 3u);
  EXPECT_EQ(p.subqueries[0], "what is attention?");
  EXPECT_EQ(p.subqueries[1], "attention");
  EXPECT_EQ(p.definiendum, "attention");
  EXPECT_NE(p.matches[2].find("NEAR(\"attention\" \"is\", 2)"), std::string::npos);
  Plan q = plan_rules("How does the softmax avoid overflow with large scores?", st, 2);
  EXPECT_EQ(q.subqueries.size(), 3u);
}

TEST_F(AskStore, AnswersWithCitationsToDocPageAndChunk) {
  AskOptions o;
  AskResult r = ask(*store, "what is attention?", o);
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
  for (auto& s : r.trace) {
    steps.push_back(s["step"]);
    EXPECT_GE(s["ms"].get<double>(), 0.0);
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"plan", "retrieve", "synthesize", "verify"}));
}

TEST_F(AskStore, CitesPagesOfPagedDocuments) {
  AskResult r = ask(*store, "How do implementations keep the softmax from overflowing?", {});
  ASSERT_TRUE(r.found) << r.answer;
  EXPECT_NE(r.answer.find("subtracts the maximum"), std::string::npos) << r.answer;
  EXPECT_EQ(r.citations[0].doc, "paper.pdf");
  EXPECT_EQ(r.citations[0].page, 4);
}

TEST_F(AskStore, SaysSoWhenTheDocumentsDoNotContainIt) {
  AskResult r = ask(*store, "Which GPU was the quantum chromodynamics simulation benchmarked on?", {});
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.answer, kNotFound);
  EXPECT_TRUE(r.citations.empty());
  AskResult e = ask(*store, "???", {});
  EXPECT_FALSE(e.found);
}

TEST_F(AskStore, ContextRespectsBudgetAndDeduplicates) {
  AskOptions o;
  o.retrieve.max_context_chars = 100;
  AskResult r = ask(*store, "attention softmax recurrent gardening", o);
  EXPECT_EQ(r.context_chunks, 1u) << "the first chunk always fits, later ones must respect the budget";
  AskOptions wide;
  AskResult w = ask(*store, "attention softmax recurrent gardening", wide);
  EXPECT_LE(w.context_chunks, 4u);
}

}  // namespace
}  // namespace mmkg
