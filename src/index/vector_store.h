// Keeps the FAISS index file of a store in step with the embeddings in SQLite.
// SQLite is the source of truth (vectors are written in the document's transaction); the index
// file `<store>/vectors.idx` is a derived cache tagged with the model and the store generation
// it reflects, updated incrementally after ingest and rebuilt whenever it is missing, corrupt
// or stale (e.g. after a kill between the commit and the index save).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/vector_index.h"

namespace mmkg {

class Store;

struct VectorIndexStatus {
  bool rebuilt = false;     ///< built from scratch (missing, corrupt or stale file)
  bool stale = false;       ///< an older generation's file, used as it is (allow_stale)
  bool updated = false;     ///< incremental update applied
  std::string reason;       ///< why it was rebuilt
  int64_t vectors = 0;
};

/// Path of the index file for a store directory.
std::string vector_index_path(const std::string& store_dir);

/// Opens the store's index for `model`, rebuilding it from SQLite when the file is missing,
/// corrupt, of another model/dimension, or older than the store's generation. With
/// `allow_stale`, an older generation's file of the same model is used as it is (status->stale):
/// for a reader while a writer is about to save the index (the server during an ingest job),
/// which then misses the newest chunks on the dense side (BM25 has them) instead of rebuilding.
std::unique_ptr<VectorIndex> open_vector_index(Store& store, const std::string& model, int dim,
                                               const VectorIndexOptions& base = {},
                                               VectorIndexStatus* status = nullptr, bool allow_stale = false);

/// After a batch of writes that moved the store from generation `gen_before` to now: if the file
/// reflects `gen_before`, removes `removed` and adds `added` row ids (their vectors are read from
/// SQLite) and saves; otherwise rebuilds.
VectorIndexStatus update_vector_index(Store& store, const std::string& model, int dim, int64_t gen_before,
                                      const std::vector<int64_t>& added, const std::vector<int64_t>& removed,
                                      const VectorIndexOptions& base = {});

}  // namespace mmkg
