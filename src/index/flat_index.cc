// Exact (flat) inner-product backend: FAISS IndexIDMap2 over IndexFlatIP. One query scans every
// vector (single-threaded, FAISS's SSE kernels): about 0.17 us per vector at 384 dimensions on the
// benchmark machine, so it serves small stores; vector_index.cc switches to HNSW above a threshold.
//
// File body (kind 0; the same in format versions 1 and 2):
//   u64 blob_len  blob: faiss::write_index of the IndexFlatIP (no IndexIDMap2 wrapper)
//   u64 n_labels  i64[n_labels]   (position -> row id)
//   u64 n_dead    (always 0; version 1 used it for FAISS HNSW tombstones)
// The ids are stored here rather than through FAISS's IndexIDMap2 reader, which trusts its ntotal
// field when rebuilding the reverse map; here they are validated.
#include <faiss/IndexFlat.h>
#include <faiss/IndexIDMap.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "index/index_backend.h"

namespace mmkg {
namespace {

using idx_t = faiss::Index::idx_t;

/// faiss::IOReader over a byte range (no copy of the file contents).
struct SpanReader : faiss::IOReader {
  SpanReader(const char* data, size_t size) : data(data), size(size) {}
  size_t operator()(void* ptr, size_t item, size_t nitems) override {
    if (item == 0 || nitems == 0) return 0;
    size_t avail = (size - pos) / item;
    size_t n = std::min(nitems, avail);
    std::memcpy(ptr, data + pos, n * item);
    pos += n * item;
    return n;
  }
  const char* data;
  size_t size;
  size_t pos = 0;
};

/// Runs FAISS single-threaded in the calling thread for its lifetime. One query is searched by one
/// thread anyway; without this, FAISS still opens an OpenMP team per query and waits for its other
/// threads to be scheduled, which costs milliseconds on a busy machine. (The setting is per thread.)
class SingleThreadedOmp {
 public:
  SingleThreadedOmp() : prev_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedOmp() { omp_set_num_threads(prev_); }
  SingleThreadedOmp(const SingleThreadedOmp&) = delete;
  SingleThreadedOmp& operator=(const SingleThreadedOmp&) = delete;

 private:
  int prev_;
};

/// FAISS reports failures (allocation, internal checks) with FaissException: turn them into mmkg
/// errors.
template <class F>
void faiss_guard(const char* op, F&& f) {
  try {
    f();
  } catch (const faiss::FaissException& e) {
    throw Error(std::string("cannot ") + op + " the vector index: FAISS: " + e.what());
  }
}

class FlatIndex final : public IndexBackend {
 public:
  explicit FlatIndex(int dim) : dim_(dim), idx_(new faiss::IndexFlatIP(dim)) { idx_.own_fields = true; }

  void add(const std::vector<int64_t>& ids, const float* vecs) override {
    faiss_guard("add to", [&] {
      remove_present(ids);
      idx_.add_with_ids(static_cast<idx_t>(ids.size()), vecs, ids.data());
    });
  }
  void remove(const std::vector<int64_t>& ids) override {
    faiss_guard("remove from", [&] { remove_present(ids); });
  }
  std::vector<std::pair<int64_t, float>> search(const float* query, int k) const override {
    std::vector<std::pair<int64_t, float>> out;
    if (!query || k <= 0 || idx_.ntotal == 0) return out;
    const idx_t kk = std::min<idx_t>(k, idx_.ntotal);
    std::vector<float> D(kk);
    std::vector<idx_t> I(kk);
    faiss_guard("search", [&] {
      SingleThreadedOmp one_thread;
      idx_.search(1, query, kk, D.data(), I.data());
    });
    out.reserve(kk);
    for (idx_t i = 0; i < kk; ++i)
      if (I[i] >= 0) out.emplace_back(I[i], D[i]);
    return out;
  }
  int64_t size() const override { return idx_.ntotal; }
  int dim() const override { return dim_; }
  VectorIndexKind kind() const override { return VectorIndexKind::Flat; }

  void live_vectors(std::vector<int64_t>* ids, std::vector<float>* vecs) const override {
    const float* xb = static_cast<const faiss::IndexFlat*>(idx_.index)->get_xb();
    ids->assign(idx_.id_map.begin(), idx_.id_map.end());
    if (vecs) vecs->assign(xb, xb + static_cast<size_t>(idx_.ntotal) * dim_);
  }

