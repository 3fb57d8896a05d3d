// Typed relation patterns and defining sentences for the rule-based extractor, over one analysed
// sentence (terms.h) and the term mentions found in it. Internal to src/graph.
#pragma once

#include <vector>

#include "graph/extract/terms.h"

namespace mmkg::graph::rules {

/// A term mentioned in a sentence: tokens [first, last) name term number `term`.
struct Mention {
  int first = 0, last = 0;
  int term = -1;
};

struct TypedRelation {
  int src = -1, dst = -1;  ///< term numbers
  const char* type = "";   ///< is_a | part_of | uses | extends | proposes | compared_with
};

/// Finds the typed relations of sentence `s` between its `mentions` (maximal, in token order).
/// `title_term` is the term number of the document title (the source of "we propose X"), or -1
/// to skip those.
void typed_relations(const Sentence& s, const std::vector<Mention>& mentions, int title_term,
                     std::vector<TypedRelation>& out);

/// Term numbers that sentence `s` defines: "X is a/an ...", "X refers to ...", "X is defined
/// as ...", "X, which is ...", "X (Y) is a ..." (both X and Y).
void defined_terms(const Sentence& s, const std::vector<Mention>& mentions, std::vector<int>& out);

}  // namespace mmkg::graph::rules
