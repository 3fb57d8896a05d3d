#include "index/searcher.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "support/embed_fixtures.h"
#include "embed/embedder.h"
#include "store/store.h"

namespace mmkg {
namespace {

// A store of 40 chunks on a few topics, embedded with the native model when `embed` is set.
std::unique_ptr<Store> make_store(const std::string& dir, Embedder* emb) {
  auto store = Store::open(dir);
  const std::vector<std::string> topics = {
      "attention weighs each token of a sequence against the others",
      "the softmax turns scores into a probability distribution",
      "recurrent networks read tokens one after another",
      "gradient descent updates the weights along the negative gradient",
      "positional encodings give the model the order of the tokens",
  };
  for (int d = 0; d < 8; ++d) {
    DocumentRecord doc;
    doc.id = "d" + std::to_string(d);
    doc.path = "/c/doc" + std::to_string(d) + ".txt";
    doc.name = "doc" + std::to_string(d) + ".txt";
    doc.format = "text";
    std::vector<Chunk> cs;
    for (int i = 0; i < 5; ++i) {
      Chunk c;
      c.id = doc.id + "-" + std::to_string(i);
      c.seq = i;
      c.text = "Section " + std::to_string(i) + " of document " + std::to_string(d) + ": " +
               topics[static_cast<size_t>((d + i) % 5)] + ". It also mentions " + topics[static_cast<size_t>(i % 5)] +
               " in passing, example " + std::to_string(d * 5 + i) + ".";
      if (emb) c.vector = emb->embed({c.text}, EmbedKind::Document);
      cs.push_back(c);
    }
    store->put_document(doc, "", cs, std::nullopt, emb ? emb->id() : "");
  }
  return store;
}

const std::vector<SearchQuery> kQueries = {
    {.text = "how does attention weigh tokens?"},
    {.text = "softmax probability"},
    {.text = "recurrent networks"},
    {.text = "gradient descent weights"},
    {.text = "order of tokens", .match = "\"order\" OR \"tokens\""},
    {.text = "attention", .lexical_only = true, .k = 12},
};

void expect_same(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk_id, b[i].chunk_id) << what << " rank " << i;
    EXPECT_NEAR(a[i].score, b[i].score, 1e-4) << what << " rank " << i;
  }
}

TEST(SearchMany, Bm25EqualsOneByOne) {
  testing::TempDir dir;
  auto store = make_store(dir.str(), nullptr);
  LazyEmbedder none("none");
  Searcher s(*store, none);
  SearchOptions o;
  o.mode = SearchMode::Bm25;
  o.k = 5;
  for (int parallel : {0, 1, 3}) {
    auto many = s.search_many(kQueries, o, parallel);
    ASSERT_EQ(many.size(), kQueries.size());
    for (size_t i = 0; i < kQueries.size(); ++i) {
      LexicalOptions lo;
      lo.k = kQueries[i].k ? kQueries[i].k : o.k;
      auto one = bm25_match(*store, kQueries[i].match.empty() ? fts_query(kQueries[i].text) : kQueries[i].match, lo);
      expect_same(many[i], one, "parallel " + std::to_string(parallel) + " query " + std::to_string(i));
    }
    EXPECT_EQ(many[5].size(), 12u);  // 14 chunks name attention: its own k (12), not o.k (5)
  }
}

TEST(SearchMany, HybridAndDenseEqualOneByOne) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir dir;
  auto emb = make_embedder("native");
  auto store = make_store(dir.str(), emb.get());
  LazyEmbedder native(emb.get());
  Searcher s(*store, native);
  for (SearchMode mode : {SearchMode::Hybrid, SearchMode::Dense}) {
    SearchOptions o;
    o.mode = mode;
    o.k = 6;
    o.candidates = 20;
    std::vector<SearchQuery> qs(kQueries.begin(), kQueries.end() - 1);
    auto par = s.search_many(qs, o, 4);
    auto seq = s.search_many(qs, o, 1);
    for (size_t i = 0; i < qs.size(); ++i) {
      auto one = s.search_match(qs[i].match.empty() ? fts_query(qs[i].text) : qs[i].match, qs[i].text, o);
      ASSERT_FALSE(one.empty());
      expect_same(par[i], one, std::string(search_mode_name(mode)) + " parallel, query " + std::to_string(i));
      expect_same(seq[i], one, std::string(search_mode_name(mode)) + " sequential, query " + std::to_string(i));
    }
  }
}

TEST(SearchMany, EmptyBatchAndNoEmbedderFallBackToBm25) {
  testing::TempDir dir;
  auto store = make_store(dir.str(), nullptr);
  LazyEmbedder none("none");
  Searcher s(*store, none);
  SearchOptions o;  // hybrid without an embedder: BM25, as search() does
  o.k = 4;
  EXPECT_TRUE(s.search_many({}, o).empty());
  auto many = s.search_many(kQueries, o, 2);
  expect_same(many[1], s.search(kQueries[1].text, o), "hybrid without embedder");
  o.mode = SearchMode::Dense;
  EXPECT_THROW(s.search_many(kQueries, o, 2), UsageError);
}

}  // namespace
}  // namespace mmkg
