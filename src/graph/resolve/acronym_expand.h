// Query expansion with the corpus's own acronyms. A question often names a thing in words the
// documents only abbreviate: "cumulative-sum tests" where the text always says "CUSUM test" and
// never spells it out. Neither BM25 nor a small sentence encoder sees that the two are one thing.
// The graph knows the acronyms the corpus uses and which of them it defines ("heteroskedasticity
// and autocorrelation consistent (HAC)"): resolution joined those with their expansions. For an
// acronym it never defines, a phrase of the question whose words spell it gets it written in,
// the way a text would define it: "cumulative-sum (CUSUM) tests".
//
// Acronyms the corpus does define are not written in, nor are their expansions: the passages
// that define them already match the question's own words, and an added form would lift the
// passages that merely use it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/model/graph_types.h"

namespace mmkg::graph {

class AcronymExpander {
 public:
  AcronymExpander() = default;
  /// Reads every entity's aliases. An acronym alias (looks_like_acronym; letters only, upper
  /// case, 4+ letters) is undefined when no entity has it with a multi-word alias it
  /// abbreviates (is_acronym_of or loosely_abbreviates).
  explicit AcronymExpander(const std::vector<Entity>& entities);

  /// `question` with each undefined acronym that a phrase of it spells (spelled_by_prefixes)
  /// written in parentheses after the phrase: "cumulative sum" → "cumulative sum (CUSUM)",
  /// "moving sums" → MOSUM. Nothing is added when the question has the acronym already.
  /// Unchanged when the expander is empty.
  std::string expand(std::string_view question) const;

  size_t undefined() const { return undefined_.size(); }
  bool empty() const { return undefined_.empty(); }

 private:
  std::vector<std::string> undefined_;
};

/// True when the words of a phrase (lower case) spell `acronym`: each word gives a non-empty
/// prefix of itself, in order, and nothing is left over ("cumulative sum" for CUSUM, "analysis
/// of variance" for ANOVA). The phrase has 2+ words and neither opens nor ends with a stop word.
/// An acronym of under five letters must be the initials, one per word ("ordinary least
/// squares" for OLS; not "sandwich standard" for SAS).
bool spelled_by_prefixes(std::string_view acronym, const std::vector<std::string>& lower_words);

}  // namespace mmkg::graph
