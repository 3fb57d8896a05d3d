// Home passages, name mentions and PPR's home edges and passage seeds, on small graphs of their own.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {
namespace {

Entity home_entity(const std::string& id, const std::string& name, std::vector<std::string> aliases = {}) {
  Entity e;
  e.id = id;
  e.name = name;
  e.aliases = std::move(aliases);
  e.aliases.push_back(name);
  return e;
}

// Three one-passage articles: a king, his mother, and a film; and a manual section.
GraphSnapshot kings() {
  GraphSnapshot g;
  g.entities = {home_entity("king", "Lothair II"), home_entity("mother", "Ermengarde of Tours"), home_entity("film", "Phoolwari"),
                home_entity("cmd", "set terminal"), home_entity("other", "Teutberga")};
  g.mentions = {{"king", "c-king", "d-king", "Lothair II", 2}, {"mother", "c-king", "d-king", "Ermengarde of Tours", 1},
                {"mother", "c-mother", "d-mother", "Ermengarde of Tours", 1}, {"other", "c-king", "d-king", "Teutberga", 1},
                {"king", "c-other", "d-other", "Lothair II", 1}};
  return g;
}

std::vector<ChunkLabel> labels() {
  return {{"c-king", "d-king", "Lothair II",
           "Lothair II was king. He was the second son of Emperor Lothair I and Ermengarde of Tours."},
          {"c-mother", "d-mother", "Ermengarde of Tours", "Ermengarde of Tours (d. 20 March 851) married Lothair I."},
          {"c-film", "d-film", "Phoolwari", "Phoolwari is a 1946 film."},
          {"c-film2", "d-film", "Phoolwari", "The second chunk of the same section is no home."},
          {"c-set", "d-manual", "Commands > 3.2 set terminal", "The set terminal command picks the output device."},
          {"c-intro", "d-manual", "Introduction", "No entity is named so."},
          {"c-other", "d-other", "Teutberga", "Teutberga was a queen, married to Lothair II; she saw Phoolwari."}};
}

TEST(HomePassages, TheFirstChunkOfASectionNamedByAnEntity) {
  GraphSnapshot g = kings();
  auto homes = home_passages(g, labels());
  std::map<std::string, std::string> of;
  for (const auto& h : homes) of[h.entity_id] = h.chunk_id;
  EXPECT_EQ(of["king"], "c-king");
  EXPECT_EQ(of["mother"], "c-mother");
  EXPECT_EQ(of["film"], "c-film") << "the first chunk of the section, not the second";
  EXPECT_EQ(of["other"], "c-other");
  EXPECT_EQ(of["cmd"], "c-set") << "the heading's section number dropped";
  EXPECT_EQ(homes.size(), 5u);
}

TEST(HomePassages, AHeadingTwoEntitiesShareMakesNoHome) {
  GraphSnapshot g;
  g.entities = {home_entity("a", "Mercury", {"mercury"}), home_entity("b", "Mercury (planet)", {"Mercury"})};
  EXPECT_TRUE(home_passages(g, {{"c1", "d1", "Mercury", ""}}).empty());
}

TEST(HomeMentions, ProperNamesAsWrittenLinkToEntitiesWithAHome) {
  GraphSnapshot g = kings();
  g.homes = home_passages(g, labels());
  auto found = home_mentions(g, g.homes, labels());
  std::set<std::pair<std::string, std::string>> got;
  for (const auto& m : found) got.insert({m.entity_id, m.chunk_id});
  // Phoolwari is named in Teutberga's passage though the extractor did not take it.
  EXPECT_TRUE(got.count({"film", "c-other"}));
  // Lothair II in the mother's passage? It names "Lothair I", a different name: no mention.
  EXPECT_FALSE(got.count({"king", "c-mother"}));
  // Mentions the snapshot has already are not repeated.
  EXPECT_FALSE(got.count({"mother", "c-king"}));
  EXPECT_FALSE(got.count({"king", "c-other"}));
}

TEST(HomeMentions, LowerCaseWordsAreNoMention) {
  GraphSnapshot g;
  g.entities = {home_entity("pob", "Place of birth")};
  std::vector<ChunkLabel> c = {{"home", "d1", "Place of birth", "Place of birth is where one is born."},
                               {"c2", "d2", "Someone", "Her place of birth is unknown."}};
  g.homes = home_passages(g, c);
  ASSERT_EQ(g.homes.size(), 1u);
  auto found = home_mentions(g, g.homes, c);
  for (const auto& m : found) EXPECT_NE(m.chunk_id, "c2") << m.surface;
}

TEST(PprHomes, TheSecondHopReachesTheMentionedEntitysHome) {
  GraphSnapshot g = kings();
  g.homes = home_passages(g, labels());
  // From the king: his passage first, then his mother's home (through her mention in his passage).
  auto ranked = rank_chunks_by_ppr(g, {{"king", 1.0}}, 5);
  ASSERT_GE(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].first, "c-king");
  bool mother = false;
  for (const auto& [id, s] : ranked) mother = mother || id == "c-mother";
  EXPECT_TRUE(mother);
  // Without the home edges the mother's home is still reached, but with less mass.
  GraphSnapshot bare = kings();
  PprOptions none;
  none.home_weight = 0;
  double with = 0, without = 0;
  for (const auto& [id, s] : rank_chunks_by_ppr(g, {{"king", 1.0}}, 10)) with += id == "c-mother" ? s : 0;
  for (const auto& [id, s] : rank_chunks_by_ppr(bare, {{"king", 1.0}}, 10, none)) without += id == "c-mother" ? s : 0;
  EXPECT_GT(with, without);
}

TEST(PprHomes, PassageSeedsRestartThereToo) {
  GraphSnapshot g = kings();
  g.homes = home_passages(g, labels());
  auto ranked = rank_chunks_by_ppr(g, {}, 3, {}, {{"c-mother", 1.0}});
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].first, "c-mother");
  EXPECT_TRUE(rank_chunks_by_ppr(g, {}, 3, {}, {{"unknown chunk", 1.0}}).empty());
}

}  // namespace
}  // namespace mmkg::graph
