// Graph retriever (the seed's Graph tool, done right): link the question's phrases to entities,
// turn their relations into short facts with evidence chunks, rank chunks by personalised
// PageRank from the linked entities, and bring community summaries for broad questions.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agents/messages.h"
#include "agents/question.h"
#include "graph/algo/graph_algo.h"
#include "graph/model/graph_store.h"
#include "graph/resolve/resolve.h"

namespace mmkg {

class Trace;



struct GraphRetrieveOptions {
  int max_entities = 6;
  int max_facts = 12;
  int ppr_chunks = 20;
  int max_communities = 3;
};

/// A loaded graph for one process: the linking index and an in-memory snapshot for PPR.
class GraphContext {
 public:
  /// `documents`: the store's documents, for the graph's document layer (cross_references); none:
  /// no layer. `chunks`: the store's chunks with their headings, for the entities' home passages
  /// (graph::home_passages); none: no homes.
  GraphContext(graph::GraphStore& store, const graph::EmbedNames& embed,
               const std::vector<graph::DocumentLabel>& documents = {},
               const std::vector<graph::ChunkLabel>& chunks = {});
  graph::GraphStore& store() { return store_; }
  graph::EntityIndex& index() { return *index_; }
  const graph::GraphSnapshot& snapshot() const { return snap_; }
  bool empty() const { return snap_.entities.empty(); }
  /// Chunk id → the other documents it names (graph_algo.h cross_references).
  const std::map<std::string, std::vector<std::string>>& cross_refs() const { return xrefs_; }
  /// True when the entity has a home passage (graph::home_passages).
  bool has_home(const std::string& entity_id) const { return homed_.count(entity_id) > 0; }
  /// Each entity's chunk count and each chunk's document, for the hops' specificity weights.
  const graph::MentionStats& mention_stats() const { return stats_; }
  /// Chunk id → the entities it mentions (each once), for the ranker's graph signals.
  const std::unordered_map<std::string, std::vector<std::string>>& chunk_entities() const { return chunk_ents_; }

  /// An entity of snapshot().entities (its index) with how connected it is.
  struct Connected {
    size_t entity = 0;
    size_t degree = 0;    ///< distinct entities it is related to (a pair of several types counts once)
    size_t mentions = 0;  ///< passages that mention it (mention_stats())
  };
  /// Every entity, most connected first: by degree, then mentions, then name and id. Computed on
  /// the first call (the graph overview's order; queries never need it) and kept.
  const std::vector<Connected>& by_connection();

 private:
  graph::GraphStore& store_;
  std::unique_ptr<graph::EntityIndex> index_;
  graph::GraphSnapshot snap_;
  std::map<std::string, std::vector<std::string>> xrefs_;
  graph::MentionStats stats_;
  std::unordered_map<std::string, std::vector<std::string>> chunk_ents_;
  std::set<std::string> homed_;
  std::optional<std::vector<Connected>> by_connection_;
};

/// `passages`: chunks a retriever found for the question (chunk id → weight), PPR's restart
/// weights beside the linked entities' (HippoRAG 2's passage nodes); none: entities only.
GraphRetrieval graph_retrieve(GraphContext& g, const Question& question, const GraphRetrieveOptions& opt,
                              const std::map<std::string, double>& passages = {});

/// What a link flagged as a common phrase weighs in ppr_seeds, times its other weight. graph_retrieve
/// flags a link whose phrase the question writes in lower case with every word an English or stop
/// word ("place of birth", "film"): such words say what the question asks of its entities ("the
/// director of film X"), and their entities' passages ("Place of birth", "Film") are hubs that
/// hold no answer.
constexpr double kCommonPhraseWeight = 0.01;

/// Personalised PageRank's restart weights for linked entities: each link's score times its
/// entity's specificity, 1 / log2(2 + mentions) (HippoRAG's node specificity: rarer entities weigh
/// more), times kCommonPhraseWeight where `common` (parallel to `links`; empty: none) flags it.
/// Shared by graph_retrieve and the fitted ranker's graph signals (which flag none).
std::map<std::string, double> ppr_seeds(const GraphContext& g, const std::vector<graph::EntityLink>& links,
                                        const std::vector<bool>& common = {});

/// The least anchor specificity (GraphRetrieval::anchor_specificity) at which the graph's
/// passages become a retriever (graph_passages); its weight in the fusion is
/// kFusionWeights.graph_passages (retrieve/fusion_weights.h).
constexpr double kAnchorSpecificity = 0.5;

/// The graph's passages as a retriever of their own, in the spirit of HippoRAG 2: PPR's chunks
/// (from the question's entities, over passages and entities with their home-passage edges) as a
/// RankedList::retriever of weight kFusionWeights.graph_passages, when the question names a specific
/// entity that has a home passage (anchor_specificity >= kAnchorSpecificity). Otherwise, or
/// without PPR chunks, an empty list: the other retrievers rank alone.
RankedList graph_passages(const GraphRetrieval& g);

/// The graph's ranked chunk lists for fusion with the hybrid results (their weights in
/// kFusionWeights): PPR, relation evidence, community summaries for broad questions, and for
/// questions of two parts the bridge hop from the retrievers' best chunks (filled in retrieval)
/// and the cross references between the documents those chunks lie in (filled in retrieval; its
/// head is vouched for: RankedList::vouched). The lists' heads confirm a retriever's chunk just below
/// the cut (RankedList::confirms) only for questions of two parts or across documents.
std::vector<RankedList> graph_lists(const GraphRetrieval& g);

}  // namespace mmkg
