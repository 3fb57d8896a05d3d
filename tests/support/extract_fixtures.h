// Helpers for unit tests only: a document of given chunk texts run through the rule extractor
// and rank_terms, as graph_builder.cc does for a stored document.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "graph/extract/rules.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"

namespace mmkg::testing {

/// The extractions of `chunks` (ids "c0", "c1", ...), ranked with `idf`.
inline std::vector<graph::ChunkExtraction> ranked_document(const std::vector<std::string>& chunks,
                                                           const std::function<double(const std::string&)>& idf) {
  auto ex = graph::make_rule_extractor();
  std::vector<graph::ChunkExtraction> doc;
  for (size_t i = 0; i < chunks.size(); ++i) {
    graph::ExtractInput in;
    in.chunk_id = "c" + std::to_string(i);
    in.text = chunks[i];
    doc.push_back(ex->extract(in));
  }
  graph::rank_terms(doc, idf);
  return doc;
}

/// The name keys of the terms rank_terms keeps of that document.
inline std::set<std::string> kept_term_keys(const std::vector<std::string>& chunks,
                                            const std::function<double(const std::string&)>& idf) {
  std::set<std::string> kept;
  for (const auto& c : ranked_document(chunks, idf))
    for (const auto& t : c.terms) kept.insert(graph::name_key(t.surface));
  return kept;
}

}  // namespace mmkg::testing
