// mmkg_graph_algo_bench: personalised PageRank query latency and Leiden community detection time
// on synthetic knowledge graphs.
//
//   mmkg_graph_algo_bench [--sizes 5000,20000,50000] [--queries 20] [--seed 1] [--no-igraph]
//
// For each size E (entities): 4E relations and 6E mentions over 1.2E chunks (so 50k entities =
// 200k relations / 300k mentions / 60k chunks). Entities fall in planted groups of 40; a relation
// joins two entities of one group with probability 0.8, else any two; weights 1-4 (co_occurs or a
// typed relation, parallel ones allowed); each relation has one evidence sentence naming both
// ends. Chunks belong to groups too: a mention picks a chunk of its entity's group with
// probability 0.8 (count 1-5). chunk_text(chunk) returns three sentences naming its entities.
//
// Timed (wall clock, single thread):
//   ppr build      rank_chunks_by_ppr with iterations = 0: CSR construction only (every call
//                  builds it from the snapshot; the API keeps no index between queries)
//   ppr query      rank_chunks_by_ppr, k = 10, 1-3 random seeds, default options (d 0.5, ≤ 50
//                  iterations, tolerance 1e-8): mean, p50, p95 over --queries queries
//                  (and its thread CPU time: the wall time less waiting for a core)
//   entity_ppr     the same seeds through entity_ppr (all entity scores in a std::map)
//   igraph ppr     the same query through libigraph: index the snapshot, igraph_create, then
//                  igraph_personalized_pagerank (PRPACK) with the same weights and reset vector
//   leiden         detect_communities keeping no community (graph + Leiden alone), then without
//                  chunk text (+ summaries from evidence sentences), then with chunk text
//                  (summaries also read and split the chunks of each community's top entities)
#include <igraph/igraph.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/algo/graph_algo.h"

namespace {

using mmkg::graph::GraphSnapshot;
using Clock = std::chrono::steady_clock;

double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string hex_id(char prefix, uint64_t n) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%c%016llx", prefix, static_cast<unsigned long long>(n * 0x9E3779B97F4A7C15ull));
  return buf;
}

struct Synthetic {
  GraphSnapshot g;
  std::unordered_map<std::string, std::vector<int>> chunk_entities;
};

Synthetic make_graph(int n_entities, uint32_t seed) {
  const int group = 40;
  const int n_relations = 4 * n_entities, n_mentions = 6 * n_entities, n_chunks = n_entities * 6 / 5;
  const int n_groups = std::max(1, n_entities / group);
  std::mt19937_64 rng(seed);
  auto uniform = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  Synthetic s;
  GraphSnapshot& g = s.g;
  g.entities.resize(n_entities);
  for (int i = 0; i < n_entities; ++i) {
    auto& e = g.entities[i];
    e.id = hex_id('e', i + 1);
    e.name = "term" + std::to_string(i);
    e.aliases = {e.name, "t" + std::to_string(i)};
  }
  auto in_group = [&](int grp) { return std::min(n_entities - 1, grp * group + uniform(group)); };
  const char* types[] = {"co_occurs", "co_occurs", "co_occurs", "uses", "part_of", "is_a"};
  for (int i = 0; i < n_relations; ++i) {
    int a = uniform(n_entities);
    int b = uniform(10) < 8 ? in_group(a / group) : uniform(n_entities);
    if (a == b) continue;
    mmkg::graph::Relation r;
    r.src = g.entities[std::min(a, b)].id;
    r.dst = g.entities[std::max(a, b)].id;
    r.type = types[uniform(6)];
    r.weight = 1 + uniform(4);
    const std::string chunk = hex_id('k', 1 + uniform(n_chunks));
    r.evidence.push_back({chunk, "d", "In this work " + g.entities[a].name + " is used with " + g.entities[b].name + "."});
    g.relations.push_back(std::move(r));
  }
  const int chunks_per_group = std::max(1, n_chunks / n_groups);
  for (int i = 0; i < n_mentions; ++i) {
    int e = uniform(n_entities);
    int c = uniform(10) < 8 ? std::min(n_chunks - 1, (e / group) * chunks_per_group + uniform(chunks_per_group))
                            : uniform(n_chunks);
    mmkg::graph::Mention m;
    m.entity_id = g.entities[e].id;
    m.chunk_id = hex_id('k', 1 + c);
    m.doc_id = "d";
    m.surface = g.entities[e].name;
    m.count = 1 + uniform(5);
    s.chunk_entities[m.chunk_id].push_back(e);
    g.mentions.push_back(std::move(m));
  }
  return s;
}

