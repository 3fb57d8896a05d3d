#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {
namespace {

Entity entity(const std::string& id, const std::string& name = "", std::vector<std::string> aliases = {}) {
  Entity e;
  e.id = id;
  e.name = name.empty() ? id : name;
  e.aliases = std::move(aliases);
  e.aliases.push_back(e.name);
  return e;
}

Relation relation(const std::string& a, const std::string& b, double w = 1, std::vector<Evidence> ev = {},
                  const std::string& type = "co_occurs") {
  Relation r;
  r.src = std::min(a, b);
  r.dst = std::max(a, b);
  r.type = type;
  r.weight = w;
  r.evidence = std::move(ev);
  return r;
}

Evidence evidence(const std::string& chunk, const std::string& sentence) { return {chunk, "d", sentence}; }

/// A clique over `ids` (every pair, weight w).
void clique(GraphSnapshot& g, const std::vector<std::string>& ids, double w) {
  for (const std::string& id : ids) g.entities.push_back(entity(id));
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = i + 1; j < ids.size(); ++j) g.relations.push_back(relation(ids[i], ids[j], w));
}

const auto no_text = [](const std::string&) { return std::string(); };

std::set<std::string> ids_of(const Community& c) { return {c.entity_ids.begin(), c.entity_ids.end()}; }

TEST(Communities, TwoPlantedCliquesJoinedByAWeakEdge) {
  GraphSnapshot g;
  clique(g, {"a1", "a2", "a3", "a4", "a5"}, 2.0);
  clique(g, {"b1", "b2", "b3", "b4", "b5", "b6"}, 2.0);
  g.relations.push_back(relation("a5", "b1", 0.1));
  auto cs = detect_communities(g, no_text);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].id, "c0");
  EXPECT_EQ(cs[1].id, "c1");
  EXPECT_EQ(ids_of(cs[0]), (std::set<std::string>{"b1", "b2", "b3", "b4", "b5", "b6"}));  // larger first
  EXPECT_EQ(ids_of(cs[1]), (std::set<std::string>{"a1", "a2", "a3", "a4", "a5"}));
  for (const Community& c : cs) EXPECT_EQ(c.level, 0);
}

TEST(Communities, EqualSizesAreOrderedBySmallestEntityId) {
  GraphSnapshot g;
  clique(g, {"z1", "z2", "z3", "z4"}, 1.0);
  clique(g, {"m1", "m2", "m3", "m4"}, 1.0);
  g.relations.push_back(relation("z1", "m1", 0.05));
  auto cs = detect_communities(g, no_text);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(ids_of(cs[0]).count("m1"), 1u);
  EXPECT_EQ(ids_of(cs[1]).count("z1"), 1u);
}

TEST(Communities, RepeatableAndIndependentOfInputOrder) {
  // A random graph with planted groups: the same input gives the same output, and so does the
  // same input shuffled.
  std::mt19937 rng(11);
  GraphSnapshot g;
  const int n = 300;
  for (int i = 0; i < n; ++i) g.entities.push_back(entity("e" + std::to_string(1000 + i)));
  for (int i = 0; i < 1500; ++i) {
    int a = rng() % n, b = (rng() % 10 == 0) ? rng() % n : (a / 20) * 20 + rng() % 20;
    if (a != b) g.relations.push_back(relation(g.entities[a].id, g.entities[b].id, 1 + rng() % 3));
  }
  auto first = detect_communities(g, no_text);
  auto second = detect_communities(g, no_text);
  GraphSnapshot shuffled = g;
  std::shuffle(shuffled.entities.begin(), shuffled.entities.end(), rng);
  std::shuffle(shuffled.relations.begin(), shuffled.relations.end(), rng);
  auto third = detect_communities(shuffled, no_text);
  ASSERT_GE(first.size(), 10u);
  ASSERT_EQ(first.size(), second.size());
  ASSERT_EQ(first.size(), third.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].id, second[i].id);
    EXPECT_EQ(first[i].entity_ids, second[i].entity_ids);
    EXPECT_EQ(first[i].title, second[i].title);
    EXPECT_EQ(first[i].entity_ids, third[i].entity_ids);
  }
}

