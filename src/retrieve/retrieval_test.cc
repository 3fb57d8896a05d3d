// rank_candidates with the graph's lists (RetrieveOptions::graph_slots): the graph takes a slot
// only for a chunk that heads one of its lists and that the sub-queries found just below their
// cut; chunks only the graph found, or that it ranks lower, never push the retrievers' out.
#include "retrieve/retrieval.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "embed/embedder.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "store/store.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

struct GraphSlots : ::testing::Test {
  void SetUp() override {
    store = Store::open(dir.str());
    testing::put_text_document(*store, "d", "/c/notes.txt",
                               {"alpha alpha alpha alpha beta", "alpha alpha alpha gamma", "alpha alpha delta words",
                                "alpha epsilon and more words here", "nothing of the kind in this chunk",
                                "another chunk without the word"});
    searcher = std::make_unique<Searcher>(*store, none);
    for (const auto& h : bm25_search(*store, "alpha", {.k = 10})) bm25.push_back(h.chunk_id);
    ASSERT_EQ(bm25.size(), 4u);
    opt.mode = SearchMode::Bm25;
    opt.k_per_query = 2;
    opt.max_chunks = 2;
    opt.graph_slots = 1;
  }
  std::vector<std::string> ranked(const std::vector<RankedList>& extra) {
    QueryPlan plan;
    plan.subqueries = {"alpha"};
    std::vector<std::string> ids;
    for (auto& c : rank_candidates(*store, *searcher, plan, opt, extra)) ids.push_back(c.hit.chunk_id);
    return ids;
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
  LazyEmbedder none{EmbedderSpec::none()};
  std::unique_ptr<Searcher> searcher;
  std::vector<std::string> bm25;  // BM25's order for "alpha"
  RetrieveOptions opt;
};

TEST_F(GraphSlots, WithoutTheGraphTheFirstKHitsLead) {
  auto ids = ranked({});
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[1]);
}

TEST_F(GraphSlots, AChunkHeadingAGraphListAndFoundJustBelowTheCutTakesASlot) {
  auto ids = ranked({RankedList{"graph: test", {bm25[2], bm25[3]}, 0.5}});
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[2]);  // confirmed by the graph, in the slot
  EXPECT_EQ(ids[2], bm25[1]);  // the retriever's own second, right after
}

TEST_F(GraphSlots, ChunksOnlyTheGraphFoundOrRankedLowerTakeNoSlot) {
  // "d-4" holds no "alpha": only the graph found it. bm25[2] is second in the graph's list.
  auto ids = ranked({RankedList{"graph: test", {"d-4", bm25[2]}, 0.5}});
  ASSERT_GE(ids.size(), 4u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[1]);
  EXPECT_EQ(ids.back(), "d-4");  // kept as a candidate, after everything the sub-queries found
}

// A list that does not confirm (RankedList::confirms: the graph's lists for a one-part question)
// only adds candidates: its head, although a sub-query found it just below the cut, takes no slot
// and the retrievers' own first k keep their places.
TEST_F(GraphSlots, AListThatDoesNotConfirmTakesNoSlot) {
  RankedList l{"graph: test", {bm25[2], bm25[3]}, 0.5};
  l.confirms = false;
  auto ids = ranked({l});
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[1]);
  EXPECT_EQ(ids[2], bm25[2]);  // still a candidate, after them
}

// The graph's bridge hop (RankedList::from_hits) starts from the retrievers' first hits: it is
// called with the sub-queries' first k hits in fused order, and its head, when a sub-query found
// it just below the cut, takes the slot like any graph list's head.
TEST_F(GraphSlots, AListFilledFromTheFirstHitsSeesThemInOrderAndItsHeadTakesASlot) {
  std::vector<std::string> seen;
  RankedList hop{"graph: hop", {}, 0.3};
  hop.from_hits = [&](const std::vector<std::string>& first) {
    seen = first;
    return std::vector<std::string>{bm25[3]};
  };
  auto ids = ranked({hop});
  EXPECT_EQ(seen, (std::vector<std::string>{bm25[0], bm25[1]}));
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[3]);  // the hop's head, found by the sub-query at rank 4 (k = 2)
  EXPECT_EQ(ids[2], bm25[1]);
}

TEST_F(GraphSlots, AHopToAChunkNoRetrieverFoundTakesNoSlot) {
  RankedList hop{"graph: hop", {}, 0.3};
  hop.from_hits = [](const std::vector<std::string>&) { return std::vector<std::string>{"d-4"}; };
  auto ids = ranked({hop});
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], bm25[1]);
}

// A vouched list (the graph's cross references between two found documents) needs no sub-query
// hit: its head takes the slot although no retriever found it; its second chunk does not.
TEST_F(GraphSlots, AVouchedListsHeadTakesASlotWithoutASubQueryHit) {
  RankedList refs{"graph: refs", {"d-4", "d-5"}, 0.3};
  refs.vouched = true;
  auto ids = ranked({refs});
  ASSERT_GE(ids.size(), 4u);
  EXPECT_EQ(ids[0], bm25[0]);
  EXPECT_EQ(ids[1], "d-4");     // the slot
  EXPECT_EQ(ids[2], bm25[1]);   // the retriever's second right after
  EXPECT_EQ(ids.back(), "d-5");  // graph-only and not the head: after everything found
}