  void save(const std::string& path, const std::string& tag) const override {
    faiss::VectorIOWriter blob;
    try {
      faiss::write_index(idx_.index, &blob);
    } catch (const faiss::FaissException& e) {
      throw IOError("cannot serialise vector index for " + path + ": " + e.what());
    }
    vecfile::save(path, vecfile::kKindFlat, dim_, static_cast<uint64_t>(size()), tag, [&](vecfile::Writer& f) {
      f.put<uint64_t>(blob.data.size());
      f.write(blob.data.data(), blob.data.size());
      f.put<uint64_t>(idx_.id_map.size());
      f.write(idx_.id_map.data(), idx_.id_map.size() * sizeof(int64_t));
      f.put<uint64_t>(0);
    });
  }

  /// Takes over a loaded IndexFlatIP's vectors and the id table; false when inconsistent.
  bool adopt(faiss::IndexFlat& flat, std::vector<int64_t> labels) {
    auto* inner = static_cast<faiss::IndexFlat*>(idx_.index);
    inner->codes.swap(flat.codes);
    inner->ntotal = flat.ntotal;
    idx_.ntotal = flat.ntotal;
    idx_.id_map = std::move(labels);
    idx_.construct_rev_map();
    return idx_.rev_map.size() == idx_.id_map.size();
  }

 private:
  void remove_present(const std::vector<int64_t>& ids) {
    std::vector<idx_t> present;
    for (int64_t id : ids)
      if (idx_.rev_map.count(id)) present.push_back(id);
    if (present.empty()) return;
    faiss::IDSelectorBatch sel(present.size(), present.data());
    idx_.remove_ids(sel);
  }

  int dim_;
  faiss::IndexIDMap2 idx_;
};

}  // namespace

std::unique_ptr<IndexBackend> make_flat_index(int dim) { return std::make_unique<FlatIndex>(dim); }

std::unique_ptr<IndexBackend> load_flat_index(int dim, const vecfile::Loaded& f) {
  vecfile::Cursor c{f.body, f.body_size};
  auto blob_len = c.get<uint64_t>();
  const char* blob_p = c.skip(blob_len);
  auto n_labels = c.get<uint64_t>();
  const char* labels_p = c.skip_items(n_labels, sizeof(int64_t));
  auto n_dead = c.get<uint64_t>();
  c.skip_items(n_dead, sizeof(int64_t));
  if (!c.ok) f.bad("a section runs past the end of the file");
  if (c.pos != c.size) f.bad("unexpected bytes after the id table");
  if (n_dead != 0) f.bad("a flat index has tombstones");

  std::unique_ptr<faiss::Index> index;
  try {
    SpanReader reader(blob_p, blob_len);
    index.reset(faiss::read_index(&reader));
    if (reader.pos != blob_len) f.bad("unexpected bytes after the FAISS index");
  } catch (const IOError&) {
    throw;
  } catch (const std::bad_alloc&) {
    f.bad("FAISS index sizes are implausible");
  } catch (const std::exception& e) {
    f.bad(std::string("FAISS cannot read it: ") + e.what());
  }
  auto* flat = dynamic_cast<faiss::IndexFlat*>(index.get());
  if (!flat || flat->d != dim || !flat->is_trained || flat->metric_type != faiss::METRIC_INNER_PRODUCT ||
      flat->ntotal < 0 || flat->code_size != sizeof(float) * static_cast<size_t>(dim) ||
      flat->codes.size() != static_cast<size_t>(flat->ntotal) * flat->code_size)
    f.bad("a flat index holds an unexpected FAISS type or size");
  if (static_cast<uint64_t>(flat->ntotal) != f.count || n_labels != f.count)
    f.bad("the vector count does not match the header");
  std::vector<int64_t> labels(n_labels);
  if (n_labels) std::memcpy(labels.data(), labels_p, n_labels * sizeof(int64_t));
  for (int64_t id : labels)
    if (id < 0) f.bad("it has a negative id");
  auto out = std::make_unique<FlatIndex>(dim);
  if (!out->adopt(*flat, std::move(labels))) f.bad("it has duplicate ids");
  return out;
}

}  // namespace mmkg
