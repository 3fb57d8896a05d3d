#include "agents/graph_retriever.h"

#include <gtest/gtest.h>

#include <optional>

#include "support/memory_graph_store.h"

namespace mmkg {
namespace {

graph::Entity entity(const std::string& id, const std::string& name) {
  graph::Entity e;
  e.id = id;
  e.name = name;
  e.aliases = {name};
  e.score = 1;
  return e;
}

graph::Relation relation(const std::string& a, const std::string& b, const std::string& type, double w) {
  return graph::Relation{a, b, type, w, {{"c0", "d1", "A sentence with both."}}, ""};
}

// Issue 13: facts show typed relations first, then co-occurrences by association (Dice over the
// entities' chunk counts): a partner met mostly together outranks a hub met everywhere, even
// when the hub's pair has more sentences.
TEST(GraphRetrieve, TypedFactsFirstThenCooccurrenceByAssociation) {
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("e1", "sparse attention"), entity("e2", "attention"), entity("e3", "block size"),
                entity("e4", "attention mechanism")};
  auto mention = [&](const std::string& id, int chunk) {
    d.mentions.push_back({id, "c" + std::to_string(chunk), "d1", "x", 1});
  };
  for (int c = 0; c < 2; ++c) mention("e1", c), mention("e3", c);
  for (int c = 0; c < 10; ++c) mention("e2", c);
  mention("e4", 0);
  d.relations = {relation("e1", "e2", "co_occurs", 3), relation("e1", "e3", "co_occurs", 2),
                 relation("e1", "e4", "is_a", 1)};
  store.upsert(d);
  graph::EmbedNames none = [](const std::vector<std::string>&) { return std::vector<std::vector<float>>{}; };
  GraphContext g(store, none);
  GraphRetrieval r = graph_retrieve(g, "what is sparse attention?", GraphRetrieveOptions{});
  ASSERT_GE(r.facts.size(), 3u);
  EXPECT_EQ(r.facts[0].relation, "is_a");
  EXPECT_EQ(r.facts[1].text, "sparse attention appears with block size");  // Dice 1.0
  EXPECT_EQ(r.facts[2].text, "sparse attention appears with attention");  // Dice 0.5, weight 3
  EXPECT_EQ(r.facts[2].weight, 3);  // the weight shown stays the sentence count
}

// Issue 13: a question of two parts gets the bridge hop (a list filled from the retrievers' first
// hits: the chunk of another document that shares their rare entity); a one-part question does
// not, so that its retrievers' evidence keeps every place.
TEST(GraphRetrieve, TwoPartQuestionsGetTheBridgeHopOnePartQuestionsDoNot) {
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("e1", "coeftest"), entity("e2", "regression")};
  d.mentions = {{"e1", "a1", "A", "coeftest", 1}, {"e2", "a1", "A", "regression", 1},
                {"e1", "b1", "B", "coeftest", 1}, {"e2", "b2", "B", "regression", 1},
                {"e2", "b1", "B", "regression", 1}};
  store.upsert(d);
  graph::EmbedNames none = [](const std::vector<std::string>&) { return std::vector<std::vector<float>>{}; };
  GraphContext g(store, none);
  auto hop_of = [&](const std::string& q) -> std::optional<RankedList> {
    for (auto& l : graph_lists(graph_retrieve(g, q, GraphRetrieveOptions{})))
      if (l.from_hits) return l;
    return std::nullopt;
  };
  std::optional<RankedList> hop =
      hop_of("The paper runs its tests through a function from another package. Which function is that, and what "
             "does that package's vignette say about it?");
  ASSERT_TRUE(hop.has_value());
  EXPECT_EQ(hop->from_hits({"a1"}), std::vector<std::string>{"b1"});
  EXPECT_FALSE(hop_of("Which function runs the coefficient tests?").has_value());
}

}  // namespace
}  // namespace mmkg
