// The graph's document layer: the coined names documents go by, the passages of other documents
// that name them, and those passages ranked between the documents the retrievers found.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/algo/graph_algo.h"
#include "support/snapshot_fixtures.h"
#include "text/lexicon.h"

namespace mmkg::graph {
namespace {

Mention link_at(const std::string& e, const std::string& chunk, const std::string& doc) {
  return testing::mention_at(e, chunk, doc);
}

Entity named(const std::string& id, const std::string& name) {
  Entity e;
  e.id = id;
  e.name = name;
  return e;
}

using testing::ranked_ids;

TEST(DocLinks, ADocumentGoesByTheCoinedWordsOfItsFileNameAndTitleHead) {
  if (!Lexicon::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  // English words ("intro", "guide", "survival") name a topic; the coined ones name the document.
  EXPECT_EQ(document_name_terms({"A", "zorbtest-intro.pdf", "Diagnostic Checking in Regression"}),
            std::vector<std::string>{"zorbtest"});
  EXPECT_EQ(document_name_terms({"B", "guide.md", "Quuxlib: A Library for Survival Curves"}),
            std::vector<std::string>{"quuxlib"});
  // Only the title's head names it: a coined word after the colon is the subject, not the name.
  EXPECT_TRUE(document_name_terms({"C", "survival.pdf", "Survival curves with quuxlib"}).empty());
  EXPECT_TRUE(document_name_terms({"D", "notes_2024.txt", ""}).empty());  // digits, English
}

// Documents A ("zorbtest-intro.pdf"), B ("quuxlib-guide.pdf"), C ("survival.pdf"). Passage b1
// names A's package, b2 does not; a1 names A in A itself; c1 names A from a third document.
struct CrossRefs : ::testing::Test {
  void SetUp() override {
    if (!Lexicon::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
    g.entities = {named("e-zorb", "package zorbtest"), named("e-rare", "coefficient test"),
                  named("e-quux", "quuxlib"), named("e-model", "model")};
    g.mentions = {link_at("e-zorb", "a1", "A"),  link_at("e-rare", "a1", "A"),  link_at("e-model", "a1", "A"),
                  link_at("e-zorb", "b1", "B"),  link_at("e-rare", "b1", "B"),  link_at("e-model", "b1", "B"),
                  link_at("e-model", "b2", "B"), link_at("e-zorb", "c1", "C"),  link_at("e-rare", "c1", "C"),
                  link_at("e-quux", "a2", "A"),  link_at("e-model", "b3", "B")};
    docs = {{"A", "zorbtest-intro.pdf", "Diagnostic Checking"},
            {"B", "quuxlib-guide.pdf", ""},
            {"C", "survival.pdf", "Survival curves"}};
    xrefs = cross_references(g, docs);
  }
  // Adds passage `chunk` of document `doc` mentioning `entities`, and rebuilds the references.
  void add(const std::string& chunk, const std::string& doc, const std::vector<std::string>& entities) {
    for (const auto& e : entities) g.mentions.push_back(link_at(e, chunk, doc));
    xrefs = cross_references(g, docs);
  }
  // The cross references for `first`, ordered by shared entities or by breadth first.
  std::vector<std::string> ranked(const std::vector<std::string>& first, bool breadth) {
    CrossRefOptions o;
    o.breadth = breadth;
    return ranked_ids(rank_cross_references(g, xrefs, first, o));
  }
  GraphSnapshot g;
  std::vector<DocumentLabel> docs;
  std::map<std::string, std::vector<std::string>> xrefs;
};

TEST_F(CrossRefs, APassageNamesAnotherDocumentThroughAnEntityHoldingItsName) {
  ASSERT_EQ(xrefs.count("b1"), 1u);
  EXPECT_EQ(xrefs["b1"], std::vector<std::string>{"A"});
  EXPECT_EQ(xrefs["c1"], std::vector<std::string>{"A"});
  EXPECT_EQ(xrefs["a2"], std::vector<std::string>{"B"});  // "quuxlib" names B from A
  EXPECT_EQ(xrefs.count("a1"), 0u);  // A naming itself is no reference
  EXPECT_EQ(xrefs.count("b2"), 0u);  // no name at all
  EXPECT_EQ(xrefs.size(), 3u);
}

TEST_F(CrossRefs, OnlyPassagesBetweenFoundDocumentsSharingTheFirstHitsEntitiesRank) {
  // First hits a1 (A) and b3 (B): b1 lies in B, names A and shares a1's "coefficient test"; c1
  // shares it too but lies in C, which the retrievers did not reach; a2 names B but shares nothing.
  EXPECT_EQ(ranked_ids(rank_cross_references(g, xrefs, {"a1", "b3"})), std::vector<std::string>{"b1"});
  // The first hits themselves are never returned; one document alone links nothing.
  EXPECT_TRUE(rank_cross_references(g, xrefs, {"a1", "b1"}).empty());
  EXPECT_TRUE(rank_cross_references(g, xrefs, {"a1"}).empty());
  EXPECT_TRUE(rank_cross_references(g, {}, {"a1", "b3"}).empty());
}

TEST_F(CrossRefs, BreadthPutsThePassageNamingTheMostFoundDocumentsFirst) {
  // x1 (document C) names A and B but shares with the first hits only the package name and the
  // common "model"; b1, c1 and x2 also share the rarer "coefficient test". By shared entities
  // they lead; by breadth x1, the one passage naming two found documents, does.
  g.entities.push_back(named("e-c", "other"));
  add("x1", "C", {"e-zorb", "e-quux", "e-model"});
  add("x2", "C", {"e-zorb", "e-rare"});
  add("c9", "C", {"e-c", "e-model"});
  auto by_entities = ranked({"a1", "b3", "c9"}, false);
  ASSERT_GE(by_entities.size(), 2u);
  EXPECT_NE(by_entities[0], "x1");
  auto by_breadth = ranked({"a1", "b3", "c9"}, true);
  ASSERT_FALSE(by_breadth.empty());
  EXPECT_EQ(by_breadth[0], "x1");
}

// A question about the collection: the passage relating the most documents leads, counting the
// documents it names that the first hits did not reach. y1 (in B) names A and D ("blorpfit" in
// "blorpfit.pdf", which no first hit lies in) but shares only the common "model" with the first
// hits; b1 names A alone and shares the rarer "coefficient test". Counting only the found
// documents both name one, and b1 would lead on its entities.
TEST_F(CrossRefs, BreadthCountsEveryNamedDocumentNotOnlyTheFoundOnes) {
  docs.push_back({"D", "blorpfit.pdf", ""});
  g.entities.push_back(named("e-blorp", "blorpfit package"));
  add("y1", "B", {"e-zorb", "e-blorp", "e-model"});
  add("d1", "D", {"e-blorp"});
  ASSERT_EQ(xrefs["y1"], (std::vector<std::string>{"A", "D"}));
  auto by_entities = ranked({"a1", "b3"}, false);
  ASSERT_GE(by_entities.size(), 2u);
  EXPECT_EQ(by_entities[0], "b1");
  auto by_breadth = ranked({"a1", "b3"}, true);
  ASSERT_GE(by_breadth.size(), 2u);
  EXPECT_EQ(by_breadth[0], "y1");
  // The statistics computed once (GraphContext) rank exactly as those computed per call.
  CrossRefOptions wide;
  wide.breadth = true;
  EXPECT_EQ(ranked_ids(rank_cross_references(g, mention_stats(g), xrefs, {"a1", "b3"}, wide)), by_breadth);
}

// One pass over the mentions: each entity's chunk count, each chunk's document, and specificity
// log(C / df) over the chunks that have mentions.
TEST(MentionStats, CountChunksPerEntityAndWeighRareEntitiesMore) {
  GraphSnapshot g;
  g.mentions = {testing::mention_at("rare", "c1", "A"), testing::mention_at("common", "c1", "A"),
                testing::mention_at("common", "c2", "A"), testing::mention_at("common", "c3", "B"),
                testing::mention_at("common", "c4", "B")};
  const MentionStats s = mention_stats(g);
  EXPECT_EQ(s.chunks, 4u);
  EXPECT_EQ(s.df.at("common"), 4);
  EXPECT_EQ(s.doc_of.at("c3"), "B");
  EXPECT_DOUBLE_EQ(s.specificity("rare"), std::log(4.0));
  EXPECT_DOUBLE_EQ(s.specificity("common"), 0.0);
  EXPECT_DOUBLE_EQ(s.specificity("unknown"), 0.0);
}

}  // namespace
}  // namespace mmkg::graph
