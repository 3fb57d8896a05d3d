#include "agents/graph_retriever.h"

#include <gtest/gtest.h>

#include <optional>

#include "support/memory_graph_store.h"
#include "text/lexicon.h"

namespace mmkg {
namespace {

graph::Entity entity(const std::string& id, const std::string& name) { return graph::testing::named_entity(id, name); }

const graph::EmbedNames& no_name_vectors = graph::testing::kNoNameVectors;

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
  GraphContext g(store, no_name_vectors);
  GraphRetrieval r = graph_retrieve(g, analyse_question("what is sparse attention?"), GraphRetrieveOptions{});
  ASSERT_GE(r.facts.size(), 3u);
  EXPECT_EQ(r.facts[0].relation, "is_a");
  EXPECT_EQ(r.facts[1].text, "sparse attention appears with block size");  // Dice 1.0
  EXPECT_EQ(r.facts[2].text, "sparse attention appears with attention");  // Dice 0.5, weight 3
  EXPECT_EQ(r.facts[2].weight, 3);  // the weight shown stays the sentence count
}

// Issue 13 (session 5): a central entity's many co-occurrences, each heavier, do not push out
// the one sentence that says what it is a kind of; the fact reads "X is a kind of Y".
TEST(GraphRetrieve, ATypedFactBeyondTheHeaviestCooccurrencesStillShows) {
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("hub", "attention"), entity("kind", "linear attention")};
  for (int i = 0; i < 40; ++i) {
    const std::string id = "n" + std::to_string(i);
    d.entities.push_back(entity(id, "neighbour " + std::to_string(i)));
    d.relations.push_back(relation("hub", id, "co_occurs", 5 + i));
  }
  d.relations.push_back(relation("kind", "hub", "is_a", 1));
  store.upsert(d);
  GraphContext g(store, no_name_vectors);
  GraphRetrieval r = graph_retrieve(g, analyse_question("what is attention?"), GraphRetrieveOptions{});
  ASSERT_FALSE(r.facts.empty());
  EXPECT_EQ(r.facts[0].relation, "is_a");
  EXPECT_EQ(r.facts[0].text, "linear attention is a kind of attention");
}

// Issue 13 (session 5): "what is X?" shows first the typed facts that say what X is (X their
// subject), then those that name its kinds, however heavy; other questions keep weight order.
TEST(GraphRetrieve, ADefinitionQuestionShowsWhatXIsBeforeItsKinds) {
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("hub", "attention"), entity("kind", "linear attention"), entity("up", "mechanism")};
  d.relations = {relation("kind", "hub", "is_a", 5), relation("hub", "up", "is_a", 1)};
  store.upsert(d);
  GraphContext g(store, no_name_vectors);
  GraphRetrieval r = graph_retrieve(g, analyse_question("what is attention?"), GraphRetrieveOptions{});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].text, "attention is a kind of mechanism");
  r = graph_retrieve(g, analyse_question("which variants of attention are there?"), GraphRetrieveOptions{});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].text, "linear attention is a kind of attention") << "weight order";
}

// Issue 13 (session 4): the lists drawn from the question's entities confirm a retriever's chunk
// just below the cut (RankedList::confirms) only for questions of two parts or about the
// collection; a one-part question's lists only add candidates, so its retrievers' top k stays.
TEST(GraphRetrieve, OnlyTwoPartAndCollectionQuestionsListsConfirm) {
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("e1", "sparse attention"), entity("e2", "block size")};
  d.mentions = {{"e1", "c0", "d1", "x", 1}, {"e2", "c0", "d1", "x", 1}, {"e1", "c1", "d1", "x", 1}};
  d.relations = {relation("e1", "e2", "uses", 2)};
  store.upsert(d);
  GraphContext g(store, no_name_vectors);
  auto confirming = [&](const std::string& q) {
    auto lists = graph_lists(graph_retrieve(g, analyse_question(q), GraphRetrieveOptions{}));
    EXPECT_FALSE(lists.empty()) << q;
    size_t n = 0;
    for (const auto& l : lists) n += l.confirms ? 1 : 0;
    return n == lists.size() ? "all" : n == 0 ? "none" : "some";
  };
  EXPECT_STREQ(confirming("What block size does sparse attention use?"), "none");
  EXPECT_STREQ(confirming("What block size does sparse attention use, and why is it chosen?"), "all");
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
  GraphContext g(store, no_name_vectors);
  auto hop_of = [&](const std::string& q) -> std::optional<RankedList> {
    for (auto& l : graph_lists(graph_retrieve(g, analyse_question(q), GraphRetrieveOptions{})))
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

// The document layer: a passage of document B names document A's package ("package zorbtest" in
// "zorbtest-intro.pdf"). A two-part question, or one about the packages of the collection, gets
// the cross-reference list (vouched, filled from the question's own hits); a one-part question
// does not. Between the found documents A and B, the naming passage b1 is returned.
TEST(GraphRetrieve, TwoPartAndCollectionQuestionsGetTheCrossReferences) {
  if (!graph::Lexicon::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  graph::testing::MemoryGraphStore store;
  graph::GraphDelta d;
  d.entities = {entity("e1", "package zorbtest"), entity("e2", "coefficient test")};
  d.mentions = {{"e1", "a1", "A", "zorbtest", 1}, {"e2", "a1", "A", "coefficient test", 1},
                {"e1", "b1", "B", "zorbtest", 1}, {"e2", "b1", "B", "coefficient test", 1},
                {"e2", "b2", "B", "coefficient test", 1}, {"e2", "c1", "C", "coefficient test", 1}};
  store.upsert(d);
  GraphContext g(store, no_name_vectors, {{"A", "zorbtest-intro.pdf", ""}, {"B", "paper.pdf", "Robust Covariances"}});
  auto refs_of = [&](const std::string& q) -> std::optional<RankedList> {
    for (auto& l : graph_lists(graph_retrieve(g, analyse_question(q), GraphRetrieveOptions{})))
      if (l.vouched) return l;
    return std::nullopt;
  };
  auto two = refs_of("The paper runs its tests through a function from a companion package. Which package is "
                     "that, and what does its own vignette say about the tests?");
  ASSERT_TRUE(two.has_value());
  EXPECT_TRUE(two->question_hits);
  EXPECT_EQ(two->from_hits({"a1", "b2"}), std::vector<std::string>{"b1"});
  EXPECT_TRUE(refs_of("How do the packages in this collection divide up the work?").has_value());
  EXPECT_FALSE(refs_of("Which function runs the coefficient tests?").has_value());
  // Without the documents' names there is no document layer.
  GraphContext bare(store, no_name_vectors);
  EXPECT_TRUE(bare.cross_refs().empty());
}

TEST(GraphRetrieve, CollectionQuestionsAskAcrossDocuments) {
  if (!graph::Lexicon::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  EXPECT_TRUE(asks_across_documents("How do the packages in this collection divide up the work?"));
  EXPECT_TRUE(asks_across_documents("Which papers in the corpus use rotary embeddings?"));
  EXPECT_FALSE(asks_across_documents("Which paper in the collection introduced rotary embeddings?"));
  EXPECT_FALSE(asks_across_documents("What does the weave function compute?"));
}

}  // namespace
}  // namespace mmkg
