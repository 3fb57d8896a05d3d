// Candidates and query terms for the context-budget tests (retrieve/context_budget.h) and the
// synthesizers that read a budgeted context (header-only; not part of the library).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "retrieve/context_budget.h"
#include "text/tokens.h"
#include "text/words.h"

namespace mmkg::context_fixture {

/// The mark a trimmed passage shows where sentences were left out.
inline const std::string kGap = "\xE2\x80\xA6";

inline Candidate cand(const std::string& id, const std::string& text, const std::string& doc = "notes.txt") {
  Candidate c;
  c.hit.chunk_id = id;
  c.hit.doc_id = "d-" + doc;
  c.hit.doc = doc;
  c.hit.text = text;
  return c;
}

inline std::vector<QueryTerm> terms(std::initializer_list<const char*> ws) {
  std::vector<QueryTerm> out;
  for (const char* w : ws) out.push_back({stem(w), 1.0});
  return out;
}

inline size_t tokens_whole(size_t n, Candidate c) {
  c.text = c.hit.text;
  return default_token_counter().count(format_passage(n, c));
}

// A chunk whose 2nd and 4th sentences are about the softmax; the others are filler.
inline const std::string kLong =
    "Transformers were introduced for machine translation in 2017. "
    "The numerically stable softmax subtracts the maximum score before exponentiating. "
    "Gardening requires patience, water and good soil for tomatoes to grow well in summer. "
    "Without that subtraction the softmax overflows when some scores are very large. "
    "Many later models reuse the same encoder and decoder blocks with small changes.";

}  // namespace mmkg::context_fixture
