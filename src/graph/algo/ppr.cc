// Personalised PageRank over entities and chunks (HippoRAG-style), by power iteration on a CSR
// adjacency built from the snapshot on each call.
//
// Nodes: entities [0, E) then the chunks that occur in mentions [E, E + C). Edges (undirected):
//   entity–entity  one per relation (co_occurs and typed alike), weight = Relation::weight;
//                  parallel relations between the same pair simply add up;
//   entity–chunk   one per mention, weight = log1p(count), so that a chunk naming an entity ten
//                  times is a stronger link than one naming it once, but not ten times stronger;
//                  one per home passage (GraphSnapshot::homes), weight = PprOptions::home_weight.
// Relations or mentions naming unknown entities, self-loops and non-positive or non-finite weights
// are skipped. Transition u → v = w(u, v) / Σ_x w(u, x). Each step:
//   p' = d · Pᵀp + (1 − d + d · dangling(p)) · r
// with r the seeds normalised to sum 1 and dangling(p) the mass on nodes without edges, so Σp' = 1.
// Stops when ‖p' − p‖₁ < tolerance or after `iterations` steps.
//
// Why not igraph_personalized_pagerank: it needs an igraph_t per call (the snapshot is all we get),
// and PRPACK solves to machine precision; bench/graph_algo_bench.cc measures both.
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {
namespace {

/// String id → node, open addressing with XXH3 (3-4x faster than std::unordered_map here, where
/// building the index is most of a query's time). Keys are views into the snapshot.
class IdIndex {
 public:
  explicit IdIndex(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    slots_.resize(cap);
    mask_ = cap - 1;
  }

  /// The node of `key`, inserting `value` if absent; second = inserted.
  std::pair<int32_t, bool> insert(std::string_view key, int32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const uint64_t h = XXH3_64bits(key.data(), key.size());
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value < 0) {
        s = {h, key, value};
        ++size_;
        return {value, true};
      }
      if (s.hash == h && s.key == key) return {s.value, false};
    }
  }

  /// The node of `key`, or -1.
  int32_t find(std::string_view key) const {
    const uint64_t h = XXH3_64bits(key.data(), key.size());
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value < 0) return -1;
      if (s.hash == h && s.key == key) return s.value;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string_view key;
    int32_t value = -1;
  };

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.value < 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].value >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

struct PprGraph {
  int32_t n_entities = 0;
  std::vector<std::string_view> chunk_ids;  ///< node n_entities + i is chunk_ids[i]
  std::vector<std::string_view> entity_ids;  ///< node i < n_entities is entity_ids[i]
  IdIndex entity_index{0};
  IdIndex chunk_index{0};
  std::vector<int64_t> offsets;  ///< CSR: neighbours of v are [offsets[v], offsets[v + 1])
  std::vector<int32_t> targets;
  std::vector<double> weights;
  std::vector<double> strength;  ///< Σ of v's edge weights (0 = dangling)

  int32_t size() const { return n_entities + static_cast<int32_t>(chunk_ids.size()); }
};

struct Edge {
  int32_t u, v;
  double w;
};

PprGraph build_graph(const GraphSnapshot& g, const PprOptions& o) {
  PprGraph pg;
  pg.entity_index = IdIndex(g.entities.size());
  for (const Entity& e : g.entities) {
    if (pg.entity_index.insert(e.id, pg.n_entities).second) ++pg.n_entities, pg.entity_ids.push_back(e.id);
  }
  auto entity = [&](const std::string& id) { return pg.entity_index.find(id); };

  std::vector<Edge> edges;
  edges.reserve(g.relations.size() + g.mentions.size());
  for (const Relation& r : g.relations) {
    if (!(r.weight > 0) || !std::isfinite(r.weight)) continue;
    int32_t u = entity(r.src), v = entity(r.dst);
    if (u < 0 || v < 0 || u == v) continue;
    edges.push_back({u, v, r.weight});
  }
  IdIndex chunk_index(g.mentions.size() / 4);
  for (const Mention& m : g.mentions) {
    int32_t u = entity(m.entity_id);
    if (u < 0 || m.chunk_id.empty()) continue;
    auto [c, added] = chunk_index.insert(m.chunk_id, pg.n_entities + static_cast<int32_t>(pg.chunk_ids.size()));
    if (added) pg.chunk_ids.push_back(m.chunk_id);
    edges.push_back({u, c, std::log1p(static_cast<double>(std::max(m.count, 1)))});
  }
  if (o.home_weight > 0 && std::isfinite(o.home_weight))
    for (const HomePassage& h : g.homes) {
      int32_t u = entity(h.entity_id);
      if (u < 0 || h.chunk_id.empty()) continue;
      auto [c, added] = chunk_index.insert(h.chunk_id, pg.n_entities + static_cast<int32_t>(pg.chunk_ids.size()));
      if (added) pg.chunk_ids.push_back(h.chunk_id);
      edges.push_back({u, c, o.home_weight});
    }
  pg.chunk_index = std::move(chunk_index);

  const int32_t n = pg.size();
  pg.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (const Edge& e : edges) ++pg.offsets[e.u + 1], ++pg.offsets[e.v + 1];
  for (int32_t v = 0; v < n; ++v) pg.offsets[v + 1] += pg.offsets[v];
  pg.targets.resize(static_cast<size_t>(pg.offsets[n]));
  pg.weights.resize(pg.targets.size());
  pg.strength.assign(static_cast<size_t>(n), 0.0);
  std::vector<int64_t> fill(pg.offsets.begin(), pg.offsets.end() - 1);
  for (const Edge& e : edges) {
    pg.targets[fill[e.u]] = e.v, pg.weights[fill[e.u]++] = e.w;
    pg.targets[fill[e.v]] = e.u, pg.weights[fill[e.v]++] = e.w;
    pg.strength[e.u] += e.w, pg.strength[e.v] += e.w;
  }
  return pg;
}

