// Small builders for graph-algorithm tests over an in-memory GraphSnapshot (graph/algo).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/model/graph_types.h"

namespace mmkg::graph::testing {

/// Entity `e` mentioned once in `chunk` of document `doc`.
inline Mention mention_at(const std::string& e, const std::string& chunk, const std::string& doc) {
  Mention m;
  m.entity_id = e;
  m.chunk_id = chunk;
  m.doc_id = doc;
  return m;
}

/// The ids of a ranked (id, score) list, in order.
inline std::vector<std::string> ranked_ids(const std::vector<std::pair<std::string, double>>& ranked) {
  std::vector<std::string> out;
  for (const auto& [id, s] : ranked) out.push_back(id);
  return out;
}

}  // namespace mmkg::graph::testing
