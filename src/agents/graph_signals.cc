#include "agents/graph_signals.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>


namespace mmkg {

namespace {

// Each value over the pool's highest (0 .. 1); all 0 when none is positive.
std::vector<double> over_highest(std::vector<double> v) {
  double hi = 0;
  for (double x : v) hi = std::max(hi, x);
  if (hi > 0)
    for (double& x : v) x /= hi;
  return v;
}

}  // namespace

void graph_pool_signals(GraphContext& g, std::string_view question, size_t parts, const std::vector<SearchHit>& pool,
                        PoolSignals& sig) {
  const size_t n = pool.size();
  sig.graph_link.assign(n, 0.0);
  sig.graph_ppr.assign(n, 0.0);
  sig.graph_bridge.assign(n, 0.0);
  if (g.empty() || n == 0) return;
  const std::string q(question);
  const graph::MentionStats& stats = g.mention_stats();

  // Linked entities, weighted by ppr_seeds (without graph_retrieve's common-phrase flags).
  const std::map<std::string, double> seeds = ppr_seeds(g, g.index().link(q, GraphRetrieveOptions{}.max_entities));
  if (!seeds.empty()) {
    double total = 0;
    for (const auto& [id, w] : seeds) total += w;
    std::vector<double> ppr(n, 0.0);
    std::unordered_map<std::string, double> mass;
    // Every chunk's mass (the walk covers the graph whatever k is; k only cuts the list).
    for (const auto& [id, m] : graph::rank_chunks_by_ppr(g.snapshot(), seeds, static_cast<int>(stats.chunks) + 1))
      mass[id] = m;
    for (size_t i = 0; i < n; ++i) {
      auto m = mass.find(pool[i].chunk_id);
      if (m != mass.end()) ppr[i] = m->second;
      auto es = g.chunk_entities().find(pool[i].chunk_id);
      if (es == g.chunk_entities().end()) continue;
      double w = 0;
      for (const auto& e : es->second) {
        auto s = seeds.find(e);
        if (s != seeds.end()) w += s->second;
      }
      sig.graph_link[i] = total > 0 ? w / total : 0.0;
    }
    sig.graph_ppr = over_highest(std::move(ppr));
  }

  // The bridge hop of a question of several parts (graph_lists does the same for ask): entities
  // shared with the lists' first hits, in other documents.
  if (parts < 2) return;
  std::vector<std::string> first;
  for (size_t r = 1; r <= 3; ++r)
    for (size_t i = 0; i < n; ++i)
      if ((i < sig.bm25_rank.size() && sig.bm25_rank[i] == r) || (i < sig.dense_rank.size() && sig.dense_rank[i] == r))
        if (std::find(first.begin(), first.end(), pool[i].chunk_id) == first.end()) first.push_back(pool[i].chunk_id);
  if (first.empty()) return;
  graph::BridgeOptions bo;
  bo.k = static_cast<int>(stats.chunks) + 1;
  std::unordered_map<std::string, double> bridge;
  for (const auto& [id, s] : graph::rank_chunks_by_bridge(g.snapshot(), stats, first, bo)) bridge[id] = s;
  std::vector<double> b(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    auto it = bridge.find(pool[i].chunk_id);
    if (it != bridge.end()) b[i] = it->second;
  }
  sig.graph_bridge = over_highest(std::move(b));
}

}  // namespace mmkg
