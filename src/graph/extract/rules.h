// The rule-based extractor (extract_rules.cc) and termhood (termhood.cc): the graph's default
// extraction, with no model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/model/extractor.h"

namespace mmkg::graph {

/// The rule-based extractor (no model needed).
std::unique_ptr<Extractor> make_rule_extractor();

/// Ranks the terms of one document's extractions by a statistical termhood score (uses the
/// counts across the document and `idf(word)` from the corpus), sets TermCandidate::score,
/// drops terms below the threshold and the relations whose ends were dropped. Terms of kind
/// "llm" (a model chose them, and they occur in the text) are kept whatever their score.
void rank_terms(std::vector<ChunkExtraction>& document, const std::function<double(const std::string&)>& idf);

}  // namespace mmkg::graph