struct Stats {
  double mean = 0, p50 = 0, p95 = 0;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  s.p50 = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(0.95 * static_cast<double>(v.size()))) - 1)];
  return s;
}

/// The same query through libigraph, conversion included; returns the top chunk (to check).
std::string igraph_query(const GraphSnapshot& g, const std::map<std::string, double>& seeds, double damping) {
  std::unordered_map<std::string_view, igraph_integer_t> index;
  index.reserve(g.entities.size() * 3);
  igraph_integer_t n = 0;
  for (const auto& e : g.entities) index.emplace(e.id, n++);
  const igraph_integer_t n_entities = n;
  std::vector<std::string_view> chunk_ids;
  igraph_vector_int_t edges;
  igraph_vector_t weights;
  igraph_vector_int_init(&edges, 0);
  igraph_vector_init(&weights, 0);
  igraph_vector_int_reserve(&edges, 2 * static_cast<igraph_integer_t>(g.relations.size() + g.mentions.size()));
  igraph_vector_reserve(&weights, static_cast<igraph_integer_t>(g.relations.size() + g.mentions.size()));
  for (const auto& r : g.relations) {
    auto a = index.find(r.src), b = index.find(r.dst);
    if (a == index.end() || b == index.end() || a->second == b->second || !(r.weight > 0)) continue;
    igraph_vector_int_push_back(&edges, a->second);
    igraph_vector_int_push_back(&edges, b->second);
    igraph_vector_push_back(&weights, r.weight);
  }
  for (const auto& m : g.mentions) {
    auto a = index.find(m.entity_id);
    if (a == index.end()) continue;
    auto [c, added] = index.emplace(m.chunk_id, n);
    if (added) ++n, chunk_ids.push_back(m.chunk_id);
    igraph_vector_int_push_back(&edges, a->second);
    igraph_vector_int_push_back(&edges, c->second);
    igraph_vector_push_back(&weights, std::log1p(std::max(m.count, 1)));
  }
  igraph_t graph;
  igraph_create(&graph, &edges, n, IGRAPH_UNDIRECTED);
  igraph_vector_t reset, result;
  igraph_vector_init(&reset, n);
  igraph_vector_init(&result, 0);
  for (const auto& [id, w] : seeds) {
    if (auto it = index.find(id); it != index.end() && it->second < n_entities) VECTOR(reset)[it->second] += w;
  }
  igraph_real_t value = 0;
  igraph_personalized_pagerank(&graph, IGRAPH_PAGERANK_ALGO_PRPACK, &result, &value, igraph_vss_all(), false, damping,
                               &reset, &weights, nullptr);
  igraph_integer_t best = -1;
  for (igraph_integer_t v = n_entities; v < n; ++v) {
    if (best < 0 || VECTOR(result)[v] > VECTOR(result)[best]) best = v;
  }
  std::string top = best < 0 ? "" : std::string(chunk_ids[best - n_entities]);
  igraph_vector_destroy(&result);
  igraph_vector_destroy(&reset);
  igraph_destroy(&graph);
  igraph_vector_destroy(&weights);
  igraph_vector_int_destroy(&edges);
  return top;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {5000, 20000, 50000};
  int queries = 20;
  uint32_t seed = 1;
  bool with_igraph = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (char* tok = std::strtok(argv[++i], ","); tok; tok = std::strtok(nullptr, ",")) sizes.push_back(std::atoi(tok));
    } else if (a == "--queries" && i + 1 < argc) {
      queries = std::atoi(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = static_cast<uint32_t>(std::atoi(argv[++i]));
    } else if (a == "--no-igraph") {
      with_igraph = false;
    } else {
      std::fprintf(stderr, "usage: %s [--sizes 5000,20000,50000] [--queries 20] [--seed 1] [--no-igraph]\n", argv[0]);
      return 2;
    }
  }

  std::printf("%-8s %-9s %-9s %-7s | %-9s %-26s %-8s %-10s %-13s %-8s | %-7s %-12s %-13s %-6s\n", "entities", "relations",
              "mentions", "chunks", "ppr build", "ppr query mean/p50/p95 ms", "cpu mean", "entity_ppr", "igraph ppr", "ms/iter",
              "leiden", "+evid summ", "+chunk summ", "comms");
  for (int n : sizes) {
    Synthetic s = make_graph(n, seed);
    const GraphSnapshot& g = s.g;
    std::mt19937 rng(seed + 7);
    std::vector<std::map<std::string, double>> qs;
    for (int q = 0; q < queries; ++q) {
      std::map<std::string, double> seeds;
      const int k = 1 + static_cast<int>(rng() % 3);
      for (int j = 0; j < k; ++j) seeds[g.entities[rng() % g.entities.size()].id] = 1.0 + (rng() % 3);
      qs.push_back(std::move(seeds));
    }
    // Warm-up (page faults, allocator).
    mmkg::graph::rank_chunks_by_ppr(g, qs[0], 10);

    mmkg::graph::PprOptions build_only;
    build_only.iterations = 0;
    std::vector<double> build_ms, query_ms, query_cpu_ms, entity_ms, igraph_ms, iter1_ms;
    size_t agree = 0;
    for (const auto& seeds : qs) {
      auto t0 = Clock::now();
      mmkg::graph::rank_chunks_by_ppr(g, seeds, 10, build_only);
      build_ms.push_back(ms_since(t0));
      t0 = Clock::now();
      const double c0 = cpu_ms();
      auto top = mmkg::graph::rank_chunks_by_ppr(g, seeds, 10);
      query_cpu_ms.push_back(cpu_ms() - c0);
      query_ms.push_back(ms_since(t0));
      t0 = Clock::now();
      auto ents = mmkg::graph::entity_ppr(g, seeds);
      entity_ms.push_back(ms_since(t0));
      mmkg::graph::PprOptions fixed;
      fixed.iterations = 50;
      fixed.tolerance = 0;
      t0 = Clock::now();
      mmkg::graph::rank_chunks_by_ppr(g, seeds, 10, fixed);
      iter1_ms.push_back((ms_since(t0) - build_ms.back()) / 50);
      if (with_igraph) {
        t0 = Clock::now();
        std::string best = igraph_query(g, seeds, 0.5);
        igraph_ms.push_back(ms_since(t0));
        agree += !top.empty() && best == top[0].first;
      }
    }
    size_t chunks = s.chunk_entities.size();

    auto chunk_text = [&](const std::string& chunk_id) {
      std::string text = "This section is about several things.\n\n";
      auto it = s.chunk_entities.find(chunk_id);
      if (it == s.chunk_entities.end()) return text;
      const auto& es = it->second;
      for (size_t i = 0; i < es.size(); ++i) {
        text += "We apply " + g.entities[es[i]].name;
        if (i + 1 < es.size()) text += " together with " + g.entities[es[i + 1]].name;
        text += " to the problem. ";
      }
      return text;
    };
    mmkg::graph::CommunityOptions none_kept;
    none_kept.min_size = 1 << 30;
    auto t0 = Clock::now();
    mmkg::graph::detect_communities(g, nullptr, none_kept);
    const double leiden_only_ms = ms_since(t0);
    t0 = Clock::now();
    auto cs = mmkg::graph::detect_communities(g, nullptr);
    const double leiden_ms = ms_since(t0);
    t0 = Clock::now();
    auto cs2 = mmkg::graph::detect_communities(g, chunk_text);
    const double leiden_text_ms = ms_since(t0);

    Stats b = stats(build_ms), q = stats(query_ms), e = stats(entity_ms), ig = stats(igraph_ms), it = stats(iter1_ms);
    char igs[32] = "-";
    if (with_igraph) std::snprintf(igs, sizeof igs, "%.1f (%zu/%zu)", ig.mean, agree, qs.size());
    std::printf("%-8d %-9zu %-9zu %-7zu | %-9.1f %-26s %-8.1f %-10.1f %-13s %-8.2f | %-7.0f %-12.0f %-13.0f %-6zu\n", n,
                g.relations.size(), g.mentions.size(), chunks, b.mean,
                (std::to_string(q.mean).substr(0, 5) + " / " + std::to_string(q.p50).substr(0, 5) + " / " +
                 std::to_string(q.p95).substr(0, 5))
                    .c_str(),
                stats(query_cpu_ms).mean, e.mean, igs, it.mean, leiden_only_ms, leiden_ms, leiden_text_ms, cs2.size());
    std::fflush(stdout);
    if (cs.size() != cs2.size()) std::printf("  (communities differ between runs: %zu vs %zu)\n", cs.size(), cs2.size());
  }
  std::printf("\nigraph ppr: conversion + PRPACK, (n/m) = queries whose top chunk agrees with rank_chunks_by_ppr.\n");
  return 0;
}
