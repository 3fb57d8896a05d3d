// The Xapian lexical index of large stores: the FTS5-subset parser, building and keeping the
// index in step with the store (update, sync after a missed write, rebuild of a corrupt index),
// the fall-back to FTS5 whenever it is stale, and its ranking against FTS5's on a real corpus.
#include "index/xapian_lexical.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "index/lexical.h"
#include "index/searcher.h"
#include "embed/embedder.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;

namespace mmkg {
namespace {

TEST(LexicalQuery, ParsesTheSubsetMmkgWrites) {
  auto q = parse_lexical_query(fts_query("multi-head attention"));
  ASSERT_TRUE(q);
  EXPECT_EQ(to_string(*q), "(\"multi\" OR \"head\" OR \"attention\" OR \"multi head\" OR \"head attention\")");
  EXPECT_EQ(q->children[3].terms, (std::vector<std::string>{"multi", "head"}));
  // Terms are stemmed as the index stores them.
  EXPECT_EQ(parse_lexical_query("\"running\"")->terms, std::vector<std::string>{"run"});
  // AND binds tighter than OR; juxtaposition is AND; parentheses group.
  auto a = parse_lexical_query("\"a1\" OR \"b1\" AND \"c1\" \"d1\"");
  ASSERT_TRUE(a);
  EXPECT_EQ(to_string(*a), "(\"a1\" OR (\"b1\" AND \"c1\" AND \"d1\"))");
  EXPECT_EQ(to_string(*parse_lexical_query("\"gap\" AND (\"x1\" OR \"y1\")")), "(\"gap\" AND (\"x1\" OR \"y1\"))");
  // NEAR with its distance, and the planner's definition pattern.
  auto n = parse_lexical_query("NEAR(\"attention\" \"is\", 2) OR NEAR(\"attention\" \"means\", 2)");
  ASSERT_TRUE(n);
  EXPECT_EQ(to_string(*n), "(NEAR(\"attention\" \"is\", 2) OR NEAR(\"attention\" \"means\", 2))");
  EXPECT_EQ(n->children[0].near, 2);
  // Escaped quotes inside a phrase.
  EXPECT_EQ(parse_lexical_query("\"say \"\"hi\"\"\"")->words, (std::vector<std::string>{"say", "hi"}));
  // NOT (tighter than AND), barewords and FTS5's '+' phrase join.
  EXPECT_EQ(to_string(*parse_lexical_query("\"a1\" NOT \"b1\" \"c1\"")), "((\"a1\" NOT \"b1\") AND \"c1\")");
  EXPECT_EQ(to_string(*parse_lexical_query("Attention OR \"multi\" + head")), "(\"attention\" OR \"multi head\")");
}

TEST(LexicalQuery, RefusesWhatIsNotInTheSubset) {
  for (const char* bad : {"", "  ", "heading_path : \"x\"", "\"pre\"*", "^\"x\"", "\"unclosed",
                          "(\"a\" OR \"b\"", "NEAR(\"a\" \"b\", x)", "\"?!\"", "\"a\" OR", "\"a\" NOT"})
    EXPECT_FALSE(parse_lexical_query(bad)) << bad;
}

// A store with the index forced on (threshold 0) for the tests below.
class XapianStore : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("MMKG_LEXICAL_THRESHOLD", "0", 1);
    store = Store::open(dir.str());
    testing::put_text_document(*store, "d1", "/c/a.txt",
                      {"The softmax turns scores into probabilities.", "Dropout randomly zeroes weights during training."});
    testing::put_text_document(*store, "d2", "/c/b.txt",
                      {"Scaled dot-product attention divides scores by the square root.",
                       "Unrelated text about gardening and tomatoes."});
  }
  void TearDown() override { ::unsetenv("MMKG_LEXICAL_THRESHOLD"); }

  // Search through the index as the Searcher does; `served` receives who answered.
  std::vector<SearchHit> search(const std::string& query, std::string* served, int k = 10) {
    if (!index) index = XapianLexical::open(dir.str());
    LexicalOptions lo;
    lo.k = k;
    lo.index = index.get();
    return bm25_match(*store, fts_query(query), lo, served);
  }
  std::set<std::string> chunk_ids() {
    std::set<std::string> out;
    Stmt s(store->db(), "SELECT id FROM chunks");
    while (s.step()) out.insert(s.text(0));
    return out;
  }
  std::set<std::string> indexed_ids() {
    auto x = XapianLexical::open(dir.str());
    std::set<std::string> out;
    for (auto& [rowid, id] : x->entries()) out.insert(id);
    return out;
  }

