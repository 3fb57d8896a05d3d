#include "agents/graph_signals.h"

#include <gtest/gtest.h>

#include "support/memory_graph_store.h"

namespace mmkg {
namespace {

graph::Entity signals_entity(const std::string& id, const std::string& name) {
  return graph::testing::named_entity(id, name);
}

const graph::EmbedNames& no_vectors = graph::testing::kNoNameVectors;

SearchHit hit(const std::string& chunk, const std::string& doc) {
  SearchHit h;
  h.chunk_id = chunk;
  h.doc_id = doc;
  return h;
}

// A pool of four chunks: c1 names the asked entity (quantile regression), c2 a relation of it
// (rq function), c3 is of another document and names only what c1 also names (the package
// quantreg), c4 names nothing.
struct SignalsFixture {
  graph::testing::MemoryGraphStore store;
  std::vector<SearchHit> pool = {hit("c1", "d1"), hit("c2", "d1"), hit("c3", "d2"), hit("c4", "d2")};
  SignalsFixture() {
    graph::GraphDelta d;
    d.entities = {signals_entity("qr", "quantile regression"), signals_entity("rq", "rq function"),
                  signals_entity("pkg", "quantreg")};
    d.mentions = {{"qr", "c1", "d1", "quantile regression", 1},
                  {"pkg", "c1", "d1", "quantreg", 1},
                  {"rq", "c2", "d1", "rq function", 1},
                  {"pkg", "c3", "d2", "quantreg", 1}};
    d.relations = {graph::Relation{"qr", "rq", "uses", 2, {{"c2", "d1", "rq fits quantile regression."}}, ""}};
    store.upsert(d);
  }
  PoolSignals ranked() const {
    PoolSignals sig;
    sig.bm25_rank = {1, 2, 0, 0};  // c1 heads the lists, c3 and c4 are in neither's first three
    sig.dense_rank = {2, 1, 0, 0};
    return sig;
  }
};

TEST(GraphSignals, TheChunkNamingTheQuestionsEntityLinksAndWalksHighest) {
  SignalsFixture f;
  GraphContext g(f.store, no_vectors);
  PoolSignals sig = f.ranked();
  graph_pool_signals(g, "what is quantile regression?", 1, f.pool, sig);
  ASSERT_EQ(sig.graph_link.size(), 4u);
  EXPECT_DOUBLE_EQ(sig.graph_link[0], 1.0);  // the one linked entity, all of its weight
  EXPECT_DOUBLE_EQ(sig.graph_link[1], 0.0);
  EXPECT_DOUBLE_EQ(sig.graph_link[3], 0.0);
  EXPECT_DOUBLE_EQ(sig.graph_ppr[0], 1.0);  // the walk's highest in the pool
  EXPECT_GT(sig.graph_ppr[1], 0.0);         // one relation away
  EXPECT_LT(sig.graph_ppr[1], 1.0);
  EXPECT_DOUBLE_EQ(sig.graph_ppr[3], 0.0);  // no entity: the walk never gets there
  for (double b : sig.graph_bridge) EXPECT_DOUBLE_EQ(b, 0.0);  // one part: no bridge hop
}

TEST(GraphSignals, AQuestionOfTwoPartsBridgesToTheOtherDocument) {
  SignalsFixture f;
  GraphContext g(f.store, no_vectors);
  PoolSignals sig = f.ranked();
  graph_pool_signals(g, "Which package fits quantile regression, and what does its vignette say about rq?", 2, f.pool, sig);
  ASSERT_EQ(sig.graph_bridge.size(), 4u);
  EXPECT_DOUBLE_EQ(sig.graph_bridge[2], 1.0);  // shares quantreg with c1, in d2
  EXPECT_DOUBLE_EQ(sig.graph_bridge[0], 0.0);  // a first hit itself
  EXPECT_DOUBLE_EQ(sig.graph_bridge[3], 0.0);  // shares nothing
}

TEST(GraphSignals, AnEmptyGraphOrUnlinkedQuestionGivesZeros) {
  graph::testing::MemoryGraphStore empty;
  GraphContext g0(empty, no_vectors);
  SignalsFixture f;
  PoolSignals sig = f.ranked();
  graph_pool_signals(g0, "what is quantile regression?", 1, f.pool, sig);
  ASSERT_EQ(sig.graph_ppr.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sig.graph_link[i] + sig.graph_ppr[i] + sig.graph_bridge[i], 0.0);
  GraphContext g(f.store, no_vectors);
  sig = f.ranked();
  graph_pool_signals(g, "how tall is the tower?", 1, f.pool, sig);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sig.graph_link[i] + sig.graph_ppr[i], 0.0);
}

}  // namespace
}  // namespace mmkg
