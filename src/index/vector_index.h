// Vector index over chunk embeddings: exact inner product (FAISS flat, flat_index.cc) while small,
// HNSW (hnswlib, hnsw_index.cc) once large. The policy that switches between them is in
// vector_index.cc; the file format in vector_file.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mmkg {

struct VectorIndexOptions {
  int dim = 384;
  /// Above this many vectors the index is HNSW; below it, exact (flat) search, which at this size
  /// costs about one query embedding. It goes back to flat when removals bring it below half of
  /// this. The timings behind it: bench/results/history/BENCHMARKS-moved-20261203.md.
  int64_t hnsw_threshold = 20000;
  int hnsw_m = 16;                 ///< HNSW graph degree (M; level 0 has 2 M links)
  int hnsw_ef_construction = 100;  ///< HNSW build breadth
  /// HNSW search breadth (at least k is used); its recall and latency at 100k and 1M vectors:
  /// bench/results/history/BENCHMARKS-moved-20261203.md.
  int hnsw_ef_search = 256;
  int hnsw_threads = 0;            ///< threads for an HNSW add (0: one per core)
};

/// How a vector index searches: every vector (exact), or an HNSW graph (approximate).
enum class VectorIndexKind { Flat, Hnsw };
/// "flat" or "hnsw".
const char* vector_index_kind_name(VectorIndexKind k);

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
  /// Every id in the index, in no particular order (`mmkg check` compares them with the store).
  virtual std::vector<int64_t> ids() const = 0;
  virtual int dim() const = 0;
  virtual VectorIndexKind kind() const = 0;
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
