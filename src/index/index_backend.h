// The backends behind make_vector_index / load_vector_index (vector_index.cc picks one by size):
// flat_index.cc (FAISS, exact inner product) and hnsw_index.cc (hnswlib HNSW, approximate).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "index/vector_file.h"
#include "index/vector_index.h"

namespace mmkg {

/// A VectorIndex backend. add() receives unique, non-negative ids and non-null vectors (the
/// policy in vector_index.cc checks and de-duplicates a batch first).
class IndexBackend : public VectorIndex {
 public:
  /// Every live (id, vector), in no particular order: to move the vectors to another backend.
  /// `vecs` may be null (the ids alone).
  virtual void live_vectors(std::vector<int64_t>* ids, std::vector<float>* vecs) const = 0;
  std::vector<int64_t> ids() const override {
    std::vector<int64_t> out;
    live_vectors(&out, nullptr);
    return out;
  }
};

std::unique_ptr<IndexBackend> make_flat_index(int dim);
/// From a file's body (kind vecfile::kKindFlat, version 1 or 2); calls f.bad() when inconsistent.
std::unique_ptr<IndexBackend> load_flat_index(int dim, const vecfile::Loaded& f);

std::unique_ptr<IndexBackend> make_hnsw_index(const VectorIndexOptions& opt);
/// From a file's body (kind vecfile::kKindHnsw); calls f.bad() when inconsistent.
std::unique_ptr<IndexBackend> load_hnsw_index(const VectorIndexOptions& opt, const vecfile::Loaded& f);

}  // namespace mmkg
