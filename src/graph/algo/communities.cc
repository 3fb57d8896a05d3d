// Leiden communities of the entity graph (libigraph, modularity objective) with extractive
// summaries.
//
// Graph: one vertex per entity (numbered in id order, so the result does not depend on the order
// of the snapshot), one undirected edge per entity pair that has relations, weight = the sum of
// their weights (relations of every type; self-loops, unknown entities and non-positive weights
// skipped). igraph's Leiden optimises  1/2m Σ_ij (A_ij − γ n_i n_j) δ(c_i, c_j); with node weights
// n_i = k_i (weighted degree) and γ = resolution / 2m (m = total edge weight) this is modularity
// with that resolution (igraph_community_leiden documentation). Iterated until stable, beta 0.01,
// igraph's default RNG seeded with CommunityOptions::seed. libigraph (Debian build) is not
// thread-safe (IGRAPH_THREAD_SAFE 0), so the igraph part runs under a process-wide mutex.
//
// Each community kept (size ≥ min_size), ordered by size (desc), then smallest entity id; id
// "c<i>"; entity_ids most central first (weighted degree inside the community, then id); title =
// the names of its first four.
//
// Summary: candidate sentences are the evidence sentences of the community's internal relations,
// then the sentences (split_sentences) of the chunks that mention its four most central entities
// (the 8 chunks with the most mentions of them; `chunk_text` gives the text). A sentence mentions
// an entity when one of its aliases (or its name) occurs in it as a whole-word phrase, ignoring
// ASCII case. Greedy coverage: repeatedly take the sentence that mentions the most community
// entities not yet covered (ties: most entities in all, then first candidate), until
// summary_sentences are taken or no sentence adds one.
#include <igraph/igraph.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "graph/algo/graph_algo.h"
#include "text/sentences.h"

namespace mmkg::graph {
namespace {

constexpr size_t kTitleNames = 4;
constexpr size_t kSummaryEntities = 4;      ///< chunks of this many central entities are read
constexpr size_t kSummaryChunks = 8;        ///< at most this many chunks per community
constexpr size_t kMinSentenceBytes = 12;
constexpr size_t kMaxSentenceBytes = 800;   ///< longer "sentences" are usually tables or run-ons
constexpr size_t kMaxAliasWords = 8;

struct WeightedEdge {
  int32_t u, v;
  double w;
};

// ---- Leiden through igraph --------------------------------------------------------------------

std::mutex& igraph_mutex() {
  static std::mutex m;
  return m;
}

/// Errors come back as codes (not abort()) while this is alive.
class IgraphErrorScope {
 public:
  IgraphErrorScope() : old_(igraph_set_error_handler(igraph_error_handler_ignore)) {}
  ~IgraphErrorScope() { igraph_set_error_handler(old_); }

