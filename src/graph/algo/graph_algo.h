// Graph algorithms for retrieval: personalised PageRank from linked entities to rank chunks
// (HippoRAG-style) and Leiden communities (libigraph) with extractive summaries.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/model/graph_types.h"

namespace mmkg::graph {

/// The whole graph in memory (read once from a GraphStore).
struct GraphSnapshot {
  std::vector<Entity> entities;
  std::vector<Relation> relations;
  std::vector<Mention> mentions;
};

struct PprOptions {
  double damping = 0.5;  ///< probability of following an edge (HippoRAG uses 0.5)
  int iterations = 50;
  double tolerance = 1e-8;
};

/// Personalised PageRank over the entity graph (relation weights; each entity also linked to the
/// chunks that mention it), restarting at `seeds` (entity id → weight). Returns chunks ranked by
/// their PPR mass, best first, at most `k`.
std::vector<std::pair<std::string, double>> rank_chunks_by_ppr(const GraphSnapshot& g,
                                                               const std::map<std::string, double>& seeds,
                                                               int k, const PprOptions& options = {});

/// Entity PPR scores (entity id → score), for explaining and for expanding neighbourhoods.
std::map<std::string, double> entity_ppr(const GraphSnapshot& g, const std::map<std::string, double>& seeds,
                                         const PprOptions& options = {});

struct BridgeOptions {
  /// How many of the seed chunks the hop starts from; by default all given (retrieval gives the
  /// chunks its sub-queries ranked within their cut: the whole first hop, no extra parameter).
  size_t seeds = std::numeric_limits<size_t>::max();
  int k = 10;        ///< chunks returned
};

/// Bridge-entity expansion for questions that need a second hop: chunks that share specific
/// entities with `seed_chunks` (the retrievers' best chunks, best first) and lie in another
/// document than the seeds naming those entities. Each shared entity adds its inverse document
/// frequency over the chunks, log(C / df): a package or function named in few passages is a
/// bridge, a word named everywhere is not. Seeds themselves are not returned. Best first, at
/// most `k`; empty when nothing bridges.
std::vector<std::pair<std::string, double>> rank_chunks_by_bridge(const GraphSnapshot& g,
                                                                  const std::vector<std::string>& seed_chunks,
                                                                  const BridgeOptions& options = {});

struct CommunityOptions {
  double resolution = 1.0;  ///< Leiden resolution (modularity objective)
  int min_size = 3;         ///< smaller communities are not kept
  int summary_sentences = 3;
  unsigned seed = 42;       ///< fixed, so runs are repeatable
};

/// Leiden communities over the entity graph (relation weights), each with a title (its most
/// central entity names) and an extractive summary: `sentence_source(chunk_id)` gives the text of
/// a chunk; the summary is the sentences that mention the most of the community's entities.
std::vector<Community> detect_communities(const GraphSnapshot& g,
                                          const std::function<std::string(const std::string&)>& chunk_text,
                                          const CommunityOptions& options = {});

}  // namespace mmkg::graph
