// A question's terms: its distinct content-word stems weighted by IDF. Shared by the extractive
// synthesizer (which sentences answer), the context budget (which sentences a trimmed chunk
// keeps) and the lexical reranker (which passages cover the question).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

class TermWeights;

struct QueryTerm {
  std::string stem;
  double idf = 0;  ///< at least 0.05, so that common words still count a little
};

/// Distinct content-word stems of `text` with their IDF over the store's chunks; all its words
/// when every word is a stop word ("who is it?").
std::vector<QueryTerm> query_terms(std::string_view text, TermWeights& stats);

/// query_terms with each word of general English (CommonWords::common: "field", "draw",
/// "patient") weighted kGeneralWordWeight: how a question paraphrases, while its domain words
/// name what a passage that answers must hold. Used to judge which sentences answer.
std::vector<QueryTerm> answer_terms(std::string_view text, TermWeights& stats);
inline constexpr double kGeneralWordWeight = 0.4;
/// kGeneralWordWeight for a word of general English, 1 for any other (and for every word when
/// WordNet's cntlist is missing).
double general_word_weight(std::string_view lower_word);

/// The terms of several texts (the sub-queries of a plan), each stem once with its largest weight.
std::vector<QueryTerm> query_terms(const std::vector<std::string>& texts, TermWeights& stats);

/// Stems of every word of `text` (stop words included).
std::set<std::string> stem_set(std::string_view text);

/// IDF-weighted share (0..1) of `terms` whose stem is in `stems`.
double term_coverage(const std::set<std::string>& stems, const std::vector<QueryTerm>& terms);

}  // namespace mmkg
