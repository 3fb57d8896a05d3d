#include "index/vector_store.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "store/store.h"

namespace mmkg {

namespace {

// Settings from the environment: MMKG_HNSW_THRESHOLD (vectors above which the index is HNSW) and
// MMKG_HNSW_EF_SEARCH (HNSW search breadth: recall against latency).
VectorIndexOptions with_env(VectorIndexOptions opt) {
  if (const char* t = std::getenv("MMKG_HNSW_THRESHOLD"); t && *t) opt.hnsw_threshold = std::atoll(t);
  if (const char* e = std::getenv("MMKG_HNSW_EF_SEARCH"); e && *e) opt.hnsw_ef_search = std::atoi(e);
  return opt;
}

std::string tag_for(const std::string& model, int64_t generation) {
  return model + "@" + std::to_string(generation);
}

std::unique_ptr<VectorIndex> rebuild(Store& store, const std::string& model, const VectorIndexOptions& opt) {
  auto idx = make_vector_index(opt);
  // Add in batches to bound the temporary buffer.
  const size_t kBatch = 4096;
  std::vector<int64_t> ids;
  std::vector<float> buf;
  auto flush = [&]() {
    if (ids.empty()) return;
    idx->add(ids, buf.data());
    ids.clear();
    buf.clear();
  };
  store.for_each_vector(model, [&](int64_t rowid, const float* v, size_t dim) {
    if (static_cast<int>(dim) != opt.dim) return;  // a vector of another dimension: ignore
    ids.push_back(rowid);
    buf.insert(buf.end(), v, v + dim);
    if (ids.size() >= kBatch) flush();
  });
  flush();
  return idx;
}

}  // namespace

std::string vector_index_path(const std::string& store_dir) {
  return (std::filesystem::path(store_dir) / "vectors.idx").string();
}

std::unique_ptr<VectorIndex> open_vector_index(Store& store, const std::string& model, int dim,
                                               const VectorIndexOptions& base, VectorIndexStatus* status,
                                               bool allow_stale) {
  VectorIndexOptions opt = with_env(base);
  opt.dim = dim;
  std::string path = vector_index_path(store.dir());
  std::string want = tag_for(model, store.generation());
  std::string tag, reason;
  std::unique_ptr<VectorIndex> idx;
  try {
    idx = load_vector_index(path, opt, &tag);
    if (!idx) reason = "no index file";
    else if (tag != want) reason = "index is stale (" + tag + ", store is " + want + ")";
  } catch (const Error& e) {
    reason = e.what();
  }
  if (idx && reason.empty()) {
    if (status) status->vectors = idx->size();
    return idx;
  }
  if (idx && allow_stale && idx->dim() == dim && tag.rfind(model + "@", 0) == 0) {
    if (status) {
      status->stale = true;
      status->reason = reason;
      status->vectors = idx->size();
    }
    return idx;
  }
  idx = rebuild(store, model, opt);
  std::string unsaved;
  try {
    idx->save(path, want);
  } catch (const Error& e) {
    // A read-only store still searches with the in-memory index; the status says it was not kept.
    unsaved = std::string("; not saved: ") + e.what();
  }
  if (status) {
    status->rebuilt = true;
    status->reason = reason + unsaved;
    status->vectors = idx->size();
  }
  return idx;
}

VectorIndexStatus update_vector_index(Store& store, const std::string& model, int dim, int64_t gen_before,
                                      const std::vector<int64_t>& added, const std::vector<int64_t>& removed,
                                      const VectorIndexOptions& base) {
  VectorIndexStatus st;
  VectorIndexOptions opt = with_env(base);
  opt.dim = dim;
  std::string path = vector_index_path(store.dir());
  std::string tag;
  std::unique_ptr<VectorIndex> idx;
  try {
    idx = load_vector_index(path, opt, &tag);
  } catch (const Error&) {
    idx.reset();
  }
  if (!idx || tag != tag_for(model, gen_before)) {
    open_vector_index(store, model, dim, base, &st);
    return st;
  }
  if (!removed.empty()) idx->remove(removed);
  std::vector<int64_t> ids;
  std::vector<float> buf;
  store.for_each_vector(model, [&](int64_t rowid, const float* v, size_t d) {
    if (static_cast<int>(d) != dim) return;
    ids.push_back(rowid);
    buf.insert(buf.end(), v, v + d);
  }, &added);
  if (!ids.empty()) idx->add(ids, buf.data());
  idx->save(path, tag_for(model, store.generation()));
  st.updated = true;
  st.vectors = idx->size();
  return st;
}

}  // namespace mmkg
