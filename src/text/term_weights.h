// How informative a word is in a collection. The text layer weighs query terms through this
// interface; the index implements it (TermStats: IDF over the store's chunks), so text analysis
// never depends on the index (as Lucene's analysis package does not know IndexReader).
#pragma once

#include <string>

namespace mmkg {

class TermWeights {
 public:
  virtual ~TermWeights() = default;
  /// Inverse document frequency of a lower-cased word (higher: rarer). Not necessarily
  /// thread-safe; each thread uses its own instance.
  virtual double idf(const std::string& word) = 0;
};

}  // namespace mmkg
