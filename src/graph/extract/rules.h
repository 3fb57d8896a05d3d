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

/// A section's subject (a document's or section's heading names the entity the passage is about:
/// "Lothair II", "set terminal"): to the first chunk of each section (`heading_paths`, parallel
/// to `document`) adds its heading, the last part of the heading path with a section number
/// dropped, as a term of kind "heading" with the chunk's best score, when the heading reads as
/// a name (1 to 8 words, at most 100 bytes, no sentence punctuation, not a generic section name
/// such as "Introduction") and the chunk has no term of that name_key yet. Ranked terms come
/// first (rank_terms): the subject is kept whatever its termhood.
void add_section_subjects(std::vector<ChunkExtraction>& document, const std::vector<std::string>& heading_paths);

}  // namespace mmkg::graph
