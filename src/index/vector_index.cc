// FAISS-backed VectorIndex: exact inner product (IndexIDMap2 over IndexFlatIP) while small, HNSW
// (IndexHNSWFlat, inner product) once the index grows past `hnsw_threshold`.
//
// Thread-safety: search(), size(), dim(), kind() and save() are const and may run concurrently from
// several threads. add() and remove() mutate the index and must not run concurrently with anything
// else (the caller holds an exclusive lock or a single writer thread).
//
// HNSW mode. FAISS's HNSW cannot remove vectors, so the HNSW index stores vectors under internal
// (sequential) ids, `labels_` maps internal id -> chunk row id, and removed or replaced vectors are
// tombstoned (`dead_`). Searches skip tombstones through an IDSelector (FAISS filters during the
// graph walk, so no over-fetch is needed); the graph keeps them as routing nodes. When tombstones
// exceed 20% of the stored vectors the HNSW graph is rebuilt from the live vectors (read back from
// the HNSW's flat storage, which holds the raw vectors; no second copy is kept). When the live size
// falls below hnsw_threshold / 2 the index goes back to exact flat search.
//
// File format (little-endian, as written by x86-64 / arm64):
//   "MMKGVEC\0"  u32 version (1)  u32 dim  u32 kind (0 flat, 1 hnsw)  u64 count (live vectors)
//   u32 tag_len  tag bytes
//   u64 blob_len  blob: faiss::write_index of the FAISS index (IndexFlatIP or IndexHNSWFlat)
//   u64 n_labels  i64[n_labels]   (position in the FAISS index -> row id)
//   u64 n_dead    i64[n_dead]     (hnsw: tombstoned positions; flat: none)
//   u64 XXH3_64bits of every preceding byte
// The flat index is stored without its IndexIDMap2 wrapper (ids go in the labels table): FAISS's
// IndexIDMap2 reader trusts its ntotal field when rebuilding the reverse map, so a damaged file
// could make it read out of bounds; the ids are validated here instead. The checksum is verified
// before FAISS parses anything, and the parsed structures (HNSW graph included) are checked so that
// even a crafted file with a valid checksum cannot make a search read out of bounds. FAISS's reader
// may still allocate up to its own limits for such a file.
//
// If add() or remove() throws (out of memory during a rebuild), the index stays usable and holds
// every vector it held before, except that ids of a failed add() batch may be missing.
#include "index/vector_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/HNSW.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <unordered_map>

#include "core/error.h"