// The slot costs a repeat of the document the context has most of, not the one passage of
// another document ranked just below it.
TEST_F(GraphSlots, TheSlotTakesThePlaceOfTheMostRepeatedDocumentsWeakestHit) {
  testing::TempDir d2;
  auto s = Store::open(d2.str());
  testing::put_text_document(*s, "a", "/c/a.txt",
                             {"alpha alpha alpha alpha alpha", "alpha alpha alpha alpha beta",
                              "alpha alpha alpha beta gamma", "alpha beta gamma delta epsilon"});
  testing::put_text_document(*s, "b", "/c/b.txt", {"alpha alpha beta gamma delta"});
  Searcher se(*s, none);
  std::vector<std::string> order;
  for (const auto& h : bm25_search(*s, "alpha", {.k = 10})) order.push_back(h.chunk_id);
  ASSERT_EQ(order, (std::vector<std::string>{"a-0", "a-1", "a-2", "b-0", "a-3"}));
  RetrieveOptions o = opt;
  o.k_per_query = 4;
  o.max_chunks = 4;
  o.graph_slots = 1;
  QueryPlan plan;
  plan.subqueries = {"alpha"};
  std::vector<std::string> ids;
  for (auto& c : rank_candidates(*s, se, plan, o, {RankedList{"graph: test", {"a-3"}, 0.5}})) ids.push_back(c.hit.chunk_id);
  // a-3 (fifth, first in the graph's list) takes a slot; a-2 makes room, not b's one passage.
  EXPECT_EQ(ids, (std::vector<std::string>{"a-0", "a-1", "b-0", "a-3", "a-2"}));
}

// A list marked question_hits is filled from the question's own first hits (sub-query 0), not
// from a key phrase's: here the phrase "epsilon" finds d-3 first, below the question's cut.
TEST_F(GraphSlots, AQuestionHitsListSeesOnlyTheQuestionsOwnHits) {
  std::vector<std::string> own, all;
  RankedList a{"graph: a", {}, 0.3}, b{"graph: b", {}, 0.3};
  a.question_hits = true;
  a.from_hits = [&](const std::vector<std::string>& first) { own = first; return std::vector<std::string>{}; };
  b.from_hits = [&](const std::vector<std::string>& first) { all = first; return std::vector<std::string>{}; };
  QueryPlan plan;
  plan.subqueries = {"alpha", "epsilon"};
  rank_candidates(*store, *searcher, plan, opt, {a, b});
  EXPECT_EQ(own, (std::vector<std::string>{bm25[0], bm25[1]}));
  EXPECT_NE(std::find(all.begin(), all.end(), "d-3"), all.end());
  EXPECT_EQ(std::find(own.begin(), own.end(), "d-3"), own.end());
}

// A retriever list (RankedList::retriever: the graph's passages) is fused like a sub-query: a
// heavy one brings a chunk no sub-query found into the first places, no graph slot needed.
TEST_F(GraphSlots, ARetrieverListIsFusedLikeASubquery) {
  opt.graph_slots = 0;
  RankedList l{"graph: passages", {"d-4", bm25[3]}, 10.0};
  l.retriever = true;
  auto ids = ranked({l});
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], "d-4");     // only the retriever list found it: weight 10 at rank 1
  EXPECT_EQ(ids[1], bm25[3]);   // the list's second, which BM25 ranked below the cut
  // A light one only reorders what both found, within the cut.
  RankedList light{"graph: passages", {"d-4"}, 0.01};
  light.retriever = true;
  auto ids2 = ranked({light});
  EXPECT_EQ(ids2[0], bm25[0]);
  EXPECT_EQ(ids2[1], bm25[1]);
}

TEST_F(GraphSlots, FuseWithListInterleavesByWeightedReciprocalRank) {
  std::vector<SearchHit> hits = bm25_search(*store, "alpha", {.k = 4});
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_EQ(fuse_with_list(*store, hits, RankedList{"x", {}, 1.0}, 2).size(), 2u) << "no list: the first k";
  RankedList l{"graph", {bm25[3], "d-5", "no such chunk"}, 10.0};
  auto fused = fuse_with_list(*store, hits, l, 3);
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused[0].chunk_id, bm25[3]) << "both found it; the list's weight lifts it";
  EXPECT_EQ(fused[1].chunk_id, "d-5") << "only the list found it; read from the store";
  EXPECT_EQ(fused[2].chunk_id, bm25[0]);
  EXPECT_FALSE(fused[1].text.empty());
  EXPECT_GT(fused[0].score, fused[1].score);
}

}  // namespace
}  // namespace mmkg
