#include "index/lexical.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "store/store.h"

namespace mmkg {
namespace {

TEST(Lexical, QueryDropsStopWordsAndAddsPhrases) {
  EXPECT_EQ(fts_query("what is attention?"), "\"attention\"");
  EXPECT_EQ(fts_query("multi-head attention"), "\"multi\" OR \"head\" OR \"attention\" OR \"multi head\" OR \"head attention\"");
  EXPECT_EQ(fts_query("what is it"), "\"what\" OR \"is\" OR \"it\"");
  EXPECT_EQ(fts_query("  ?! "), "");
  // Quotes and FTS operators in the input cannot break the expression.
  EXPECT_EQ(fts_query("\"NEAR(x b)\" OR *"), "\"near\" OR \"x\" OR \"b\" OR \"near x\" OR \"x b\"");
}

class LexicalStore : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    add("d1", "/c/a.txt", {{"Softmax", "The softmax turns scores into probabilities."},
                           {"Dropout", "Dropout randomly zeroes weights during training."}});
    add("d2", "/c/b.txt", {{"Attention", "Scaled dot-product attention divides scores by the square root."},
                           {"Misc", "Unrelated text about gardening and tomatoes."}});
  }
  void add(const std::string& id, const std::string& path, std::vector<std::pair<std::string, std::string>> parts) {
    DocumentRecord d;
    d.id = id;
    d.path = path;
    d.name = path.substr(3);
    d.format = "text";
    std::vector<Chunk> cs;
    for (size_t i = 0; i < parts.size(); ++i) {
      Chunk c;
      c.id = id + std::to_string(i);
      c.seq = static_cast<int>(i);
      c.heading_path = parts[i].first;
      c.text = parts[i].second;
      cs.push_back(c);
    }
    store->put_document(d, "", cs, std::nullopt);
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(LexicalStore, RanksMatchingChunkFirstWithSnippetAndDoc) {
  auto hits = bm25_search(*store, "How does dropout work?");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].chunk_id, "d11");
  EXPECT_EQ(hits[0].doc, "a.txt");
  EXPECT_NE(hits[0].snippet.find("«Dropout»"), std::string::npos);
  EXPECT_GT(hits[0].score, 0);
}

TEST_F(LexicalStore, StemmingMatchesInflections) {
  auto hits = bm25_search(*store, "scaling scored");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].chunk_id, "d20");
}

TEST_F(LexicalStore, HeadingFieldCounts) {
  auto hits = bm25_search(*store, "misc");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].chunk_id, "d21");
}

TEST_F(LexicalStore, KLimitsAndNoMatchIsEmpty) {
  LexicalOptions o;
  o.k = 1;
  EXPECT_EQ(bm25_search(*store, "scores", o).size(), 1u);
  EXPECT_TRUE(bm25_search(*store, "quantum chromodynamics").empty());
  EXPECT_TRUE(bm25_search(*store, "").empty());
}

TEST_F(LexicalStore, IdfIsHigherForRareWords) {
  TermStats st(*store);
  EXPECT_EQ(st.chunks(), 4);
  EXPECT_GT(st.idf("tomatoes"), st.idf("scores"));
  // a word no chunk holds has the largest idf, which absent_idf() gives without a query
  EXPECT_DOUBLE_EQ(st.absent_idf(), st.idf("chromodynamics"));
  EXPECT_GT(st.absent_idf(), st.idf("tomatoes"));
}

}  // namespace
}  // namespace mmkg