namespace mmkg {
namespace {

using idx_t = faiss::Index::idx_t;

constexpr char kMagic[8] = {'M', 'M', 'K', 'G', 'V', 'E', 'C', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kKindFlat = 0;
constexpr uint32_t kKindHnsw = 1;
/// Rebuild the HNSW graph when more than this fraction of its stored vectors are tombstones.
constexpr double kMaxDeadFraction = 0.2;

/// Accepts the internal ids that are not tombstoned.
struct LiveSelector : faiss::IDSelector {
  explicit LiveSelector(const std::vector<uint8_t>& dead) : dead(dead) {}
  bool is_member(idx_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < dead.size() && !dead[id];
  }
  const std::vector<uint8_t>& dead;
};

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

std::string errno_text() { return std::strerror(errno); }

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

/// The flat storage holds exactly ntotal float vectors of dimension d.
bool flat_storage_ok(const faiss::Index* idx, int d) {
  auto* f = dynamic_cast<const faiss::IndexFlat*>(idx);
  return f && f->d == d && f->is_trained && f->metric_type == faiss::METRIC_INNER_PRODUCT && f->ntotal >= 0 &&
         f->code_size == sizeof(float) * static_cast<size_t>(d) &&
         f->codes.size() == static_cast<size_t>(f->ntotal) * f->code_size;
}

/// Structural check of a deserialised HNSW graph, so that a damaged file whose checksum still
/// matches (crafted) cannot send a search out of bounds.
bool hnsw_graph_ok(const faiss::HNSW& g, idx_t ntotal) {
  const auto& cum = g.cum_nneighbor_per_level;
  if (cum.empty() || cum[0] != 0 || g.assign_probas.size() + 1 != cum.size()) return false;
  for (size_t l = 1; l < cum.size(); ++l)
    if (cum[l] < cum[l - 1]) return false;
  const size_t n = static_cast<size_t>(ntotal);
  if (g.levels.size() != n || g.offsets.size() != n + 1 || g.offsets[0] != 0 || g.offsets[n] != g.neighbors.size())
    return false;
  for (size_t i = 0; i < n; ++i) {
    int lv = g.levels[i];
    if (lv < 1 || static_cast<size_t>(lv) >= cum.size()) return false;
    if (g.offsets[i + 1] < g.offsets[i] || g.offsets[i + 1] - g.offsets[i] != static_cast<size_t>(cum[lv])) return false;
  }
  for (size_t i = 0; i < n; ++i)
    for (int l = 0; l < g.levels[i]; ++l)
      for (size_t j = g.offsets[i] + cum[l]; j < g.offsets[i] + cum[l + 1]; ++j) {
        int v = g.neighbors[j];
        if (v == -1) continue;
        if (v < 0 || static_cast<size_t>(v) >= n || g.levels[v] <= l) return false;
      }
  if (n == 0) return g.entry_point == -1;
  return g.entry_point >= 0 && static_cast<size_t>(g.entry_point) < n && g.max_level == g.levels[g.entry_point] - 1;
}

class FaissVectorIndex final : public VectorIndex {
 public:
  explicit FaissVectorIndex(const VectorIndexOptions& opt) : opt_(opt) {
    if (opt_.dim <= 0) throw UsageError("vector index dimension must be positive (got " + std::to_string(opt_.dim) + ")");
    flat_ = make_flat();
  }

  void add(const std::vector<int64_t>& ids, const float* vecs) override {
    faiss_guard("add to", [&] { add_impl(ids, vecs); });
  }
  void remove(const std::vector<int64_t>& ids) override {
    faiss_guard("remove from", [&] { remove_impl(ids); });
  }
  std::vector<std::pair<int64_t, float>> search(const float* query, int k) const override {
    std::vector<std::pair<int64_t, float>> out;
    faiss_guard("search", [&] { out = search_impl(query, k); });
    return out;
  }

  int64_t size() const override { return flat_ ? flat_->ntotal : static_cast<int64_t>(slot_.size()); }
  int dim() const override { return opt_.dim; }
  std::string kind() const override { return flat_ ? "flat" : "hnsw"; }

  void save(const std::string& path, const std::string& tag) const override;

  /// Builds from a loaded file's FAISS index; throws IOError (via `bad`) when it is inconsistent.
  static std::unique_ptr<FaissVectorIndex> from_loaded(const VectorIndexOptions& opt, uint32_t kind, uint64_t count,
                                                       std::unique_ptr<faiss::Index> index,
                                                       std::vector<int64_t> labels, const std::vector<int64_t>& dead,
                                                       const std::function<void(const std::string&)>& bad);

 private:
  /// FAISS reports failures (allocation, internal checks) with FaissException: turn them into
  /// mmkg errors.
  template <class F>
  static void faiss_guard(const char* op, F&& f) {
    try {
      f();
    } catch (const faiss::FaissException& e) {
      throw Error(std::string("cannot ") + op + " the vector index: FAISS: " + e.what());
    }
  }

  void add_impl(const std::vector<int64_t>& ids_in, const float* vecs_in) {
    if (ids_in.empty()) return;
    if (!vecs_in) throw UsageError("VectorIndex::add: null vector data");
    const size_t d = static_cast<size_t>(opt_.dim);
    for (int64_t id : ids_in)
      if (id < 0) throw UsageError("VectorIndex::add: ids must be non-negative (got " + std::to_string(id) + ")");

    // An id repeated within the batch: the last occurrence wins.
    std::vector<int64_t> ids;
    std::vector<float> dedup;
    const float* vecs = vecs_in;
    {
      std::unordered_map<int64_t, size_t> last;
      last.reserve(ids_in.size());
      for (size_t i = 0; i < ids_in.size(); ++i) last[ids_in[i]] = i;
      if (last.size() == ids_in.size()) {
        ids = ids_in;
      } else {
        dedup.reserve(last.size() * d);
        for (size_t i = 0; i < ids_in.size(); ++i) {
          if (last[ids_in[i]] != i) continue;
          ids.push_back(ids_in[i]);
          dedup.insert(dedup.end(), vecs_in + i * d, vecs_in + (i + 1) * d);
        }
        vecs = dedup.data();
      }
    }
    const idx_t n = static_cast<idx_t>(ids.size());

    if (flat_) {
      // Replaced ids leave the flat index first (IndexIDMap2 needs unique ids).
      std::vector<idx_t> present;
      for (int64_t id : ids)
        if (flat_->rev_map.count(id)) present.push_back(id);
      if (!present.empty()) {
        faiss::IDSelectorBatch sel(present.size(), present.data());
        flat_->remove_ids(sel);
      }
      if (flat_->ntotal + n > opt_.hnsw_threshold) {
        // Switch to HNSW: graph over the current flat vectors, then the new ones.
        auto* storage = static_cast<const faiss::IndexFlat*>(flat_->index);
        try {
          start_hnsw();
          append_hnsw(flat_->ntotal, storage->get_xb(), flat_->id_map.data());
          append_hnsw(n, vecs, ids.data());
        } catch (...) {
          drop_hnsw();  // keep the flat index
          throw;
        }
        flat_.reset();
      } else {
        flat_->add_with_ids(n, vecs, ids.data());
      }
      return;
    }

    for (int64_t id : ids) kill(id);
    append_hnsw(n, vecs, ids.data());
    maybe_restructure();
  }

  void remove_impl(const std::vector<int64_t>& ids) {
    if (ids.empty()) return;
    if (flat_) {
      std::vector<idx_t> present;
      for (int64_t id : ids)
        if (flat_->rev_map.count(id)) present.push_back(id);
      if (present.empty()) return;
      faiss::IDSelectorBatch sel(present.size(), present.data());
      flat_->remove_ids(sel);
      return;
    }
    for (int64_t id : ids) kill(id);
    maybe_restructure();
  }

  std::vector<std::pair<int64_t, float>> search_impl(const float* query, int k) const {
    std::vector<std::pair<int64_t, float>> out;
    const int64_t live = size();
    if (!query || k <= 0 || live == 0) return out;
    const idx_t kk = std::min<idx_t>(k, live);
    std::vector<float> D(kk);
    std::vector<idx_t> I(kk);
    out.reserve(kk);
    SingleThreadedOmp one_thread;

    if (flat_) {
      flat_->search(1, query, kk, D.data(), I.data());
      for (idx_t i = 0; i < kk; ++i)
        if (I[i] >= 0) out.emplace_back(I[i], D[i]);
      return out;
    }

    LiveSelector live_sel(dead_);
    auto collect = [&] {
      out.clear();
      for (idx_t i = 0; i < kk; ++i)
        if (I[i] >= 0 && I[i] < static_cast<idx_t>(labels_.size()) && !dead_[I[i]])
          out.emplace_back(labels_[I[i]], D[i]);
    };
    if (kk < live) {
      faiss::SearchParametersHNSW p;
      p.efSearch = std::max<int>(opt_.hnsw_ef_search, static_cast<int>(kk));
      p.sel = n_dead_ > 0 ? &live_sel : nullptr;
      hnsw_->search(1, query, kk, D.data(), I.data(), &p);
      collect();
      if (static_cast<idx_t>(out.size()) == kk) return out;
    }
    // Every live vector is wanted, or the graph walk came up short (disconnected after many
    // tombstones): exact scan of the HNSW's flat storage.
    faiss::SearchParameters p;
    p.sel = n_dead_ > 0 ? &live_sel : nullptr;
    hnsw_->storage->search(1, query, kk, D.data(), I.data(), &p);
    collect();
    return out;
  }

  std::unique_ptr<faiss::IndexIDMap2> make_flat() const {
    auto idx = std::make_unique<faiss::IndexIDMap2>(new faiss::IndexFlatIP(opt_.dim));
    idx->own_fields = true;
    return idx;
  }

  /// Fresh, empty HNSW state.
  void start_hnsw() {
    hnsw_ = std::make_unique<faiss::IndexHNSWFlat>(opt_.dim, std::max(2, opt_.hnsw_m), faiss::METRIC_INNER_PRODUCT);
    hnsw_->hnsw.efConstruction = std::max(1, opt_.hnsw_ef_construction);
    hnsw_->hnsw.efSearch = std::max(1, opt_.hnsw_ef_search);
    labels_.clear();
    slot_.clear();
    dead_.clear();
    n_dead_ = 0;
  }

  /// Appends n vectors (ids not present) to the HNSW graph.
  void append_hnsw(idx_t n, const float* x, const idx_t* ids) {
    if (n == 0) return;
    idx_t base = hnsw_->ntotal;
    if (base + n > std::numeric_limits<int32_t>::max())
      throw UsageError("vector index is full (HNSW holds at most 2^31 - 1 vectors)");
    hnsw_->add(n, x);
    labels_.insert(labels_.end(), ids, ids + n);
    dead_.resize(labels_.size(), 0);
    slot_.reserve(slot_.size() + n);
    for (idx_t i = 0; i < n; ++i) slot_[ids[i]] = base + i;
  }

  /// Tombstones the HNSW entry of `id`, if any.
  void kill(int64_t id) {
    auto it = slot_.find(id);
    if (it == slot_.end()) return;
    dead_[it->second] = 1;
    ++n_dead_;
    slot_.erase(it);
  }

  /// Copies the live HNSW vectors (and their ids) out of the graph's flat storage.
  void live_vectors(std::vector<float>* x, std::vector<idx_t>* ids) const {
    const size_t d = static_cast<size_t>(opt_.dim);
    const float* xb = static_cast<const faiss::IndexFlat*>(hnsw_->storage)->get_xb();
    x->clear();
    ids->clear();
    x->reserve(slot_.size() * d);
    ids->reserve(slot_.size());
    for (size_t i = 0; i < labels_.size(); ++i) {
      if (dead_[i]) continue;
      x->insert(x->end(), xb + i * d, xb + (i + 1) * d);
      ids->push_back(labels_[i]);
    }
  }

  /// After removals: back to flat when small, rebuild the graph when tombstones pile up.
  void maybe_restructure() {
    const int64_t live = static_cast<int64_t>(slot_.size());
    const bool to_flat = live < opt_.hnsw_threshold / 2;
    const bool compact = n_dead_ > 0 && static_cast<double>(n_dead_) > kMaxDeadFraction * static_cast<double>(hnsw_->ntotal);
    if (!to_flat && !compact) return;
    std::vector<float> x;
    std::vector<idx_t> ids;
    live_vectors(&x, &ids);
    if (to_flat) {
      auto flat = make_flat();
      flat->add_with_ids(static_cast<idx_t>(ids.size()), x.data(), ids.data());
      drop_hnsw();
      flat_ = std::move(flat);
    } else {
      hnsw_.reset();  // free the old graph and vectors before building the new ones
      try {
        start_hnsw();
        append_hnsw(static_cast<idx_t>(ids.size()), x.data(), ids.data());
      } catch (...) {
        // Keep the data: fall back to exact search over the live vectors.
        drop_hnsw();
        flat_ = make_flat();
        flat_->add_with_ids(static_cast<idx_t>(ids.size()), x.data(), ids.data());
        throw;
      }
    }
  }

  void drop_hnsw() {
    hnsw_.reset();
    labels_ = {};
    slot_ = {};
    dead_ = {};
    n_dead_ = 0;
  }

  VectorIndexOptions opt_;
  // Exactly one of flat_ / hnsw_ is set.
  std::unique_ptr<faiss::IndexIDMap2> flat_;
  std::unique_ptr<faiss::IndexHNSWFlat> hnsw_;
  std::vector<int64_t> labels_;                 ///< hnsw internal id -> row id
  std::unordered_map<int64_t, idx_t> slot_;     ///< live row id -> hnsw internal id
  std::vector<uint8_t> dead_;                   ///< hnsw internal id -> tombstoned
  int64_t n_dead_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Persistence

/// Writes to a file descriptor while hashing everything written.
class HashingFile {
 public:
  explicit HashingFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IOError("cannot create " + path + ": " + errno_text() + "; check the directory's permissions and free space");
    state_ = XXH3_createState();
    XXH3_64bits_reset(state_);
  }
  ~HashingFile() {
    if (fd_ >= 0) ::close(fd_);
    XXH3_freeState(state_);
  }
  void write(const void* data, size_t n) {
    XXH3_64bits_update(state_, data, n);
    raw_write(data, n);
  }
  template <class T>
  void put(T v) { write(&v, sizeof v); }
  /// Writes the checksum, fsyncs and closes.
  void finish() {
    uint64_t h = XXH3_64bits_digest(state_);
    raw_write(&h, sizeof h);
    if (::fsync(fd_) != 0) fail("fsync");
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close");
  }

 private:
  void raw_write(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t w = ::write(fd_, p, std::min<size_t>(n, size_t{1} << 30));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("write");
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  [[noreturn]] void fail(const char* what) {
    throw IOError(std::string("cannot ") + what + " " + path_ + ": " + errno_text() + "; check free disk space");
  }
  std::string path_;
  int fd_ = -1;
  XXH3_state_t* state_;
};

void FaissVectorIndex::save(const std::string& path, const std::string& tag) const {
  faiss::VectorIOWriter blob;
  try {
    if (flat_)
      faiss::write_index(flat_->index, &blob);
    else
      faiss::write_index(hnsw_.get(), &blob);
  } catch (const faiss::FaissException& e) {
    throw IOError("cannot serialise vector index for " + path + ": " + e.what());
  }
  // A temporary name of this writer's own: two processes (or a server's reader and writer
  // sessions) may save the same index at once; each renames its own complete file into place.
  static std::atomic<unsigned> seq{0};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(seq++);
  try {
    HashingFile f(tmp);
    f.write(kMagic, sizeof kMagic);
    f.put<uint32_t>(kVersion);
    f.put<uint32_t>(static_cast<uint32_t>(opt_.dim));
    f.put<uint32_t>(flat_ ? kKindFlat : kKindHnsw);
    f.put<uint64_t>(static_cast<uint64_t>(size()));
    f.put<uint32_t>(static_cast<uint32_t>(tag.size()));
    f.write(tag.data(), tag.size());
    f.put<uint64_t>(blob.data.size());
    f.write(blob.data.data(), blob.data.size());
    const std::vector<int64_t>& labels = flat_ ? flat_->id_map : labels_;
    f.put<uint64_t>(labels.size());
    f.write(labels.data(), labels.size() * sizeof(int64_t));
    std::vector<int64_t> dead;
    dead.reserve(n_dead_);
    for (size_t i = 0; i < dead_.size(); ++i)
      if (dead_[i]) dead.push_back(static_cast<int64_t>(i));
    f.put<uint64_t>(dead.size());
    f.write(dead.data(), dead.size() * sizeof(int64_t));
    f.finish();
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = errno_text();
    ::unlink(tmp.c_str());
    throw IOError("cannot rename " + tmp + " to " + path + ": " + err);
  }
  // Make the rename durable.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::unique_ptr<FaissVectorIndex> FaissVectorIndex::from_loaded(
    const VectorIndexOptions& opt, uint32_t kind, uint64_t count, std::unique_ptr<faiss::Index> index,
    std::vector<int64_t> labels, const std::vector<int64_t>& dead,
    const std::function<void(const std::string&)>& bad) {
  auto out = std::make_unique<FaissVectorIndex>(opt);
  if (index->d != opt.dim) bad("its FAISS index has dimension " + std::to_string(index->d));
  if (index->metric_type != faiss::METRIC_INNER_PRODUCT) bad("its FAISS index does not use inner product");
  if (kind == kKindFlat) {
    auto* flat = dynamic_cast<faiss::IndexFlat*>(index.get());
    if (!flat || !flat_storage_ok(flat, opt.dim)) bad("a flat index holds an unexpected FAISS type or size");
    if (!dead.empty()) bad("a flat index has tombstones");
    if (static_cast<uint64_t>(flat->ntotal) != count || labels.size() != count)
      bad("the vector count does not match the header");
    for (int64_t id : labels)
      if (id < 0) bad("it has a negative id");
    // Move the loaded vectors into a fresh IndexIDMap2 (its constructor wants an empty index).
    auto& idmap = out->flat_;
    auto* inner = static_cast<faiss::IndexFlat*>(idmap->index);
    inner->codes.swap(flat->codes);
    inner->ntotal = flat->ntotal;
    idmap->ntotal = flat->ntotal;
    idmap->id_map = std::move(labels);
    idmap->construct_rev_map();
    if (idmap->rev_map.size() != idmap->id_map.size()) bad("it has duplicate ids");
    return out;
  }
  auto* h = dynamic_cast<faiss::IndexHNSWFlat*>(index.get());
  if (!h || !h->is_trained || !flat_storage_ok(h->storage, opt.dim) || h->reconstruct_from_neighbors)
    bad("an HNSW index holds an unexpected FAISS type");
  if (h->storage->ntotal != h->ntotal || static_cast<size_t>(h->ntotal) != labels.size())
    bad("its HNSW tables have inconsistent sizes");
  if (!hnsw_graph_ok(h->hnsw, h->ntotal)) bad("its HNSW graph is inconsistent");
  index.release();
  out->flat_.reset();
  out->hnsw_.reset(h);
  out->hnsw_->hnsw.efConstruction = std::max(1, opt.hnsw_ef_construction);
  out->hnsw_->hnsw.efSearch = std::max(1, opt.hnsw_ef_search);
  out->hnsw_->hnsw.upper_beam = 1;
  if (dead.size() > labels.size()) bad("its tombstone list is longer than its id table");
  out->dead_.assign(labels.size(), 0);
  for (int64_t i : dead) {
    if (i < 0 || static_cast<size_t>(i) >= labels.size() || out->dead_[i]) bad("its tombstone list is invalid");
    out->dead_[i] = 1;
  }
  out->n_dead_ = static_cast<int64_t>(dead.size());
  out->slot_.reserve(labels.size() - dead.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    if (out->dead_[i]) continue;
    if (labels[i] < 0 || !out->slot_.emplace(labels[i], static_cast<idx_t>(i)).second)
      bad("its id table has a negative or duplicate live id");
  }
  if (out->slot_.size() != count) bad("the live vector count does not match the header");
  out->labels_ = std::move(labels);
  return out;
}

/// Bounds-checked reader over the file bytes.
struct Cursor {
  const char* p;
  size_t size;
  size_t pos = 0;
  bool ok = true;
  bool take(void* out, size_t n) {
    if (!ok || n > size - pos) return ok = false;
    std::memcpy(out, p + pos, n);
    pos += n;
    return true;
  }
  template <class T>
  T get() {
    T v{};
    take(&v, sizeof v);
    return v;
  }
  /// Skips n bytes, returning where they start (nullptr if past the end).
  const char* skip(uint64_t n) {
    if (!ok || n > size - pos) {
      ok = false;
      return nullptr;
    }
    const char* at = p + pos;
    pos += n;
    return at;
  }
};

}  // namespace

std::unique_ptr<VectorIndex> make_vector_index(const VectorIndexOptions& opt) {
  return std::make_unique<FaissVectorIndex>(opt);
}

std::unique_ptr<VectorIndex> load_vector_index(const std::string& path, const VectorIndexOptions& opt,
                                               std::string* tag) {
  const std::string what = "vector index " + path;
  const std::string redo = "; delete it and rebuild the vector index";
  auto corrupt = [&](const std::string& why) -> void { throw IOError(what + " is corrupt (" + why + ")" + redo); };

  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return nullptr;
    throw IOError("cannot open " + what + ": " + errno_text());
  }
  std::string data;
  {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      std::string err = errno_text();
      ::close(fd);
      throw IOError("cannot stat " + what + ": " + err);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      throw IOError(what + " is a directory, not a file" + redo);
    }
    try {
      data.resize(static_cast<size_t>(st.st_size));
    } catch (const std::bad_alloc&) {
      ::close(fd);
      throw IOError("cannot read " + what + ": out of memory (" + std::to_string(st.st_size) + " bytes)");
    }
    size_t got = 0;
    while (got < data.size()) {
      ssize_t r = ::read(fd, data.data() + got, std::min<size_t>(data.size() - got, size_t{1} << 30));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        std::string err = errno_text();
        ::close(fd);
        throw IOError("cannot read " + what + ": " + err);
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    ::close(fd);
    data.resize(got);
  }

  if (data.empty()) throw IOError(what + " is empty (truncated)" + redo);
  Cursor c{data.data(), data.size()};
  char magic[sizeof kMagic];
  if (!c.take(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    throw IOError(what + " is not an mmkg vector index (bad magic)" + redo);
  uint32_t version = c.get<uint32_t>();
  if (!c.ok) throw IOError(what + " is truncated (" + std::to_string(data.size()) + " bytes, header incomplete)" + redo);
  if (version != kVersion)
    throw IOError(what + " has format version " + std::to_string(version) + "; this build reads version " +
                  std::to_string(kVersion) + redo);
  auto dim = c.get<uint32_t>();
  auto kind = c.get<uint32_t>();
  auto count = c.get<uint64_t>();
  auto tag_len = c.get<uint32_t>();
  const char* tag_p = c.skip(tag_len);
  auto blob_len = c.get<uint64_t>();
  const char* blob_p = c.skip(blob_len);
  auto n_labels = c.get<uint64_t>();
  const char* labels_p = n_labels <= data.size() / 8 ? c.skip(n_labels * 8) : c.skip(data.size() + 1);
  auto n_dead = c.get<uint64_t>();
  const char* dead_p = n_dead <= data.size() / 8 ? c.skip(n_dead * 8) : c.skip(data.size() + 1);
  uint64_t stored_sum = c.get<uint64_t>();
  if (!c.ok)
    throw IOError(what + " is truncated or corrupt (" + std::to_string(data.size()) +
                  " bytes; a section runs past the end of the file)" + redo);
  if (c.pos != data.size())
    corrupt(std::to_string(data.size() - c.pos) + " unexpected bytes after the checksum");
  if (XXH3_64bits(data.data(), data.size() - 8) != stored_sum) corrupt("checksum mismatch");
  if (static_cast<int64_t>(dim) != opt.dim)
    throw IOError(what + " was built with " + std::to_string(dim) + "-dimensional embeddings, but the embedder has " +
                  std::to_string(opt.dim) + " dimensions" + redo);
  if (kind != kKindFlat && kind != kKindHnsw) corrupt("unknown index kind " + std::to_string(kind));

  std::unique_ptr<faiss::Index> index;
  try {
    SpanReader reader(blob_p, blob_len);
    index.reset(faiss::read_index(&reader));
    if (reader.pos != blob_len) corrupt("unexpected bytes after the FAISS index");
  } catch (const faiss::FaissException& e) {
    corrupt(std::string("FAISS cannot read it: ") + e.what());
  } catch (const std::bad_alloc&) {
    corrupt("FAISS index sizes are implausible");
  } catch (const IOError&) {
    throw;
  } catch (const std::exception& e) {
    corrupt(std::string("FAISS cannot read it: ") + e.what());
  }
  if (!index) corrupt("FAISS returned no index");

  std::vector<int64_t> labels(n_labels), dead(n_dead);
  if (n_labels) std::memcpy(labels.data(), labels_p, n_labels * 8);
  if (n_dead) std::memcpy(dead.data(), dead_p, n_dead * 8);
  auto out = FaissVectorIndex::from_loaded(opt, kind, count, std::move(index), std::move(labels), dead,
                                           [&](const std::string& why) { corrupt(why); });
  if (tag) tag->assign(tag_p, tag_len);
  return out;
}

}  // namespace mmkg