  testing::TempDir dir;
  std::unique_ptr<Store> store;
  std::unique_ptr<XapianLexical> index;
};

TEST_F(XapianStore, BuildsAndAnswersWithSnippetsLikeFts5) {
  auto st = update_lexical_index(*store, store->generation(), {}, {});
  EXPECT_EQ(st.action, "built");
  EXPECT_EQ(st.chunks, 4);
  std::string served;
  auto hits = search("how does dot-product attention scale scores?", &served);
  EXPECT_EQ(served, "xapian");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].doc_id, "d2");
  EXPECT_NE(hits[0].snippet.find("attention»"), std::string::npos) << hits[0].snippet;  // FTS5's highlight
  EXPECT_GT(hits[0].score, 0);
  EXPECT_FALSE(hits[0].text.empty());
  // Stemming: "probability" finds "probabilities"; nothing finds an absent word.
  auto p = search("probability", &served);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].doc_id, "d1");
  EXPECT_TRUE(search("quantum chromodynamics", &served).empty());
  EXPECT_EQ(served, "xapian");
  // k is honoured.
  EXPECT_EQ(search("scores text", &served, 1).size(), 1u);
}

TEST_F(XapianStore, CandidateListsDeferTheirSnippetsToTheHitsKept) {
  update_lexical_index(*store, store->generation(), {}, {});
  index = XapianLexical::open(dir.str());
  LexicalOptions lo;
  lo.index = index.get();
  lo.defer_snippets = true;
  const std::string match = fts_query("softmax probabilities");
  auto hits = bm25_match(*store, match, lo);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_TRUE(hits[0].snippet_pending);
  EXPECT_EQ(hits[0].snippet.find("«"), std::string::npos);  // the plain start of the chunk for now
  fill_snippets(*store, match, hits);
  EXPECT_FALSE(hits[0].snippet_pending);
  EXPECT_NE(hits[0].snippet.find("«softmax»"), std::string::npos) << hits[0].snippet;
  // Without deferral the snippet is made at once.
  lo.defer_snippets = false;
  hits = bm25_match(*store, match, lo);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FALSE(hits[0].snippet_pending);
  EXPECT_NE(hits[0].snippet.find("«softmax»"), std::string::npos) << hits[0].snippet;
}

