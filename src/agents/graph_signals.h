// The graph's signals for the fitted ranker (Fusion::Fitted; index/ranker.h GraphLink,
// GraphPpr, GraphBridge): for each candidate of a hybrid pool, how much of the question's
// linked entities it mentions, its personalised PageRank mass from them, and for a question of
// several parts its bridge-entity score from the lists' first hits. They put the graph's
// evidence into the one ranking model, so cross-validation weighs it (docs/EVAL.md "Graph
// signals in the fitted ranker") instead of a hand-set fusion weight.
#pragma once

#include <string_view>
#include <vector>

#include "agents/graph_retriever.h"
#include "index/ranker.h"
#include "index/search_hit.h"

namespace mmkg {

/// Fills sig.graph_link, sig.graph_ppr and sig.graph_bridge for `pool` (sig.bm25_rank and
/// sig.dense_rank already set: for a question of two or more `parts` the bridge hop starts from
/// each list's first 3 hits). An empty
/// graph or a question that links no entity leaves GraphLink and GraphPpr 0. Not thread-safe
/// (the entity index embeds): callers serialise.
void graph_pool_signals(GraphContext& g, std::string_view question, size_t parts, const std::vector<SearchHit>& pool,
                        PoolSignals& sig);

}  // namespace mmkg
