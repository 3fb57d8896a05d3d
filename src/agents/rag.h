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
};

/// A chunk chosen for the context.
struct Candidate {
  SearchHit hit;
  double fused = 0;              ///< reciprocal-rank-fusion score over sub-queries
  std::vector<int> subqueries;   ///< indices of the sub-queries that retrieved it
};

struct Retrieval {
  std::vector<Candidate> context;  ///< best first, within the budget
  size_t unique_chunks = 0;        ///< after de-duplication, before the budget
  size_t context_chars = 0;
};

/// A ranked list of chunk ids from another retriever (graph PPR, relation evidence), fused with
/// the sub-queries' lists by reciprocal rank with `weight` (a sub-query weighs 0.7, the question 1).
struct RankedList {
  std::string name;  ///< for the log: "graph: personalised PageRank"
  std::vector<std::string> chunk_ids;
  double weight = 0.5;
};

/// Fuses one ranked list of hits (weight 1) with `extra` lists by reciprocal rank; best `k`.
std::vector<SearchHit> fuse_ranked(Store& store, std::vector<SearchHit> hits, const std::vector<RankedList>& extra,
                                   size_t k);

/// Runs every sub-query of `plan` (its FTS expression when given) and fuses in `extra` lists.
Retrieval retrieve(Store& store, Searcher& searcher, const Plan& plan, const RetrieveOptions& opt, Trace& trace,
                   const std::vector<RankedList>& extra = {});

}  // namespace mmkg