// A build on several threads writes one shard each and merges them: the index must hold the
// same chunks under the same document ids and rank with the same BM25 statistics.
TEST_F(XapianStore, AShardedBuildAnswersAsASingleWriterBuild) {
  testing::put_text_document(*store, "d3", "/c/c.txt",
                             {"Attention scores and softmax again, with dropout.", "Tomatoes need scores of sun."});
  auto results = [&](int threads) {
    fs::remove_all(lexical_index_path(dir.str()));
    auto st = update_lexical_index(*store, store->generation(), {}, {}, threads);
    EXPECT_EQ(st.action, "built");
    EXPECT_EQ(st.chunks, 6);
    index = XapianLexical::open(dir.str());
    EXPECT_TRUE(index);
    if (!index) return std::vector<std::string>{};
    EXPECT_EQ(index->generation(), store->generation());
    EXPECT_EQ(index->entries(), chunk_entries(*store));
    std::vector<std::string> out;
    for (const char* q : {"scores", "softmax dropout", "attention scores", "tomatoes", "scores NOT softmax"}) {
      std::string served;
      for (auto& h : search(q, &served)) out.push_back(std::string(q) + " " + h.chunk_id + " " + std::to_string(h.score));
      EXPECT_EQ(served, "xapian") << q;
    }
    index.reset();
    return out;
  };
  const auto single = results(1);
  ASSERT_FALSE(single.empty());
  EXPECT_EQ(results(3), single);
  EXPECT_EQ(results(8), single) << "more threads than chunks: empty shards";
  // The merged index takes incremental writes as a single-writer one does.
  const int64_t gen = store->generation();
  WriteResult wr = store->put_document(testing::document_at("d4", "/c/d.txt", "text"), "",
                                       testing::text_chunks("d4", {"Layer normalisation keeps activations stable."}, 0),
                                       std::nullopt);
  EXPECT_EQ(update_lexical_index(*store, gen, wr.added_rowids, wr.removed_rowids).action, "updated");
  const int64_t g2 = store->generation();
  WriteResult del;
  store->delete_document("d1", &del);
  EXPECT_EQ(update_lexical_index(*store, g2, {}, del.removed_rowids).action, "updated");
  EXPECT_EQ(indexed_ids(), chunk_ids());
  std::string served;
  auto hits = search("normalisation", &served);
  EXPECT_EQ(served, "xapian");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].doc_id, "d4");
  EXPECT_TRUE(search("probability", &served).empty()) << "d1's chunk is gone";
  // No shard or temporary folder is left beside the index.
  for (auto& e : fs::directory_iterator(dir.str()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(XapianStore, BelowTheThresholdThereIsNoIndex) {
  ::setenv("MMKG_LEXICAL_THRESHOLD", "5", 1);
  auto st = update_lexical_index(*store, store->generation(), {}, {});
  EXPECT_EQ(st.action, "");
  EXPECT_FALSE(fs::exists(lexical_index_path(dir.str())));
  std::string served;
  EXPECT_FALSE(search("softmax", &served).empty());
  EXPECT_EQ(served, "fts5");
}

TEST_F(XapianStore, StaleIndexFallsBackToFts5UntilUpdated) {
  update_lexical_index(*store, store->generation(), {}, {});
  const int64_t gen = store->generation();
  WriteResult wr = store->put_document(testing::document_at("d3", "/c/c.txt", "text"), "",
                                       testing::text_chunks("d3", {"Layer normalisation keeps activations stable."}, 0),
                                       std::nullopt);
  std::string served;
  // Searchable at once (FTS5 answers while the index is behind the store).
  auto hits = search("normalisation", &served);
  EXPECT_EQ(served, "fts5");
  ASSERT_EQ(hits.size(), 1u);
  auto st = update_lexical_index(*store, gen, wr.added_rowids, wr.removed_rowids);
  EXPECT_EQ(st.action, "updated");
  hits = search("normalisation", &served);
  EXPECT_EQ(served, "xapian");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].doc_id, "d3");
  // A delete, applied incrementally.
  const int64_t g2 = store->generation();
  WriteResult del;
  store->delete_document("d3", &del);
  EXPECT_EQ(update_lexical_index(*store, g2, {}, del.removed_rowids).action, "updated");
  EXPECT_TRUE(search("normalisation", &served).empty());
  EXPECT_EQ(served, "xapian");
  EXPECT_EQ(indexed_ids(), chunk_ids());
}

TEST_F(XapianStore, MissedWritesAreSyncedIncludingReusedRowIds) {
  update_lexical_index(*store, store->generation(), {}, {});
  // Writes the index never heard of (a writer killed before its update): the last document goes
  // and another takes its row ids with other text.
  store->delete_document("d2");
  testing::put_text_document(*store, "d4", "/c/d.txt", {"Beam search keeps several hypotheses.", "Greedy decoding keeps one."});
  auto st = update_lexical_index(*store, store->generation(), {}, {});
  EXPECT_EQ(st.action, "synced");
  EXPECT_NE(st.reason.find("generation"), std::string::npos);
  EXPECT_EQ(indexed_ids(), chunk_ids());
  std::string served;
  auto hits = search("beam hypotheses", &served);
  EXPECT_EQ(served, "xapian");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].doc_id, "d4");
  EXPECT_TRUE(search("tomatoes gardening", &served).empty());
}

TEST_F(XapianStore, CorruptIndexIsNeverUsedAndIsRebuilt) {
  update_lexical_index(*store, store->generation(), {}, {});
  for (auto& f : fs::directory_iterator(lexical_index_path(dir.str()))) {
    std::ofstream out(f.path(), std::ios::binary | std::ios::trunc);
    out << "garbage";
  }
  std::string served;
  auto hits = search("softmax", &served);  // no crash, the right answer from FTS5
  EXPECT_EQ(served, "fts5");
  ASSERT_EQ(hits.size(), 1u);
  auto st = update_lexical_index(*store, store->generation(), {}, {});
  EXPECT_EQ(st.action, "built");
  EXPECT_FALSE(st.reason.empty());
  index.reset();
  EXPECT_EQ(search("softmax", &served).size(), 1u);
  EXPECT_EQ(served, "xapian");
}

