#include "index/searcher.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/error.h"
#include "index/fusion.h"
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

void expect_same_hits(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk_id, b[i].chunk_id) << what << " rank " << i;
    EXPECT_NEAR(a[i].score, b[i].score, 1e-4) << what << " rank " << i;
  }
}

TEST(SearchMany, Bm25EqualsOneByOne) {
  testing::TempDir dir;
  auto store = make_store(dir.str(), nullptr);
  LazyEmbedder none(EmbedderSpec::none());
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
      expect_same_hits(many[i], one, "parallel " + std::to_string(parallel) + " query " + std::to_string(i));
    }
    EXPECT_EQ(many[5].size(), 12u);  // 14 chunks name attention: its own k (12), not o.k (5)
  }
}

// Each thread of search_many uses its own connection and lexical handle; a fresh Searcher (as
// `mmkg serve` makes after every write) sizes them before its threads start. Growing them from
// the threads raced: an ask failed with std::bad_alloc. Many fresh searchers on many threads.
TEST(SearchMany, FreshSearchersOnManyThreadsAgreeWithOneByOne) {
  testing::TempDir dir;
  auto store = make_store(dir.str(), nullptr);
  LazyEmbedder none(EmbedderSpec::none());
  SearchOptions o;
  o.mode = SearchMode::Bm25;
  o.k = 5;
  std::vector<SearchQuery> qs;
  for (int r = 0; r < 3; ++r) qs.insert(qs.end(), kQueries.begin(), kQueries.end());
  Searcher ref(*store, none);
  const auto want = ref.search_many(qs, o, 1);
  for (int round = 0; round < 150; ++round) {
    Searcher s(*store, none);
    const auto got = s.search_many(qs, o, 8);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < qs.size(); ++i) expect_same_hits(got[i], want[i], "round " + std::to_string(round));
  }
}

// Each query's hits from search_many on 4 threads and on 1 equal search_match's, one at a time.
void expect_batch_equals_one_by_one(Searcher& s, const SearchOptions& o, const std::string& what) {
  std::vector<SearchQuery> qs(kQueries.begin(), kQueries.end() - 1);
  auto par = s.search_many(qs, o, 4);
  auto seq = s.search_many(qs, o, 1);
  for (size_t i = 0; i < qs.size(); ++i) {
    auto one = s.search_match(qs[i].match.empty() ? fts_query(qs[i].text) : qs[i].match, qs[i].text, o);
    ASSERT_FALSE(one.empty());
    expect_same_hits(par[i], one, what + " parallel, query " + std::to_string(i));
    expect_same_hits(seq[i], one, what + " sequential, query " + std::to_string(i));
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
    expect_batch_equals_one_by_one(s, o, search_mode_name(mode));
  }
}

TEST(SearchMany, FittedFusionOnManyThreadsEqualsOneByOne) {
  // The fitted ranker's pools (features, the sentence-vector cache shared by the threads, the
  // pool capture) give every query the same list whatever the threads.
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir dir;
  auto emb = make_embedder("native");
  auto store = make_store(dir.str(), emb.get());
  LazyEmbedder native(emb.get());
  Searcher s(*store, native, {.fusion = Fusion::Fitted});
  SearchOptions o;
  o.k = 6;
  o.candidates = 20;
  int captured = 0;
  o.capture = [&](const std::vector<SearchHit>& pool, const std::vector<FeatureRow>& rows) {
    captured += pool.size() == rows.size() && !pool.empty();
  };
  expect_batch_equals_one_by_one(s, o, "fitted");
  // Each one-by-one search's pool; the batches' pools are not captured.
  EXPECT_EQ(captured, static_cast<int>(kQueries.size()) - 1);
}

TEST(SearchMany, EmptyBatchAndNoEmbedderFallBackToBm25) {
  testing::TempDir dir;
  auto store = make_store(dir.str(), nullptr);
  LazyEmbedder none(EmbedderSpec::none());
  Searcher s(*store, none);
  SearchOptions o;  // hybrid without an embedder: BM25, as search() does
  o.k = 4;
  EXPECT_TRUE(s.search_many({}, o).empty());
  auto many = s.search_many(kQueries, o, 2);
  expect_same_hits(many[1], s.search(kQueries[1].text, o), "hybrid without embedder");
  o.mode = SearchMode::Dense;
  EXPECT_THROW(s.search_many(kQueries, o, 2), UsageError);
}

// ---- fusion (index/fusion.h), on lists of made-up scores

// A list of keys with the given scores, best first.
FusionList list_of(const std::vector<std::pair<size_t, double>>& hits) { return hits; }

std::vector<size_t> fused(const std::vector<FusionList>& lists, size_t n, Fusion f = Fusion::Zscore) {
  std::vector<double> scores;
  return fuse_lists(lists, n, f, FusionParams{}, scores);
}

size_t place(const std::vector<size_t>& order, size_t key) {
  return static_cast<size_t>(std::find(order.begin(), order.end(), key) - order.begin());
}

TEST(Fusion, BestBm25HitStaysInTheTopThreeWhenTheOtherListsAgreeOnOthers) {
  // BM25's best (key 0) is in no other list; dense and proximity agree on keys 1-5.
  FusionList bm25 = list_of({{0, 20}, {1, 12}, {2, 11}, {3, 10}, {4, 9.5}, {5, 9}, {6, 4}, {7, 3}});
  FusionList dense = list_of({{1, 0.9}, {2, 0.89}, {3, 0.88}, {4, 0.87}, {5, 0.86}, {8, 0.3}, {9, 0.29}});
  FusionList near = list_of({{1, 1.0}, {2, 0.95}, {3, 0.9}, {4, 0.9}, {5, 0.85}, {0, 0.1}, {6, 0.1}});
  auto order = fused({bm25, dense, near}, 10);
  EXPECT_LT(place(order, 0), 3u);
  // Without the floor the agreement of the other two would push it down.
  std::vector<double> scores;
  FusionParams no_floor;
  no_floor.floor_rank = 0;
  EXPECT_GE(place(fuse_lists({bm25, dense, near}, 10, Fusion::Zscore, no_floor, scores), 0), 3u);
}

