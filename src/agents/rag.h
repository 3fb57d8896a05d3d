// RAG retriever: search per sub-query, de-duplicate, fuse ranks, cut to a context budget.
#pragma once

#include <string>
#include <vector>

#include "agents/planner.h"
#include "index/lexical.h"
#include "index/searcher.h"

namespace mmkg {

class Store;
class Trace;

struct RetrieveOptions {
  int k_per_query = 5;               ///< hits per sub-query
  size_t max_chunks = 8;             ///< chunks kept for the context
  size_t max_context_chars = 8000;   ///< budget for the context handed to synthesis
  SearchMode mode = SearchMode::Hybrid;  ///< retrieval per sub-query
  /// Context slots kept for chunks only the graph found (after the best max_chunks - graph_slots
  /// chunks of the sub-queries). Graph lists never reorder what the sub-queries found.
  size_t graph_slots = 2;
  /// Threads for the sub-queries' searches (0 = one per core; 1 = one after another, each
  /// query embedded alone: the sequential baseline).
  int parallel = 0;
};

/// A chunk chosen for the context.
struct Candidate {
  SearchHit hit;
  double fused = 0;              ///< reciprocal-rank-fusion score over sub-queries
  double graph = 0;              ///< the same over the graph's lists (RankedList)
  std::vector<int> subqueries;   ///< indices of the sub-queries that retrieved it
};

struct Retrieval {
  std::vector<Candidate> context;  ///< best first, within the budget
  size_t unique_chunks = 0;        ///< after de-duplication, before the budget
  size_t context_chars = 0;
};

/// A ranked list of chunk ids from another retriever (graph PPR, relation evidence). Lists are
/// fused among themselves by reciprocal rank with `weight`; see RetrieveOptions::graph_slots.
struct RankedList {
  std::string name;  ///< for the log: "graph: personalised PageRank"
  std::vector<std::string> chunk_ids;
  double weight = 0.5;
};

/// The hits in order, with up to max(1, k/5) chunks found only by the `extra` lists (ranked among
/// themselves by weighted reciprocal rank) placed after the best k - slots hits; best `k`.
std::vector<SearchHit> fuse_ranked(Store& store, std::vector<SearchHit> hits, const std::vector<RankedList>& extra,
                                   size_t k);

/// Runs every sub-query of `plan` (its FTS expression when given) and fuses in `extra` lists.
Retrieval retrieve(Store& store, Searcher& searcher, const Plan& plan, const RetrieveOptions& opt, Trace& trace,
                   const std::vector<RankedList>& extra = {});

}  // namespace mmkg
