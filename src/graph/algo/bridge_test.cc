// rank_chunks_by_bridge: the second hop of a multi-hop question, through the entities the
// retrievers' best chunks name, to chunks of other documents.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/algo/graph_algo.h"
#include "support/snapshot_fixtures.h"

namespace mmkg::graph {
namespace {

Mention at(const std::string& e, const std::string& chunk, const std::string& doc) {
  return testing::mention_at(e, chunk, doc);
}

// Seed a1 (document A) names the rare "coeftest" and the everywhere "model". b1 (document B)
// names coeftest too, b2 only "model", a2 (document A, like the seed) names coeftest.
GraphSnapshot two_documents() {
  GraphSnapshot g;
  g.mentions = {at("coeftest", "a1", "A"), at("model", "a1", "A"), at("coeftest", "b1", "B"),
                at("model", "b1", "B"),    at("model", "b2", "B"),  at("coeftest", "a2", "A"),
                at("model", "a2", "A"),    at("other", "c1", "C"),  at("model", "c1", "C")};
  return g;
}

using testing::ranked_ids;

TEST(Bridge, ARareSharedEntityLeadsToTheOtherDocumentsChunk) {
  auto r = rank_chunks_by_bridge(two_documents(), {"a1"});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].first, "b1");
  EXPECT_GT(r[0].second, 0);
}

TEST(Bridge, TheSeedsOwnDocumentAndTheSeedsAreNotAHop) {
  auto r = ranked_ids(rank_chunks_by_bridge(two_documents(), {"a1"}));
  EXPECT_EQ(std::find(r.begin(), r.end(), "a2"), r.end());  // same document as the seed
  EXPECT_EQ(std::find(r.begin(), r.end(), "a1"), r.end());  // the seed itself
}

TEST(Bridge, AnEntityNamedEverywhereAddsNothing) {
  // "model" is in every chunk with mentions: log(C / df) = 0, so b2 and c1 (only "model") are out.
  auto r = ranked_ids(rank_chunks_by_bridge(two_documents(), {"a1"}));
  EXPECT_EQ(r, std::vector<std::string>{"b1"});
}

TEST(Bridge, SeedsBeyondTheLimitDoNotCountAndNoSeedsGiveNothing) {
  BridgeOptions one;
  one.seeds = 1;
  // c1 is second: with one seed only a1 bridges, and c1's "other" is named nowhere else.
  EXPECT_EQ(ranked_ids(rank_chunks_by_bridge(two_documents(), {"a1", "c1"}, one)), std::vector<std::string>{"b1"});
  // By default every seed given counts: a1, second here, still leads to b1.
  EXPECT_EQ(ranked_ids(rank_chunks_by_bridge(two_documents(), {"c1", "a1"})), std::vector<std::string>{"b1"});
  EXPECT_TRUE(rank_chunks_by_bridge(two_documents(), {}).empty());
  EXPECT_TRUE(rank_chunks_by_bridge(two_documents(), {"unknown"}).empty());
}

}  // namespace
}  // namespace mmkg::graph
