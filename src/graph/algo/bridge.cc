// Bridge-entity expansion (graph_algo.h rank_chunks_by_bridge) and the entity specificity it
// shares with the document layer's cross references (mention_stats).
//
// A multi-hop question names one thing and asks about a related thing described elsewhere ("the
// paper runs its tests through a function from a companion package; what does that package's own
// vignette say ..."). The retrievers find the first hop: passages that match the question's
// words. The second hop shares an entity with them (the package or function name) but few of the
// question's words, so it ranks low. Entities named in the first hop's best passages lead to the
// other passages that name them (HippoRAG's idea of reaching passages through shared entities,
// without the random walk: one step, scored by how specific each shared entity is).
//
// Two restrictions keep the list to real hops:
//  - a chunk counts an entity only when it lies in another document than every seed that names
//    that entity: inside one document, neighbouring passages sharing its terms are what the
//    retrievers already rank, and a hop across documents is what they miss;
//  - specificity is the entity's inverse document frequency over the chunks that have mentions,
//    log(C / df): an entity named in every other passage ("model", "data") adds almost nothing.
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {

MentionStats mention_stats(const GraphSnapshot& g) {
  MentionStats s;
  for (const auto& m : g.mentions) {
    ++s.df[m.entity_id];
    s.doc_of.emplace(m.chunk_id, m.doc_id);
  }
  s.chunks = s.doc_of.size();
  return s;
}

double MentionStats::specificity(const std::string& entity_id) const {
  auto it = df.find(entity_id);
  if (it == df.end() || it->second <= 0) return 0.0;
  return std::log(static_cast<double>(chunks) / it->second);
}

std::vector<std::pair<std::string, double>> rank_chunks_by_bridge(const GraphSnapshot& g,
                                                                  const std::vector<std::string>& seed_chunks,
                                                                  const BridgeOptions& options) {
  return rank_chunks_by_bridge(g, mention_stats(g), seed_chunks, options);
}

std::vector<std::pair<std::string, double>> rank_chunks_by_bridge(const GraphSnapshot& g, const MentionStats& stats,
                                                                  const std::vector<std::string>& seed_chunks,
                                                                  const BridgeOptions& options) {
  std::vector<std::pair<std::string, double>> out;
  std::unordered_set<std::string> seeds;
  for (size_t i = 0; i < seed_chunks.size() && i < options.seeds; ++i) seeds.insert(seed_chunks[i]);
  if (seeds.empty() || options.k <= 0) return out;
  // The documents of the seeds that name each entity.
  std::unordered_map<std::string, std::set<std::string>> seed_docs;
  for (const auto& m : g.mentions)
    if (seeds.count(m.chunk_id)) seed_docs[m.entity_id].insert(m.doc_id);
  if (seed_docs.empty()) return out;
  // The other chunks naming a seed entity from another document.
  std::unordered_map<std::string, double> score;
  std::vector<std::string> order;  // first-seen order, so that ties stay repeatable
  for (const auto& m : g.mentions) {
    auto it = seed_docs.find(m.entity_id);
    if (it == seed_docs.end() || seeds.count(m.chunk_id) || it->second.count(m.doc_id)) continue;
    auto [s, fresh] = score.try_emplace(m.chunk_id, 0.0);
    if (fresh) order.push_back(m.chunk_id);
    s->second += stats.specificity(m.entity_id);
  }
  for (const auto& id : order)
    if (score[id] > 0) out.emplace_back(id, score[id]);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > static_cast<size_t>(options.k)) out.resize(static_cast<size_t>(options.k));
  return out;
}

}  // namespace mmkg::graph