TEST(Communities, TitleNamesTheMostCentralEntities) {
  GraphSnapshot g;
  g.entities = {entity("h", "Hub"), entity("x", "Second"), entity("l1", "Leaf One"), entity("l2", "Leaf Two"),
                entity("l3", "Leaf Three"), entity("l4", "Leaf Four")};
  for (const char* leaf : {"x", "l1", "l2", "l3", "l4"}) g.relations.push_back(relation("h", leaf, 3.0));
  for (const char* leaf : {"l1", "l2"}) g.relations.push_back(relation("x", leaf, 1.0));
  auto cs = detect_communities(g, no_text);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].entity_ids.front(), "h");
  EXPECT_EQ(cs[0].entity_ids[1], "x");
  EXPECT_EQ(cs[0].title.rfind("Hub, Second, ", 0), 0u) << cs[0].title;
  EXPECT_EQ(std::count(cs[0].title.begin(), cs[0].title.end(), ','), 3);  // four names
}

TEST(Communities, SummaryCoversMostMembersGreedily) {
  GraphSnapshot g;
  g.entities = {entity("a", "Attention"), entity("b", "Transformer"), entity("c", "Encoder"),
                entity("d", "Multi-Head Attention", {"MHA"})};
  g.relations = {
      relation("a", "b", 2, {evidence("k1", "The Transformer relies on attention."),
                             evidence("k2", "An encoder is not a decoder, and this sentence has nobody else.")}),
      relation("a", "c", 2, {evidence("k3", "Attention inside the encoder of the transformer does the work.")}),
      relation("c", "d", 2, {evidence("k4", "Each encoder layer uses mha twice.")}),
      relation("b", "d", 1, {evidence("k5", "Nothing relevant here at all.")}),
      relation("b", "c", 2), relation("a", "d", 2),  // dense enough to stay one community
  };
  CommunityOptions o;
  o.summary_sentences = 3;
  auto cs = detect_communities(g, no_text, o);
  ASSERT_EQ(cs.size(), 1u);
  // First the sentence naming three entities, then the one adding the fourth (alias, any case);
  // then nothing adds coverage, so the summary stops at two sentences.
  EXPECT_EQ(cs[0].summary,
            "Attention inside the encoder of the transformer does the work. Each encoder layer uses mha twice.");
  EXPECT_EQ(cs[0].chunk_ids, (std::vector<std::string>{"k3", "k4"}));

  o.summary_sentences = 1;
  cs = detect_communities(g, no_text, o);
  EXPECT_EQ(cs[0].summary, "Attention inside the encoder of the transformer does the work.");
}

TEST(Communities, SummaryReadsChunksThatMentionTopEntities) {
  GraphSnapshot g;
  g.entities = {entity("a", "Attention"), entity("b", "Transformer"), entity("c", "Encoder")};
  g.relations = {relation("a", "b", 3, {evidence("k1", "The Transformer relies on attention.")}),
                 relation("a", "c", 2), relation("b", "c", 2)};
  Mention m;
  m.entity_id = "a";
  m.chunk_id = "k9";
  m.count = 2;
  g.mentions = {m};
  std::vector<std::string> asked;
  auto text = [&](const std::string& chunk_id) {
    asked.push_back(chunk_id);
    return std::string("# Background\n\nSome words first. The encoder of a\ntransformer applies attention "
                       "repeatedly. The end.");
  };
  auto cs = detect_communities(g, text);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(asked, (std::vector<std::string>{"k9"}));
  EXPECT_EQ(cs[0].summary, "The encoder of a transformer applies attention repeatedly.");
  EXPECT_EQ(cs[0].chunk_ids, (std::vector<std::string>{"k9"}));
  // Without a chunk source the evidence sentence is the best there is.
  cs = detect_communities(g, nullptr);
  EXPECT_EQ(cs[0].summary, "The Transformer relies on attention.");
  EXPECT_EQ(cs[0].chunk_ids, (std::vector<std::string>{"k1"}));
}

