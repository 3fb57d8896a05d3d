// A full-text index outside the store (Neo4j's, when the graph lives there) that can serve the
// lexical side of search instead of the store's FTS5 index, as VectorBackend does for the dense
// side. The graph layer adapts its Neo4j store to this interface, so the index layer never
// includes the graph's headers.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mmkg {

class LexicalBackend {
 public:
  virtual ~LexicalBackend() = default;
  /// Its name in `search --json`'s "lexical_backend" ("neo4j").
  virtual std::string name() const = 0;
  /// The k chunks that best match `match`, an FTS5 MATCH expression of the subset mmkg builds
  /// (fts_query(), the planner's `"g" AND (...)` and `NEAR("x" "is", 2)`): (chunk id, score,
  /// higher is better), best first. Throws UsageError for syntax outside that subset. Called
  /// from one thread at a time.
  virtual std::vector<std::pair<std::string, double>> text_search(const std::string& match, int k) = 0;
};

}  // namespace mmkg
