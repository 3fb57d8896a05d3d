// A vector index outside the store (Neo4j's, when the graph lives there) that can serve the dense
// side of search instead of the store's FAISS index. The graph layer adapts its Neo4j store to
// this interface, so the index layer never includes the graph's headers.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mmkg {

class VectorBackend {
 public:
  virtual ~VectorBackend() = default;
  /// Its name in `search --json`'s "dense_backend" ("neo4j").
  virtual std::string name() const = 0;
  /// The k chunks nearest to `query` by cosine: (chunk id, cosine in [-1, 1]), best first.
  /// Called from one thread at a time.
  virtual std::vector<std::pair<std::string, double>> vector_search(const std::vector<float>& query, int k) = 0;
};

}  // namespace mmkg
