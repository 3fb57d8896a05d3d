// The graph's passages as a retriever (graph_passages): the question's anchors (entities it names
// as written that have a home passage), the common phrases PPR's seeds weigh little, and the
// specificity gate, on a small graph of its own.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "agents/graph_retriever.h"
#include "agents/team.h"
#include "retrieve/fusion_weights.h"
#include "support/memory_graph_store.h"
#include "text/lexicon.h"

namespace mmkg {
namespace {

// Ten one-passage articles (chunk c<i> of document d<i>, headed by its entity's name), an
// article on "Place of birth", and a hub, "film", named in every passage.
struct Articles {
  Articles() {
    graph::GraphDelta d;
    const std::vector<std::string> names = {"Lothair II", "Ermengarde of Tours", "Teutberga", "Phoolwari",
                                            "Aas Ka Panchhi", "Waldrada", "Boso the Elder", "Hugh of Tours",
                                            "Place of birth", "Film"};
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string id = "e" + std::to_string(i), chunk = "c" + std::to_string(i), doc = "d" + std::to_string(i);
      d.entities.push_back(graph::testing::named_entity(id, names[i]));
      d.mentions.push_back({id, chunk, doc, names[i], 1});
      d.mentions.push_back({"e9", chunk, doc, "film", 1});  // the hub, everywhere
      chunks.push_back({chunk, doc, names[i], names[i] + " is the subject of this passage."});
    }
    // Lothair II's passage names his mother.
    d.mentions.push_back({"e1", "c0", "d0", "Ermengarde of Tours", 1});
    d.relations.push_back({"e0", "e1", "co_occurs", 1, {{"c0", "d0", "He was the son of Ermengarde of Tours."}}, ""});
    store.upsert(d);
    ctx = std::make_unique<GraphContext>(store, graph::testing::kNoNameVectors, std::vector<graph::DocumentLabel>{},
                                         chunks);
  }
  graph::testing::MemoryGraphStore store;
  std::vector<graph::ChunkLabel> chunks;
  std::unique_ptr<GraphContext> ctx;
};

TEST(GraphPassages, TheGraphRetrieverGivesItsPassagesAndItsHopListsOnlyWhenAsked) {
  Articles a;
  const Question q = analyse_question("When did Lothair II's mother die?");
  Trace trace(false);
  GraphAgent passages_only(*a.ctx, {}, /*hop_lists=*/false);
  const std::vector<RankedList> lists = run_agent(passages_only, q, trace);
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_TRUE(lists[0].retriever);
  EXPECT_EQ(lists[0].chunk_ids, graph_passages(passages_only.found()).chunk_ids);
  EXPECT_EQ(passages_only.found().anchors, std::vector<std::string>{"e0"});
  GraphAgent with_hops(*a.ctx, {}, /*hop_lists=*/true);
  const std::vector<RankedList> more = run_agent(with_hops, q, trace);
  ASSERT_GT(more.size(), 1u);
  EXPECT_TRUE(more.back().retriever) << "the passages come after the hop lists";
  for (size_t i = 0; i + 1 < more.size(); ++i) EXPECT_FALSE(more[i].retriever) << more[i].name;
  ASSERT_EQ(trace.steps().size(), 2u);  // each run is a traced step
  const auto* step = std::get_if<GraphStep>(&trace.steps()[1].detail);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->lists, more.size() - 1);
  // A question naming no entity with a home: no list at all.
  EXPECT_TRUE(run_agent(passages_only, analyse_question("what is a place of birth?"), trace).empty());
}

TEST(GraphPassages, AQuestionNamingASpecificEntityGetsItsHomeAndTheSecondHop) {
  Articles a;
  GraphRetrieval g = graph_retrieve(*a.ctx, analyse_question("When did Lothair II's mother die?"), {});
  ASSERT_EQ(g.anchors, std::vector<std::string>{"e0"});
  EXPECT_GT(g.anchor_specificity, kAnchorSpecificity);
  RankedList l = graph_passages(g);
  EXPECT_TRUE(l.retriever);
  EXPECT_EQ(l.weight, kFusionWeights.graph_passages);
  ASSERT_GE(l.chunk_ids.size(), 2u);
  EXPECT_EQ(l.chunk_ids[0], "c0") << "his own passage first";
  EXPECT_EQ(l.chunk_ids[1], "c1") << "then his mother's, the second hop";
}

TEST(GraphPassages, ComparisonQuestionsGetBothHomes) {
  Articles a;
  GraphRetrieval g = graph_retrieve(*a.ctx, analyse_question("Which film was released first, Aas Ka Panchhi or Phoolwari?"), {});
  RankedList l = graph_passages(g);
  ASSERT_GE(l.chunk_ids.size(), 2u);
  std::set<std::string> top(l.chunk_ids.begin(), l.chunk_ids.begin() + 2);
  EXPECT_EQ(top, (std::set<std::string>{"c3", "c4"}));
}

TEST(GraphPassages, CommonPhrasesAreNoAnchorsAndWeighLittle) {
  if (!graph::Lexicon::get().loaded()) GTEST_SKIP() << "wordnet-base not installed";
  Articles a;
  // "place of birth" and "film" in lower case: what the question asks, not whom.
  GraphRetrieval g = graph_retrieve(*a.ctx, analyse_question("What is the place of birth of the director of the film Phoolwari?"), {});
  ASSERT_EQ(g.anchors, std::vector<std::string>{"e3"});
  RankedList l = graph_passages(g);
  ASSERT_FALSE(l.chunk_ids.empty());
  EXPECT_EQ(l.chunk_ids[0], "c3") << "the named film, not the article on places of birth";
  // Written as a name, the article's title is an anchor.
  EXPECT_FALSE(graph_retrieve(*a.ctx, analyse_question("What does the article Place of Birth say?"), {}).anchors.empty());
  // Only common phrases: no anchor, no graph retriever.
  GraphRetrieval none = graph_retrieve(*a.ctx, analyse_question("what is a place of birth?"), {});
  EXPECT_TRUE(none.anchors.empty());
  EXPECT_TRUE(graph_passages(none).chunk_ids.empty());
}

TEST(GraphPassages, AHubEntityIsNoSpecificAnchor) {
  Articles a;
  // "Film" has a home but is named in every passage: specificity 0, below the gate.
  GraphRetrieval g = graph_retrieve(*a.ctx, analyse_question("What does Film cover?"), {});
  EXPECT_LT(g.anchor_specificity, kAnchorSpecificity);
  EXPECT_TRUE(graph_passages(g).chunk_ids.empty());
}

}  // namespace
}  // namespace mmkg
