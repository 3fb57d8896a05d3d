// Planner: turns a question into sub-queries (rules; an LLM planner plugs in later).
#pragma once

#include <string>
#include <vector>

namespace mmkg {

class TermStats;

struct Plan {
  std::vector<std::string> subqueries;  ///< the question itself first, then key phrases
  /// FTS5 expressions parallel to `subqueries`; empty means "derive from the text" (fts_query).
  std::vector<std::string> matches;
  std::string definiendum;              ///< X of "what is X?" questions, else empty
};


/// Rule-based plan: the question plus up to `max_phrases` key phrases (maximal runs of content
/// words, ranked by their summed IDF in the collection).
Plan plan_rules(const std::string& question, TermStats& stats, size_t max_phrases = 3);

}  // namespace mmkg
