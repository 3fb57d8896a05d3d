// Vector index over chunk embeddings (FAISS): exact inner product while small, HNSW once large.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mmkg {

struct VectorIndexOptions {
  int dim = 384;
  /// Above this many vectors the index is (re)built as HNSW; below it, exact (flat) search.
  /// 200,000 because Debian's FAISS builds HNSW slowly (409 s for 100k vectors on the 2-core
  /// benchmark machine) while exact search at 200k costs ~35 ms a query (docs/BENCHMARKS.md).
  int64_t hnsw_threshold = 200000;
  int hnsw_m = 32;                ///< HNSW graph degree
  int hnsw_ef_construction = 80;  ///< HNSW build breadth
  int hnsw_ef_search = 96;        ///< HNSW search breadth
};

/// Ids are chunk row ids (int64). Vectors are L2-normalised, so inner product = cosine.
class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  /// Adds n vectors (ids.size() == n, vecs has n * dim floats). An id already present is replaced.
  virtual void add(const std::vector<int64_t>& ids, const float* vecs) = 0;
  /// Removes ids (absent ids are ignored).
  virtual void remove(const std::vector<int64_t>& ids) = 0;
  /// Top-k (id, cosine) for one query vector, best first.
  virtual std::vector<std::pair<int64_t, float>> search(const float* query, int k) const = 0;
  virtual int64_t size() const = 0;
  virtual int dim() const = 0;
  /// "flat" or "hnsw".
  virtual std::string kind() const = 0;
  /// Writes the index to `path` atomically (temp file + rename), with a versioned header that
  /// records `tag` (what the index was built from, for staleness checks).
  virtual void save(const std::string& path, const std::string& tag) const = 0;
};

std::unique_ptr<VectorIndex> make_vector_index(const VectorIndexOptions& opt);

/// Loads an index saved by save(). Returns nullptr when the file is missing; throws IOError for a
/// file with a wrong magic, an unknown version or corrupt contents. `tag` receives the saved tag.
std::unique_ptr<VectorIndex> load_vector_index(const std::string& path, const VectorIndexOptions& opt,
                                               std::string* tag);

}  // namespace mmkg
