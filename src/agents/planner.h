// Planner: turns a question into sub-queries (rules; an LLM planner plugs in later).
#pragma once

#include <string>
#include <vector>

namespace mmkg {

class TermStats;

struct Plan {
  std::vector<std::string> subqueries;  ///< the question itself first, then key phrases
};

/// Rule-based plan: the question plus up to `max_phrases` key phrases (maximal runs of content
/// words, ranked by their summed IDF in the collection).
Plan plan_rules(const std::string& question, TermStats& stats, size_t max_phrases = 3);

}  // namespace mmkg