/// PPR mass of every node (empty when no seed is a known entity or chunk with a positive weight).
std::vector<double> run_ppr(const PprGraph& pg, const std::map<std::string, double>& seeds, const PprOptions& o,
                            const std::map<std::string, double>& chunk_seeds = {}) {
  std::vector<std::pair<int32_t, double>> restart;
  double total = 0;
  for (const auto* m : {&seeds, &chunk_seeds})
    for (const auto& [id, w] : *m) {
      if (!(w > 0) || !std::isfinite(w)) continue;
      const int32_t v = m == &seeds ? pg.entity_index.find(id) : pg.chunk_index.find(id);
      if (v < 0) continue;
      restart.emplace_back(v, w);
      total += w;
    }
  if (restart.empty()) return {};
  for (auto& [v, w] : restart) w /= total;

  const int32_t n = pg.size();
  const double d = std::clamp(o.damping, 0.0, 1.0);
  std::vector<double> p(static_cast<size_t>(n), 0.0), next(p.size()), q(p.size());
  for (auto [v, w] : restart) p[v] += w;
  for (int it = 0; it < o.iterations; ++it) {
    double dangling = 0;
    for (int32_t u = 0; u < n; ++u) {
      if (pg.strength[u] > 0) q[u] = p[u] / pg.strength[u];
      else q[u] = 0, dangling += p[u];
    }
    for (int32_t v = 0; v < n; ++v) {
      double s = 0;
      for (int64_t e = pg.offsets[v]; e < pg.offsets[v + 1]; ++e) s += pg.weights[e] * q[pg.targets[e]];
      next[v] = d * s;
    }
    const double back = 1 - d + d * dangling;
    for (auto [v, w] : restart) next[v] += back * w;
    double diff = 0;
    for (int32_t v = 0; v < n; ++v) diff += std::abs(next[v] - p[v]);
    p.swap(next);
    if (diff < o.tolerance) break;
  }
  return p;
}

}  // namespace

std::vector<std::pair<std::string, double>> rank_chunks_by_ppr(const GraphSnapshot& g,
                                                               const std::map<std::string, double>& seeds,
                                                               int k, const PprOptions& options,
                                                               const std::map<std::string, double>& chunk_seeds) {
  if (k <= 0 || (seeds.empty() && chunk_seeds.empty())) return {};
  const PprGraph pg = build_graph(g, options);
  const std::vector<double> p = run_ppr(pg, seeds, options, chunk_seeds);
  if (p.empty()) return {};
  std::vector<int32_t> hits;
  for (int32_t v = pg.n_entities; v < pg.size(); ++v) {
    if (p[v] > 0) hits.push_back(v);
  }
  auto better = [&](int32_t a, int32_t b) {
    if (p[a] != p[b]) return p[a] > p[b];
    return pg.chunk_ids[a - pg.n_entities] < pg.chunk_ids[b - pg.n_entities];
  };
  const size_t top = std::min(hits.size(), static_cast<size_t>(k));
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(top), hits.end(), better);
  std::vector<std::pair<std::string, double>> out;
  out.reserve(top);
  for (size_t i = 0; i < top; ++i) out.emplace_back(std::string(pg.chunk_ids[hits[i] - pg.n_entities]), p[hits[i]]);
  return out;
}

std::map<std::string, double> entity_ppr(const GraphSnapshot& g, const std::map<std::string, double>& seeds,
                                         const PprOptions& options) {
  if (seeds.empty()) return {};
  const PprGraph pg = build_graph(g, options);
  const std::vector<double> p = run_ppr(pg, seeds, options);
  std::map<std::string, double> out;
  if (p.empty()) return out;
  for (int32_t v = 0; v < pg.n_entities; ++v) {
    if (p[v] > 0) out.emplace(std::string(pg.entity_ids[v]), p[v]);
  }
  return out;
}

}  // namespace mmkg::graph