TEST(Fusion, BestHitsOfBothListsStayInTheTopThree) {
  FusionList bm25 = list_of({{0, 30}, {1, 12}, {2, 11}, {3, 10}, {4, 9}});
  FusionList dense = list_of({{9, 0.95}, {1, 0.6}, {2, 0.59}, {3, 0.58}, {4, 0.57}});
  FusionList near = list_of({{1, 1.0}, {2, 1.0}, {3, 1.0}, {4, 1.0}, {0, 0}, {9, 0}});
  auto order = fused({bm25, dense, near}, 10);
  EXPECT_LT(place(order, 0), 3u);
  EXPECT_LT(place(order, 9), 3u);
}

TEST(Fusion, AHitInBothListsBeatsOneInOnlyOne) {
  // Keys 0 and 1 have the same BM25 score; only key 1 is also in the dense list.
  FusionList bm25 = list_of({{0, 10}, {1, 10}, {2, 5}, {3, 4}, {4, 3}});
  FusionList dense = list_of({{1, 0.7}, {5, 0.5}, {6, 0.45}, {7, 0.4}});
  for (Fusion f : {Fusion::Zscore, Fusion::Relative, Fusion::Rrf}) {
    auto order = fused({bm25, dense}, 8, f);
    EXPECT_LT(place(order, 1), place(order, 0)) << fusion_name(f);
  }
}

TEST(Fusion, AFlatListDoesNotReorderAPeakedOne) {
  // Dense cannot tell its candidates apart (equal cosines): BM25's order stands.
  FusionList bm25 = list_of({{0, 25}, {1, 14}, {2, 9}, {3, 5}});
  FusionList dense = list_of({{3, 0.5}, {2, 0.5}, {1, 0.5}, {0, 0.5}});
  EXPECT_EQ(fused({bm25, dense}, 4), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(Fusion, APeakedListOutweighsAFlatOneWhereTheyDisagree) {
  // BM25's scores are nearly flat, dense's top hit stands far out: dense's top leads.
  FusionList bm25 = list_of({{0, 10.2}, {1, 10.1}, {2, 10.0}, {3, 9.9}, {4, 9.8}, {5, 9.7}});
  FusionList dense = list_of({{4, 0.9}, {5, 0.3}, {3, 0.29}, {2, 0.28}, {1, 0.27}, {0, 0.26}});
  auto order = fused({bm25, dense}, 6);
  EXPECT_EQ(order.front(), 4u);
}

TEST(Fusion, KeysInNoListAreLeftOutAndNamesRoundTrip) {
  auto order = fused({list_of({{2, 1}, {0, 0.5}})}, 5);
  EXPECT_EQ(order, (std::vector<size_t>{2, 0}));
  for (Fusion f : {Fusion::Zscore, Fusion::Relative, Fusion::Rrf}) EXPECT_EQ(parse_fusion(fusion_name(f)), f);
  EXPECT_THROW(parse_fusion("max"), UsageError);
}

TEST(Fusion, EveryFusionServesHybridSearchAndKeepsBm25sBestHitAtTheHead) {
  MMKG_REQUIRE_MINILM(model);
  testing::TempDir dir;
  auto emb = make_embedder("native");
  auto store = Store::open(dir.str());
  DocumentRecord doc;
  doc.id = "d";
  doc.path = "/c/stats.txt";
  doc.name = "stats.txt";
  doc.format = "text";
  const std::vector<std::string> texts = {
      "Kaplan-Meier curves estimate survival over time for censored data.",
      "The Cox model relates covariates to the hazard rate of an event.",
      "Sandwich estimators give robust standard errors under heteroskedasticity.",
      "Structural change tests look for breaks in regression coefficients over time.",
      "Mosaic plots display contingency tables with cells shaded by their residuals.",
      "Bandwidth selection for kernel HAC estimators follows Andrews.",
  };
  std::vector<Chunk> cs;
  for (size_t i = 0; i < texts.size(); ++i) {
    Chunk c;
    c.id = "d-" + std::to_string(i);
    c.seq = static_cast<int>(i);
    c.text = texts[i];
    c.vector = emb->embed({c.text}, EmbedKind::Document);
    cs.push_back(c);
  }
  store->put_document(doc, "", cs, std::nullopt, emb->id());
  LazyEmbedder native(emb.get());
  Searcher s(*store, native);  // default fusion: relative
  for (const char* q : {"robust standard errors", "hazard of an event", "shaded residuals of tables"}) {
    SearchOptions b;
    b.mode = SearchMode::Bm25;
    const std::string best = s.search(q, b).at(0).chunk_id;
    for (std::optional<Fusion> f : {std::optional<Fusion>(), std::optional<Fusion>(Fusion::Relative),
                                    std::optional<Fusion>(Fusion::Rrf)}) {
      SearchOptions o;
      o.k = 6;
      o.fusion = f;
      auto hits = s.search(q, o);
      ASSERT_EQ(hits.size(), texts.size()) << q;
      bool head = false;
      for (size_t i = 0; i < 3; ++i) head = head || hits[i].chunk_id == best;
      EXPECT_TRUE(head) << q << " " << (f ? fusion_name(*f) : "default");
    }
  }
}

}  // namespace
}  // namespace mmkg
