#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {
namespace {

Entity ppr_entity(const std::string& id) {
  Entity e;
  e.id = id;
  e.name = id;
  e.aliases = {id};
  return e;
}

Relation ppr_relation(const std::string& a, const std::string& b, double w = 1, const std::string& type = "co_occurs") {
  Relation r;
  r.src = a;
  r.dst = b;
  r.type = type;
  r.weight = w;
  return r;
}

Mention mention(const std::string& e, const std::string& chunk, int count = 1) {
  Mention m;
  m.entity_id = e;
  m.chunk_id = chunk;
  m.doc_id = "d";
  m.count = count;
  return m;
}

/// Path e0 - e1 - e2 - e3 - e4, each ei mentioned in chunk ki.
GraphSnapshot path_graph() {
  GraphSnapshot g;
  for (int i = 0; i < 5; ++i) {
    g.entities.push_back(ppr_entity("e" + std::to_string(i)));
    g.mentions.push_back(mention("e" + std::to_string(i), "k" + std::to_string(i)));
  }
  for (int i = 0; i + 1 < 5; ++i) {
    g.relations.push_back(ppr_relation("e" + std::to_string(i), "e" + std::to_string(i + 1)));
  }
  return g;
}

double total_mass(const GraphSnapshot& g, const std::map<std::string, double>& seeds, const PprOptions& o = {}) {
  double sum = 0;
  for (const auto& [id, s] : entity_ppr(g, seeds, o)) sum += s;
  for (const auto& [id, s] : rank_chunks_by_ppr(g, seeds, 1 << 20, o)) sum += s;
  return sum;
}

TEST(Ppr, SeedNeighboursRankAboveFarNodes) {
  GraphSnapshot g = path_graph();
  auto s = entity_ppr(g, {{"e0", 1.0}});
  ASSERT_EQ(s.size(), 5u);
  EXPECT_GT(s["e0"], s["e1"]);
  EXPECT_GT(s["e1"], s["e2"]);
  EXPECT_GT(s["e2"], s["e3"]);
  EXPECT_GT(s["e3"], s["e4"]);
  EXPECT_GT(s["e4"], 0.0);
}

TEST(Ppr, ChunksMentionedBySeedRankFirst) {
  GraphSnapshot g = path_graph();
  auto r = rank_chunks_by_ppr(g, {{"e2", 1.0}}, 10);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].first, "k2");
  // k1 and k3 are one hop from the seed (symmetric), k0 and k4 two hops.
  auto pair = [&](size_t i) { return std::set<std::string>{r[i].first, r[i + 1].first}; };
  EXPECT_EQ(pair(1), (std::set<std::string>{"k1", "k3"}));
  EXPECT_NEAR(r[1].second, r[2].second, 1e-12);
  EXPECT_GT(r[2].second, r[3].second);
  EXPECT_EQ(pair(3), (std::set<std::string>{"k0", "k4"}));
  for (size_t i = 1; i < r.size(); ++i) EXPECT_GE(r[i - 1].second, r[i].second);
}

TEST(Ppr, TopKLimitsTheResult) {
  GraphSnapshot g = path_graph();
  auto r = rank_chunks_by_ppr(g, {{"e0", 1.0}}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].first, "k0");
  EXPECT_EQ(r[1].first, "k1");
  EXPECT_TRUE(rank_chunks_by_ppr(g, {{"e0", 1.0}}, 0).empty());
}

TEST(Ppr, MassSumsToOneWithDanglingSeed) {
  GraphSnapshot g = path_graph();
  g.entities.push_back(ppr_entity("lonely"));  // no relation, no mention: dangling
  EXPECT_NEAR(total_mass(g, {{"e0", 1.0}}), 1.0, 1e-9);
  EXPECT_NEAR(total_mass(g, {{"e0", 1.0}, {"lonely", 2.0}}), 1.0, 1e-9);
  auto s = entity_ppr(g, {{"e0", 1.0}, {"lonely", 2.0}});
  // The dangling seed's walks restart, so it keeps more than its restart share (2/3 · 0.5).
  EXPECT_GT(s["lonely"], 1.0 / 3.0);
}

TEST(Ppr, MultipleSeedsAreWeighted) {
  // Two disconnected components: the mass splits as the seed weights do.
  GraphSnapshot g;
  for (const char* id : {"a0", "a1", "b0", "b1"}) g.entities.push_back(ppr_entity(id));
  g.relations = {ppr_relation("a0", "a1"), ppr_relation("b0", "b1")};
  g.mentions = {mention("a1", "ka"), mention("b1", "kb")};
  auto s = entity_ppr(g, {{"a0", 3.0}, {"b0", 1.0}});
  auto r = rank_chunks_by_ppr(g, {{"a0", 3.0}, {"b0", 1.0}}, 10);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(s["a0"] + s["a1"] + r[0].second, 0.75, 1e-9);
  EXPECT_NEAR(s["b0"] + s["b1"] + r[1].second, 0.25, 1e-9);
  EXPECT_EQ(r[0].first, "ka");
  EXPECT_NEAR(r[0].second, 3 * r[1].second, 1e-9);
}

TEST(Ppr, EmptyOrUnknownSeedsGiveEmptyResults) {
  GraphSnapshot g = path_graph();
  EXPECT_TRUE(rank_chunks_by_ppr(g, {}, 10).empty());
  EXPECT_TRUE(entity_ppr(g, {}).empty());
  EXPECT_TRUE(rank_chunks_by_ppr(g, {{"nope", 1.0}}, 10).empty());
  EXPECT_TRUE(entity_ppr(g, {{"e0", 0.0}, {"e1", -1.0}, {"e2", std::nan("")}}).empty());
  EXPECT_TRUE(rank_chunks_by_ppr(GraphSnapshot{}, {{"e0", 1.0}}, 10).empty());
}