// A long-lived Searcher (mmkg serve) keeps its index handle across writes by other processes.
// When one of them replaces the index (a rebuild renames a new folder into place), the handle
// still reads the old files; the Searcher must open the new index, not fall back to FTS5 until
// it is restarted.
TEST_F(XapianStore, ALongLivedSearcherFollowsARebuiltIndex) {
  update_lexical_index(*store, store->generation(), {}, {});
  LazyEmbedder none(EmbedderSpec::none());
  Searcher searcher(*store, none);
  SearchOptions opt;
  opt.mode = SearchMode::Bm25;
  EXPECT_EQ(searcher.search("softmax", opt).size(), 1u);
  EXPECT_EQ(searcher.lexical_backend(), "xapian");
  // Another process: its own connection corrupts the index, adds a document and rebuilds.
  {
    auto other = Store::open(dir.str());
    for (auto& f : fs::directory_iterator(lexical_index_path(dir.str()))) {
      std::ofstream out(f.path(), std::ios::binary | std::ios::trunc);
      out << "garbage";
    }
    const int64_t before = other->generation();
    testing::put_text_document(*other, "d3", "/c/c.txt", {"Layer normalisation rescales the softmax inputs."});
    auto st = update_lexical_index(*other, before, {}, {});
    EXPECT_EQ(st.action, "built");
  }
  auto hits = searcher.search("softmax", opt);
  EXPECT_EQ(hits.size(), 2u);
  EXPECT_EQ(searcher.lexical_backend(), "xapian");
}

TEST_F(XapianStore, ExpressionsOutsideWhatItTakesGoToFts5) {
  update_lexical_index(*store, store->generation(), {}, {});
  if (!index) index = XapianLexical::open(dir.str());
  LexicalOptions lo;
  lo.index = index.get();
  std::string served;
  // NEAR and phrases that need positions (longer, or with a stop word) go to FTS5, which finds them.
  EXPECT_EQ(bm25_match(*store, "NEAR(\"softmax\" \"turns\", 2)", lo, &served).size(), 1u);
  EXPECT_EQ(served, "fts5");
  EXPECT_EQ(bm25_match(*store, "\"the square root\"", lo, &served).size(), 1u);
  EXPECT_EQ(served, "fts5");
  EXPECT_EQ(bm25_match(*store, "\"square root\" OR \"the square\"", lo, &served).size(), 1u);
  EXPECT_EQ(served, "fts5");
  // AND, OR and two-word phrases of content words: Xapian, phrase order respected.
  EXPECT_EQ(bm25_match(*store, "\"scores\" AND \"softmax\"", lo, &served).size(), 1u);
  EXPECT_EQ(served, "xapian");
  EXPECT_EQ(bm25_match(*store, "\"square root\"", lo, &served).size(), 1u);
  EXPECT_EQ(served, "xapian");
  EXPECT_TRUE(bm25_match(*store, "\"root square\"", lo, &served).empty());
  EXPECT_EQ(served, "xapian");
  // NOT and barewords: Xapian, with the rows FTS5 gives.
  for (const char* q : {"\"scores\" NOT \"softmax\"", "scores NOT (softmax OR gardening)", "text NOT scores"}) {
    std::set<std::string> x, f;
    for (auto& h : bm25_match(*store, q, lo, &served)) x.insert(h.chunk_id);
    EXPECT_EQ(served, "xapian") << q;
    for (auto& h : bm25_match(*store, q, LexicalOptions{})) f.insert(h.chunk_id);
    EXPECT_EQ(x, f) << q;
    EXPECT_FALSE(x.empty()) << q;
  }
  // Other column weights than the index was built with.
  lo.heading_weight = 5;
  bm25_match(*store, "\"softmax\"", lo, &served);
  EXPECT_EQ(served, "fts5");
}

}  // namespace
}  // namespace mmkg