 private:
  igraph_error_handler_t* old_;
};

void check(igraph_error_t err, const char* what) {
  if (err != IGRAPH_SUCCESS) {
    throw Error(std::string("community detection failed: ") + what + ": " + igraph_strerror(err) + ".");
  }
}

struct IntVector {
  igraph_vector_int_t v;
  explicit IntVector(igraph_integer_t n) { check(igraph_vector_int_init(&v, n), "igraph_vector_int_init"); }
  ~IntVector() { igraph_vector_int_destroy(&v); }
  IntVector(const IntVector&) = delete;
  IntVector& operator=(const IntVector&) = delete;
};

struct RealVector {
  igraph_vector_t v;
  explicit RealVector(igraph_integer_t n) { check(igraph_vector_init(&v, n), "igraph_vector_init"); }
  ~RealVector() { igraph_vector_destroy(&v); }
  RealVector(const RealVector&) = delete;
  RealVector& operator=(const RealVector&) = delete;
};

struct Graph {
  igraph_t g;
  Graph(const igraph_vector_int_t* edges, igraph_integer_t n) {
    check(igraph_create(&g, edges, n, IGRAPH_UNDIRECTED), "igraph_create");
  }
  ~Graph() { igraph_destroy(&g); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
};

/// Cluster of each vertex (singletons when there are no edges).
std::vector<int64_t> leiden(int32_t n, const std::vector<WeightedEdge>& edges, const std::vector<double>& strength,
                            const CommunityOptions& o) {
  std::vector<int64_t> membership(static_cast<size_t>(n));
  std::iota(membership.begin(), membership.end(), 0);
  double m = 0;
  for (const WeightedEdge& e : edges) m += e.w;
  if (edges.empty() || !(m > 0)) return membership;

  std::lock_guard<std::mutex> lock(igraph_mutex());
  IgraphErrorScope errors;
  IntVector ends(static_cast<igraph_integer_t>(2 * edges.size()));
  RealVector weights(static_cast<igraph_integer_t>(edges.size()));
  for (size_t i = 0; i < edges.size(); ++i) {
    VECTOR(ends.v)[2 * i] = edges[i].u;
    VECTOR(ends.v)[2 * i + 1] = edges[i].v;
    VECTOR(weights.v)[i] = edges[i].w;
  }
  RealVector node_weights(n);
  for (int32_t i = 0; i < n; ++i) VECTOR(node_weights.v)[i] = strength[i];
  Graph graph(&ends.v, n);
  IntVector result(n);
  igraph_integer_t clusters = 0;
  check(igraph_rng_seed(igraph_rng_default(), o.seed), "igraph_rng_seed");
  check(igraph_community_leiden(&graph.g, &weights.v, &node_weights.v, o.resolution / (2 * m), /*beta=*/0.01,
                                /*start=*/false, /*n_iterations=*/-1, &result.v, &clusters, /*quality=*/nullptr),
        "igraph_community_leiden");
  for (int32_t i = 0; i < n; ++i) membership[i] = VECTOR(result.v)[i];
  return membership;
}

// ---- Entity mentions in sentences --------------------------------------------------------------

bool word_byte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

/// ASCII-lower-cased words (runs of letters, digits and non-ASCII bytes).
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string w;
  for (unsigned char c : s) {
    if (word_byte(c)) {
      w.push_back(static_cast<char>(std::tolower(c)));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

/// Finds which of a community's entities a sentence names (by any alias, whole words).
class AliasMatcher {
 public:
  void add(const std::string& alias, int member) {
    std::vector<std::string> ws = words_of(alias);
    if (ws.empty() || ws.size() > kMaxAliasWords) return;
    std::string key = ws[0];
    for (size_t i = 1; i < ws.size(); ++i) key += ' ' + ws[i];
    std::vector<int>& ms = phrases_[key];
    if (std::find(ms.begin(), ms.end(), member) == ms.end()) ms.push_back(member);
    max_words_ = std::max(max_words_, ws.size());
  }

  /// Sorted distinct members named in `sentence`.
  std::vector<int> find(std::string_view sentence) const {
    std::vector<int> found;
    const std::vector<std::string> ws = words_of(sentence);
    std::string key;
    for (size_t i = 0; i < ws.size(); ++i) {
      key = ws[i];
      for (size_t j = i;;) {
        lookup(key, found);
        if (++j == ws.size() || j - i == max_words_) break;
        key += ' ';
        key += ws[j];
      }
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

 private:
  /// Adds the members named `key`, or else `key` without a plural s ("transformers").
  void lookup(std::string& key, std::vector<int>& found) const {
    auto it = phrases_.find(key);
    if (it == phrases_.end() && key.size() > 3 && key.back() == 's' && key[key.size() - 2] != 's') {
      key.pop_back();
      it = phrases_.find(key);
      key.push_back('s');
    }
    if (it != phrases_.end()) found.insert(found.end(), it->second.begin(), it->second.end());
  }

  std::unordered_map<std::string, std::vector<int>> phrases_;
  size_t max_words_ = 0;
};

/// Whitespace runs (newlines of Markdown chunks included) become one space; ends trimmed.
std::string squeeze(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out.push_back(' ');
      space = false;
      out.push_back(c);
    }
  }
  return out;
}

/// A copy of chunk text with lone line breaks inside paragraphs made spaces (ICU ends a sentence
/// at every line break), except before a line that starts a Markdown list item, heading, table
/// row or quote. Same length, so sentence offsets hold.
std::string join_lines(std::string text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    const bool lone = (i == 0 || text[i - 1] != '\n') && (i + 1 < text.size() && text[i + 1] != '\n');
    if (lone && std::string_view("#-*+|>").find(text[i + 1]) == std::string_view::npos) text[i] = ' ';
  }
  return text;
}

struct Candidate {
  std::string text;
  std::string chunk_id;
  std::vector<int> members;
};

// The entities as vertices, in id order (first occurrence of a duplicated id wins).
struct Vertices {
  std::vector<const Entity*> entities;
  std::unordered_map<std::string_view, int32_t> index;
  explicit Vertices(const GraphSnapshot& g) {
    entities.reserve(g.entities.size());
    for (const Entity& e : g.entities) entities.push_back(&e);
    std::stable_sort(entities.begin(), entities.end(), [](const Entity* a, const Entity* b) { return a->id < b->id; });
    entities.erase(
        std::unique(entities.begin(), entities.end(), [](const Entity* a, const Entity* b) { return a->id == b->id; }),
        entities.end());
    index.reserve(entities.size() * 2);
    for (int32_t i = 0; i < static_cast<int32_t>(entities.size()); ++i) index.emplace(entities[i]->id, i);
  }
  int32_t size() const { return static_cast<int32_t>(entities.size()); }
  int32_t operator()(const std::string& id) const {
    auto it = index.find(id);
    return it == index.end() ? -1 : it->second;
  }
};

// Edges: relations between known, distinct entities, parallel ones summed; `valid[r]` says
// whether relation r made one.
std::vector<WeightedEdge> merged_edges(const GraphSnapshot& g, const Vertices& vertex, std::vector<bool>& valid) {
  std::vector<WeightedEdge> edges;
  valid.assign(g.relations.size(), false);
  edges.reserve(g.relations.size());
  for (size_t r = 0; r < g.relations.size(); ++r) {
    const Relation& rel = g.relations[r];
    if (!(rel.weight > 0) || !std::isfinite(rel.weight)) continue;
    int32_t u = vertex(rel.src), v = vertex(rel.dst);
    if (u < 0 || v < 0 || u == v) continue;
    if (u > v) std::swap(u, v);
    valid[r] = true;
    edges.push_back({u, v, rel.weight});
  }
  std::sort(edges.begin(), edges.end(), [](const WeightedEdge& a, const WeightedEdge& b) {
    return a.u != b.u ? a.u < b.u : a.v < b.v;
  });
  size_t merged = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    if (merged > 0 && edges[merged - 1].u == edges[i].u && edges[merged - 1].v == edges[i].v) {
      edges[merged - 1].w += edges[i].w;
    } else {
      edges[merged++] = edges[i];
    }
  }
  edges.resize(merged);
  return edges;
}

// The communities of at least min_size members, largest first (ties: smallest id), each one's
// members by centrality inside it; `community_of` gets each vertex's community (-1: none kept).
std::vector<std::vector<int32_t>> kept_communities(const std::vector<int64_t>& membership, int32_t n,
                                                   const std::vector<WeightedEdge>& edges, size_t min_size,
                                                   std::vector<int32_t>& community_of) {
  std::unordered_map<int64_t, std::vector<int32_t>> groups;
  for (int32_t i = 0; i < n; ++i) groups[membership[i]].push_back(i);  // members in id order
  std::vector<std::vector<int32_t>> kept;
  for (auto& [c, members] : groups) {
    if (members.size() >= min_size) kept.push_back(std::move(members));
  }
  std::sort(kept.begin(), kept.end(), [&](const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();  // front = smallest id
  });
  community_of.assign(static_cast<size_t>(n), -1);
  for (size_t c = 0; c < kept.size(); ++c) {
    for (int32_t v : kept[c]) community_of[v] = static_cast<int32_t>(c);
  }
  std::vector<double> inner(static_cast<size_t>(n), 0.0);
  for (const WeightedEdge& e : edges) {
    if (community_of[e.u] >= 0 && community_of[e.u] == community_of[e.v]) inner[e.u] += e.w, inner[e.v] += e.w;
  }
  for (auto& members : kept) {
    std::stable_sort(members.begin(), members.end(), [&](int32_t a, int32_t b) { return inner[a] > inner[b]; });
  }
  return kept;
}

// A community's extractive summary: candidate sentences (its internal relations' evidence, then
// the sentences of the chunks where its first members are mentioned most) that name its members,
// chosen greedily to cover the most members not yet covered; their chunks are its chunks.
void summarise(Community& com, const std::vector<int32_t>& members, const Vertices& vertex, const GraphSnapshot& g,
               const std::vector<size_t>& internal, const std::vector<std::vector<const Mention*>>& mentions_of,
               const std::function<std::string(const std::string&)>& chunk_text, const CommunityOptions& options) {
  AliasMatcher matcher;
  for (size_t i = 0; i < members.size(); ++i) {
    const Entity& e = *vertex.entities[members[i]];
    matcher.add(e.name, static_cast<int>(i));
    for (const std::string& a : e.aliases) matcher.add(a, static_cast<int>(i));
  }
  std::vector<Candidate> candidates;
  std::unordered_set<std::string> seen;
  auto consider = [&](std::string_view raw, const std::string& chunk_id) {
    std::string text = squeeze(raw);
    if (text.size() < kMinSentenceBytes || text.size() > kMaxSentenceBytes || !seen.insert(text).second) return;
    std::vector<int> found = matcher.find(text);
    if (!found.empty()) candidates.push_back({std::move(text), chunk_id, std::move(found)});
  };
  for (size_t r : internal) {
    for (const Evidence& ev : g.relations[r].evidence) consider(ev.sentence, ev.chunk_id);
  }
  if (chunk_text) {
    std::vector<const Mention*> ms;
    for (size_t i = 0; i < members.size() && i < kSummaryEntities; ++i) {
      ms.insert(ms.end(), mentions_of[members[i]].begin(), mentions_of[members[i]].end());
    }
    std::stable_sort(ms.begin(), ms.end(), [](const Mention* a, const Mention* b) { return a->count > b->count; });
    std::vector<std::string> chunks;
    for (const Mention* m : ms) {
      if (chunks.size() == kSummaryChunks) break;
      if (std::find(chunks.begin(), chunks.end(), m->chunk_id) == chunks.end()) chunks.push_back(m->chunk_id);
    }
    for (const std::string& chunk_id : chunks) {
      const std::string text = join_lines(chunk_text(chunk_id));
      for (auto [b, e] : split_sentences(text)) consider(std::string_view(text).substr(b, e - b), chunk_id);
    }
  }
  std::vector<bool> covered(members.size(), false);
  std::vector<bool> taken(candidates.size(), false);
  for (int s = 0; s < options.summary_sentences; ++s) {
    int best = -1;
    size_t best_gain = 0, best_total = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      size_t gain = 0;
      for (int m : candidates[i].members) gain += covered[m] ? 0 : 1;
      if (gain > best_gain || (gain == best_gain && gain > 0 && candidates[i].members.size() > best_total)) {
        best = static_cast<int>(i), best_gain = gain, best_total = candidates[i].members.size();
      }
    }
    if (best < 0) break;
    taken[best] = true;
    for (int m : candidates[best].members) covered[m] = true;
    com.summary += (com.summary.empty() ? "" : " ") + candidates[best].text;
    const std::string& chunk_id = candidates[best].chunk_id;
    if (!chunk_id.empty() && std::find(com.chunk_ids.begin(), com.chunk_ids.end(), chunk_id) == com.chunk_ids.end()) {
      com.chunk_ids.push_back(chunk_id);
    }
  }
}

}  // namespace

std::vector<Community> detect_communities(const GraphSnapshot& g,
                                          const std::function<std::string(const std::string&)>& chunk_text,
                                          const CommunityOptions& options) {
  const Vertices vertex(g);
  const int32_t n = vertex.size();
  if (n == 0) return {};
  std::vector<bool> valid;
  const std::vector<WeightedEdge> edges = merged_edges(g, vertex, valid);
  std::vector<double> strength(static_cast<size_t>(n), 0.0);
  for (const WeightedEdge& e : edges) strength[e.u] += e.w, strength[e.v] += e.w;
  const std::vector<int64_t> membership = leiden(n, edges, strength, options);
  std::vector<int32_t> community_of;
  const std::vector<std::vector<int32_t>> kept =
      kept_communities(membership, n, edges, static_cast<size_t>(std::max(options.min_size, 1)), community_of);

  // Internal relations per community (for evidence), mentions per entity (for chunks).
  std::vector<std::vector<size_t>> internal(kept.size());
  for (size_t r = 0; r < g.relations.size(); ++r) {
    if (!valid[r]) continue;
    const int32_t u = vertex(g.relations[r].src), v = vertex(g.relations[r].dst);
    if (community_of[u] >= 0 && community_of[u] == community_of[v]) internal[community_of[u]].push_back(r);
  }
  std::vector<std::vector<const Mention*>> mentions_of(static_cast<size_t>(n));
  for (const Mention& m : g.mentions) {
    const int32_t v = vertex(m.entity_id);
    if (v >= 0 && community_of[v] >= 0 && !m.chunk_id.empty()) mentions_of[v].push_back(&m);
  }

  std::vector<Community> out;
  out.reserve(kept.size());
  for (size_t c = 0; c < kept.size(); ++c) {
    Community com;
    com.id = "c" + std::to_string(c);
    com.level = 0;
    for (size_t i = 0; i < kept[c].size(); ++i) {
      const Entity& e = *vertex.entities[kept[c][i]];
      com.entity_ids.push_back(e.id);
      if (i < kTitleNames) com.title += (i ? ", " : "") + (e.name.empty() ? e.id : e.name);
    }
    summarise(com, kept[c], vertex, g, internal[c], mentions_of, chunk_text, options);
    out.push_back(std::move(com));
  }
  return out;
}

}  // namespace mmkg::graph
