// Entity types from cues in the text, for the rule-based extractor: the type noun a name is
// written with ("the ImageNet dataset", "the R package mgcv", "Stanford University"), citation
// shapes that mark people ("Vaswani et al.", "(Smith, 2019)", "Smith (2019)"), and an apposition
// or copula with a type noun ("X, a method for ...", "X is a metric ..."). Acronyms defined with a
// type noun ("Mean Squared Error (MSE)") are typed by the extractor with type_of_head().
// Internal to src/graph.
#pragma once

#include <string_view>
#include <vector>

#include "graph/extract/patterns.h"
#include "graph/extract/terms.h"

namespace mmkg::graph::rules {

/// The entity type a head noun names: "dataset"/"corpus"/"benchmark" → "dataset", "model" →
/// "model", "method"/"algorithm" → "method", "metric"/"score" → "metric", "package"/"library" →
/// "software", "university"/"institute" → "organization"; "" for any other word.
std::string_view type_of_head(std::string_view lower_word);

/// A typed token span [first, last) of one sentence.
struct TypeCue {
  int first = 0, last = 0;
  std::string_view type;
};

/// Type cues of sentence `s` (analysed, phrases chunked) with its term mentions (token order).
void type_cues(const Sentence& s, const std::vector<Mention>& mentions, std::vector<TypeCue>& out);

}  // namespace mmkg::graph::rules