TEST(Ppr, UnknownSeedIdsAreIgnored) {
  GraphSnapshot g = path_graph();
  auto with = rank_chunks_by_ppr(g, {{"e1", 1.0}, {"ghost", 5.0}}, 10);
  auto without = rank_chunks_by_ppr(g, {{"e1", 1.0}}, 10);
  ASSERT_EQ(with.size(), without.size());
  for (size_t i = 0; i < with.size(); ++i) {
    EXPECT_EQ(with[i].first, without[i].first);
    EXPECT_DOUBLE_EQ(with[i].second, without[i].second);
  }
}

TEST(Ppr, BadEdgesAreSkipped) {
  GraphSnapshot g = path_graph();
  g.relations.push_back(ppr_relation("e0", "ghost"));
  g.relations.push_back(ppr_relation("e0", "e0"));
  g.relations.push_back(ppr_relation("e0", "e4", 0.0));
  g.relations.push_back(ppr_relation("e0", "e4", -3.0));
  g.mentions.push_back(mention("ghost", "kghost"));
  auto r = rank_chunks_by_ppr(g, {{"e0", 1.0}}, 10);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[4].first, "k4");
  EXPECT_NEAR(total_mass(g, {{"e0", 1.0}}), 1.0, 1e-9);
}

TEST(Ppr, MentionCountAndRelationWeightStrengthenLinks) {
  GraphSnapshot g;
  for (const char* id : {"s", "strong", "weak"}) g.entities.push_back(ppr_entity(id));
  g.relations = {ppr_relation("s", "strong", 5.0, "uses"), ppr_relation("s", "weak", 1.0)};
  g.mentions = {mention("s", "many", 6), mention("s", "once", 1)};
  auto r = rank_chunks_by_ppr(g, {{"s", 1.0}}, 10);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].first, "many");
  auto s = entity_ppr(g, {{"s", 1.0}});
  EXPECT_GT(s["strong"], s["weak"]);
}

TEST(Ppr, DampingZeroKeepsAllMassOnTheSeeds) {
  GraphSnapshot g = path_graph();
  PprOptions o;
  o.damping = 0;
  auto s = entity_ppr(g, {{"e1", 1.0}, {"e3", 1.0}}, o);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_DOUBLE_EQ(s["e1"], 0.5);
  EXPECT_DOUBLE_EQ(s["e3"], 0.5);
  EXPECT_TRUE(rank_chunks_by_ppr(g, {{"e1", 1.0}}, 10, o).empty());
}

// Against a dense reference (the textbook formula, iterated to convergence) on a random graph with
// parallel relations, mention counts, dangling entities and unmentioned chunks.
TEST(Ppr, MatchesDenseReference) {
  std::mt19937 rng(3);
  const int E = 30, C = 20;
  GraphSnapshot g;
  for (int i = 0; i < E; ++i) g.entities.push_back(ppr_entity("e" + std::to_string(i)));
  for (int i = 0; i < 60; ++i) {
    int a = rng() % (E - 3), b = rng() % (E - 3);  // e27..e29 dangling
    if (a != b) g.relations.push_back(ppr_relation("e" + std::to_string(a), "e" + std::to_string(b), 1 + rng() % 4));
  }
  for (int i = 0; i < 50; ++i) {
    g.mentions.push_back(mention("e" + std::to_string(rng() % (E - 3)), "k" + std::to_string(rng() % C), 1 + rng() % 5));
  }
  const std::map<std::string, double> seeds = {{"e1", 2.0}, {"e5", 1.0}, {"e28", 1.0}};

  // Reference: node index = entity i, chunk "kj" = E + j.
  const int N = E + C;
  std::vector<std::vector<double>> W(N, std::vector<double>(N, 0.0));
  auto id = [&](const std::string& s) { return (s[0] == 'e' ? 0 : E) + std::stoi(s.substr(1)); };
  for (const Relation& r : g.relations) W[id(r.src)][id(r.dst)] += r.weight, W[id(r.dst)][id(r.src)] += r.weight;
  for (const Mention& m : g.mentions) {
    W[id(m.entity_id)][id(m.chunk_id)] += std::log1p(m.count);
    W[id(m.chunk_id)][id(m.entity_id)] += std::log1p(m.count);
  }
  std::vector<double> restart(N, 0.0), p(N, 0.0);
  for (const auto& [s, w] : seeds) restart[id(s)] = w / 4.0;
  p = restart;
  const double d = 0.5;
  for (int it = 0; it < 200; ++it) {
    std::vector<double> next(N, 0.0);
    double dangling = 0;
    for (int u = 0; u < N; ++u) {
      double out = 0;
      for (int v = 0; v < N; ++v) out += W[u][v];
      if (out == 0) dangling += p[u];
      else
        for (int v = 0; v < N; ++v) next[v] += d * p[u] * W[u][v] / out;
    }
    for (int v = 0; v < N; ++v) next[v] += (1 - d + d * dangling) * restart[v];
    p = next;
  }

  PprOptions o;
  o.iterations = 200;
  o.tolerance = 1e-14;
  auto s = entity_ppr(g, seeds, o);
  for (int i = 0; i < E; ++i) {
    auto it = s.find("e" + std::to_string(i));
    EXPECT_NEAR(it == s.end() ? 0.0 : it->second, p[i], 1e-10) << "e" << i;
  }
  for (const auto& [chunk, score] : rank_chunks_by_ppr(g, seeds, 100, o)) EXPECT_NEAR(score, p[id(chunk)], 1e-10) << chunk;
}

}  // namespace
}  // namespace mmkg::graph