TEST(Communities, AliasesMatchWholeWordsOnly) {
  GraphSnapshot g;
  g.entities = {entity("a", "RNN"), entity("b", "LSTM"), entity("c", "GRU")};
  g.relations = {relation("a", "b", 1, {evidence("k1", "The GRUB bootloader and LSTMx are unrelated here.")}),
                 relation("b", "c", 1, {evidence("k2", "An LSTM and a GRU are gated.")}),
                 relation("a", "c", 1, {evidence("k3", "Both are RNNs.")})};
  CommunityOptions o;
  o.summary_sentences = 5;
  auto cs = detect_communities(g, no_text, o);
  ASSERT_EQ(cs.size(), 1u);
  // "GRUB" and "LSTMx" name nobody; "RNNs" names the RNN (a plural s is tried off).
  EXPECT_EQ(cs[0].summary, "An LSTM and a GRU are gated. Both are RNNs.");
}

TEST(Communities, MinSizeFilter) {
  GraphSnapshot g;
  clique(g, {"a1", "a2", "a3", "a4"}, 1.0);
  clique(g, {"p1", "p2"}, 1.0);
  g.entities.push_back(entity("s1"));
  g.entities.push_back(entity("s2"));
  CommunityOptions o;
  o.min_size = 3;
  auto cs = detect_communities(g, no_text, o);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].entity_ids.size(), 4u);
  o.min_size = 2;
  EXPECT_EQ(detect_communities(g, no_text, o).size(), 2u);
  o.min_size = 1;
  cs = detect_communities(g, no_text, o);
  ASSERT_EQ(cs.size(), 4u);
  EXPECT_EQ(cs[2].entity_ids, (std::vector<std::string>{"s1"}));
  EXPECT_EQ(cs[3].entity_ids, (std::vector<std::string>{"s2"}));
  EXPECT_EQ(cs[3].summary, "");
  EXPECT_EQ(cs[3].title, "s2");
}

TEST(Communities, EmptyGraphAndNoRelations) {
  EXPECT_TRUE(detect_communities(GraphSnapshot{}, no_text).empty());
  GraphSnapshot g;
  for (const char* id : {"x", "y", "z"}) g.entities.push_back(entity(id));
  EXPECT_TRUE(detect_communities(g, no_text).empty());  // singletons < min_size 3
  CommunityOptions o;
  o.min_size = 1;
  EXPECT_EQ(detect_communities(g, no_text, o).size(), 3u);
}

TEST(Communities, BadRelationsAreSkippedAndParallelOnesSummed) {
  GraphSnapshot g;
  clique(g, {"a1", "a2", "a3"}, 1.0);
  clique(g, {"b1", "b2", "b3"}, 1.0);
  g.relations.push_back(relation("a1", "ghost", 100));
  g.relations.push_back(relation("a1", "a1", 100));
  g.relations.push_back(relation("a1", "b1", -100));
  // Typed relations count too: a3–b3 twice, summed, still weaker than each clique.
  g.relations.push_back(relation("a3", "b3", 0.2, {}, "uses"));
  g.relations.push_back(relation("a3", "b3", 0.2, {}, "co_occurs"));
  auto cs = detect_communities(g, no_text);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(ids_of(cs[0]), (std::set<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(ids_of(cs[1]), (std::set<std::string>{"b1", "b2", "b3"}));
}

TEST(Communities, ParallelRelationsOfAnyTypeAddToCentrality) {
  GraphSnapshot g;
  clique(g, {"a", "b", "c", "d"}, 1.0);
  g.relations.push_back(relation("a", "b", 1.0, {}, "uses"));
  g.relations.push_back(relation("a", "c", 1.0, {}, "part_of"));
  g.relations.push_back(relation("a", "c", 0.5, {}, "extends"));
  auto cs = detect_communities(g, no_text);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].entity_ids, (std::vector<std::string>{"a", "c", "b", "d"}));  // 5.5, 4.5, 4, 3
}

TEST(Communities, ResolutionControlsGranularity) {
  GraphSnapshot g;
  for (int c = 0; c < 4; ++c) {
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i) ids.push_back("e" + std::to_string(c) + std::to_string(i));
    clique(g, ids, 1.0);
    if (c > 0) g.relations.push_back(relation("e" + std::to_string(c - 1) + "0", ids[0], 2.0));
  }
  CommunityOptions o;
  EXPECT_EQ(detect_communities(g, no_text, o).size(), 4u);
  o.resolution = 0.05;
  EXPECT_LT(detect_communities(g, no_text, o).size(), 4u);
}

}  // namespace
}  // namespace mmkg::graph
