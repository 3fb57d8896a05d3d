// Approximate backend: hnswlib's HierarchicalNSW (Debian libhnswlib-dev 0.6.2, header-only) over
// inner product (vectors are L2-normalised, so inner product = cosine; hnswlib's distance is
// 1 - inner product).
//
// Labels are row ids. hnswlib 0.6.2 has no allow_replace_deleted, so deleted slots are reused
// here the way later versions do it: remove() marks the element deleted (it stays in the graph as
// a routing node), takes its label out of hnswlib's label table and puts the slot on a free list;
// add() of a new id takes a free slot, gives it the new label and lets hnswlib's addPoint update
// it in place (its update path re-links the slot's neighbourhood). Adding an id already present
// updates its vector the same way. So the graph holds at most the peak number of live vectors.
//
// add() runs hnswlib's addPoint (thread-safe; the per-element locks are hnswlib's) on
// hnsw_threads threads over the batch; capacity grows by half (resizeIndex) before a batch that
// would not fit. hnswlib draws each new element's level from one random generator shared by the
// threads without a lock, as hnswlib's own Python bindings do when they add in parallel: the draws
// stay random, the build is not reproducible run to run.
//
// Distances: hnswlib picks its SIMD kernel at compile time (SSE for a baseline x86-64 build). The
// kernel here is chosen at run time instead: AVX-512 or AVX2+FMA when the CPU has them (functions
// compiled for that target only), else hnswlib's own SSE one. The rest of the file is baseline.
//
// Thread-safety as VectorIndex says: search() may run concurrently; add()/remove() exclusively.
//
// File body (kind 2, format version 2), hnswlib's in-memory layout:
//   u32 M  u64 n (elements, deleted ones included)  i32 max_level  u32 entry point (n = 0: ~0)
//   u64 bytes per element at level 0   u64 bytes per upper-level link list
//   level 0: n elements of [u16 link count, u8 deleted flag, u8 0, maxM0 x u32 links,
//            dim x f32 vector, u64 label]
//   i32 levels[n]
//   for each element with level > 0: its upper link lists, level x [u16 count, u16 0, M x u32]
// Every count, link, level, flag and label is validated against n and the format before the
// graph is built, so a file whose checksum matches but whose contents are wrong (crafted) cannot
// make a search read out of bounds.
#include <hnswlib/hnswlib.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include "core/error.h"
#include "index/index_backend.h"

namespace mmkg {
namespace {

using hnswlib::labeltype;
using hnswlib::tableint;
using Graph = hnswlib::HierarchicalNSW<float>;

// ---------------------------------------------------------------------------------------------
// Distance: 1 - <a, b>, dimension in *param.

float ip_distance_scalar(const void* a, const void* b, const void* param) {
  const size_t d = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  float s = 0;
  for (size_t i = 0; i < d; ++i) s += x[i] * y[i];
  return 1.0f - s;
}

__attribute__((target("avx2,fma"))) float ip_distance_avx2(const void* a, const void* b, const void* param) {
  const size_t d = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
  }
  for (; i + 8 <= d; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
  s0 = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  float s = _mm_cvtss_f32(h);
  for (; i < d; ++i) s += x[i] * y[i];
  return 1.0f - s;
}

__attribute__((target("avx512f"))) float ip_distance_avx512(const void* a, const void* b, const void* param) {
  const size_t d = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(y + i + 16), s1);
  }
  for (; i + 16 <= d; i += 16) s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), s0);
  alignas(64) float lanes[16];  // (GCC 12's _mm512_reduce_add_ps warns -Wuninitialized)
  _mm512_store_ps(lanes, _mm512_add_ps(s0, s1));
  float s = 0;
  for (float l : lanes) s += l;
  for (; i < d; ++i) s += x[i] * y[i];
  return 1.0f - s;
}

/// Inner-product space with the distance kernel chosen for this CPU.
class IpSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit IpSpace(size_t dim) : dim_(dim), baseline_(dim) {
    const char* force = std::getenv("MMKG_HNSW_SIMD");  // "sse" to measure the baseline kernel
    const bool sse = force && std::string(force) == "sse";
    __builtin_cpu_init();
    if (!sse && __builtin_cpu_supports("avx512f")) {
      fn_ = ip_distance_avx512;
      name_ = "avx512";
    } else if (!sse && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      fn_ = ip_distance_avx2;
      name_ = "avx2";
    } else {
      fn_ = dim % 4 == 0 ? baseline_.get_dist_func() : ip_distance_scalar;
      name_ = "sse";
    }
  }
  size_t get_data_size() override { return dim_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return fn_; }
  void* get_dist_func_param() override { return &dim_; }
  /// "avx512", "avx2" or "sse": the kernel in use.
  const char* name() const { return name_; }

 private:
  size_t dim_;
  hnswlib::InnerProductSpace baseline_;
  hnswlib::DISTFUNC<float> fn_;
  const char* name_;
};

constexpr size_t kSeed = 100;
constexpr size_t kMinCapacity = 1024;

/// Runs f(i) for i in [0, n) on `threads` threads (the calling one included), in blocks; the
/// first exception stops the others and is rethrown.
template <class F>
void parallel_for(size_t n, int threads, F&& f) {
  const size_t block = 64;
  if (threads <= 1 || n <= block) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&] {
    try {
      for (;;) {
        size_t begin = next.fetch_add(block);
        if (begin >= n || stop) return;
        for (size_t i = begin; i < std::min(n, begin + block); ++i) f(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  const size_t extra = std::min<size_t>(threads - 1, (n + block - 1) / block - 1);
  std::vector<std::thread> pool;
  pool.reserve(extra);
  for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

struct HnswFile;

class HnswIndex final : public IndexBackend {
 public:
  explicit HnswIndex(const VectorIndexOptions& opt, size_t capacity = kMinCapacity)
      : opt_(opt), space_(static_cast<size_t>(opt.dim)) {
    if (opt_.hnsw_m < 2 || opt_.hnsw_m > 1000)
      throw UsageError("HNSW M must be between 2 and 1000 (got " + std::to_string(opt_.hnsw_m) + ")");
    g_ = std::make_unique<Graph>(&space_, std::max(capacity, kMinCapacity), static_cast<size_t>(opt_.hnsw_m),
                                 static_cast<size_t>(std::max(1, opt_.hnsw_ef_construction)), kSeed);
    g_->setEf(static_cast<size_t>(std::max(1, opt_.hnsw_ef_search)));
  }

  void add(const std::vector<int64_t>& ids, const float* vecs) override {
    if (ids.empty()) return;
    // Present ids are updated in place; new ids take a free (deleted) slot or a new one.
    size_t fresh = 0;
    for (int64_t id : ids) {
      if (g_->label_lookup_.count(static_cast<labeltype>(id))) continue;
      if (!free_.empty()) {
        tableint slot = free_.back();
        free_.pop_back();
        labeltype label = static_cast<labeltype>(id);
        std::memcpy(g_->getExternalLabeLp(slot), &label, sizeof label);
        g_->label_lookup_[label] = slot;  // addPoint finds it deleted: unmark + update
      } else {
        ++fresh;
      }
    }
    const size_t need = g_->cur_element_count + fresh;
    if (need > g_->max_elements_) {
      if (need > std::numeric_limits<int32_t>::max())
        throw UsageError("vector index is full (HNSW holds at most 2^31 - 1 vectors)");
      try {
        g_->resizeIndex(std::max(need, g_->max_elements_ + g_->max_elements_ / 2));
      } catch (const std::exception& e) {
        throw Error(std::string("cannot grow the HNSW vector index: ") + e.what());
      }
    }
    const size_t d = static_cast<size_t>(opt_.dim);
    try {
      parallel_for(ids.size(), threads(), [&](size_t i) {
        g_->addPoint(vecs + i * d, static_cast<labeltype>(ids[i]));
      });
    } catch (const std::exception& e) {
      recount_deleted();
      throw Error(std::string("cannot add to the HNSW vector index: ") + e.what());
    }
    recount_deleted();
  }

  void remove(const std::vector<int64_t>& ids) override {
    for (int64_t id : ids) {
      auto it = g_->label_lookup_.find(static_cast<labeltype>(id));
      if (it == g_->label_lookup_.end()) continue;
      tableint slot = it->second;
      g_->markDeletedInternal(slot);
      g_->label_lookup_.erase(it);
      free_.push_back(slot);
    }
  }

  std::vector<std::pair<int64_t, float>> search(const float* query, int k) const override {
    std::vector<std::pair<int64_t, float>> out;
    const int64_t live = size();
    if (!query || k <= 0 || live == 0) return out;
    const size_t kk = static_cast<size_t>(std::min<int64_t>(k, live));
    if (static_cast<int64_t>(kk) < live) {
      auto pq = g_->searchKnn(query, kk);  // worst first
      out.resize(pq.size());
      for (size_t i = pq.size(); i-- > 0; pq.pop())
        out[i] = {static_cast<int64_t>(pq.top().second), 1.0f - pq.top().first};
      if (out.size() == kk) return out;
    }
    // Every live vector is wanted, or the walk came up short (many deleted elements): exact scan.
    return exact(query, kk);
  }

  int64_t size() const override { return static_cast<int64_t>(g_->label_lookup_.size()); }
  int dim() const override { return opt_.dim; }
  VectorIndexKind kind() const override { return VectorIndexKind::Hnsw; }

  void live_vectors(std::vector<int64_t>* ids, std::vector<float>* vecs) const override {
    const size_t d = static_cast<size_t>(opt_.dim);
    ids->clear();
    ids->reserve(size());
    if (vecs) {
      vecs->clear();
      vecs->reserve(size() * d);
    }
    for (tableint i = 0; i < g_->cur_element_count; ++i) {
      if (g_->isMarkedDeleted(i)) continue;
      ids->push_back(static_cast<int64_t>(g_->getExternalLabel(i)));
      if (!vecs) continue;
      const float* v = reinterpret_cast<const float*>(g_->getDataByInternalId(i));
      vecs->insert(vecs->end(), v, v + d);
    }
  }

  void save(const std::string& path, const std::string& tag) const override {
    vecfile::save(path, vecfile::kKindHnsw, opt_.dim, static_cast<uint64_t>(size()), tag, [&](vecfile::Writer& f) {
      const size_t n = g_->cur_element_count;
      f.put<uint32_t>(static_cast<uint32_t>(g_->M_));
      f.put<uint64_t>(n);
      f.put<int32_t>(g_->maxlevel_);
      f.put<uint32_t>(g_->enterpoint_node_);
      f.put<uint64_t>(g_->size_data_per_element_);
      f.put<uint64_t>(g_->size_links_per_element_);
      f.write(g_->data_level0_memory_, n * g_->size_data_per_element_);
      f.write(g_->element_levels_.data(), n * sizeof(int32_t));
      for (size_t i = 0; i < n; ++i)
        if (g_->element_levels_[i] > 0)
          f.write(g_->linkLists_[i], g_->size_links_per_element_ * static_cast<size_t>(g_->element_levels_[i]));
    });
  }

  /// Builds the graph from a file body; f.bad() on anything inconsistent.
  static std::unique_ptr<HnswIndex> load(VectorIndexOptions opt, const vecfile::Loaded& f);

 private:
  /// load()'s last step: the checked file `h` (`live` elements not deleted) copied into g_, the
  /// label table and the free list rebuilt.
  void adopt(const HnswFile& h, uint64_t live, const vecfile::Loaded& f);

  /// hnswlib's deleted count is a plain integer that concurrent updates of deleted slots decrement
  /// without a lock; the label table holds exactly the live elements, so set it from that.
  void recount_deleted() { g_->num_deleted_ = g_->cur_element_count - g_->label_lookup_.size(); }

  int threads() const {
    if (opt_.hnsw_threads > 0) return opt_.hnsw_threads;
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }

  std::vector<std::pair<int64_t, float>> exact(const float* query, size_t k) const {
    std::vector<std::pair<int64_t, float>> all;
    all.reserve(size());
    auto dist = space_fn();
    for (tableint i = 0; i < g_->cur_element_count; ++i) {
      if (g_->isMarkedDeleted(i)) continue;
      float s = 1.0f - dist(query, g_->getDataByInternalId(i), g_->dist_func_param_);
      all.emplace_back(static_cast<int64_t>(g_->getExternalLabel(i)), s);
    }
    k = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + k, all.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    all.resize(k);
    return all;
  }
  hnswlib::DISTFUNC<float> space_fn() const { return g_->fstdistfunc_; }

  VectorIndexOptions opt_;
  IpSpace space_;              ///< before g_, which keeps pointers into it
  std::unique_ptr<Graph> g_;
  std::vector<tableint> free_;  ///< deleted slots, reused by add()
};

// An HNSW file body (see the file comment) with its header and tables checked for size: the
// header fields, the layout they imply, where the tables start, and every element's level.
struct HnswFile {
  uint32_t m = 0;
  uint64_t n = 0;
  int32_t max_level = -1;
  uint32_t entry = 0;
  uint64_t per_element = 0, per_links = 0;
  size_t max_m0 = 0, label_at = 0;
  const char* level0 = nullptr;   ///< n x per_element bytes
  const char* upper = nullptr;    ///< the upper link lists, element by element
  std::vector<int32_t> levels;
};

// The header, the layout hnswlib derives from M and the dimension, the table sizes, the levels
// and the entry point of `f`'s body; f.bad() when any is wrong.
HnswFile read_hnsw_file(const VectorIndexOptions& opt, const vecfile::Loaded& f) {
  HnswFile h;
  vecfile::Cursor c{f.body, f.body_size};
  const auto m = h.m = c.get<uint32_t>();
  const auto n = h.n = c.get<uint64_t>();
  const auto max_level = h.max_level = c.get<int32_t>();
  const auto entry = h.entry = c.get<uint32_t>();
  const auto per_element = h.per_element = c.get<uint64_t>();
  const auto per_links = h.per_links = c.get<uint64_t>();
  if (!c.ok) f.bad("its HNSW header is incomplete");
  if (m < 2 || m > 1000) f.bad("its HNSW degree M is " + std::to_string(m));
  // The layout that hnswlib derives from M and the dimension (see its constructor).
  const size_t d = static_cast<size_t>(opt.dim);
  const size_t max_m0 = h.max_m0 = 2 * size_t{m};
  const size_t links0 = max_m0 * sizeof(tableint) + sizeof(hnswlib::linklistsizeint);
  const size_t want_element = links0 + d * sizeof(float) + sizeof(labeltype);
  const size_t want_links = size_t{m} * sizeof(tableint) + sizeof(hnswlib::linklistsizeint);
  h.label_at = links0 + d * sizeof(float);
  if (per_element != want_element || per_links != want_links) f.bad("its HNSW element sizes do not match M and the dimension");
  if (n > std::numeric_limits<int32_t>::max()) f.bad("its HNSW element count is implausible");
  h.level0 = c.skip_items(n, per_element);
  const char* levels_p = c.skip_items(n, sizeof(int32_t));
  if (!c.ok) f.bad("its HNSW tables run past the end of the file");
  std::vector<int32_t>& levels = h.levels;
  levels.resize(n);
  if (n) std::memcpy(levels.data(), levels_p, n * sizeof(int32_t));
  uint64_t upper = 0;
  int32_t top = -1;
  for (int32_t l : levels) {
    if (l < 0 || l > 64) f.bad("an HNSW element has level " + std::to_string(l));
    upper += static_cast<uint64_t>(l);
    top = std::max(top, l);
  }
  h.upper = c.skip_items(upper, per_links);
  if (!c.ok) f.bad("its HNSW link lists run past the end of the file");
  if (c.pos != c.size) f.bad("unexpected bytes after the HNSW link lists");
  if (n == 0 ? (max_level != -1 || entry != ~tableint{0})
             : (entry >= n || max_level != top || levels[entry] != max_level))
    f.bad("its HNSW entry point is invalid");
  return h;
}

uint16_t u16_at(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// Level 0: link counts, links, deleted flags; live labels unique and non-negative. The number of
// live (not deleted) elements.
uint64_t check_level0(const HnswFile& h, const vecfile::Loaded& f) {
  const uint64_t n = h.n;
  uint64_t live = 0;
  for (size_t i = 0; i < n; ++i) {
    const char* e = h.level0 + i * h.per_element;
    const uint16_t cnt = u16_at(e);
    const unsigned char flag = static_cast<unsigned char>(e[2]);
    if (cnt > h.max_m0 || flag > 1 || e[3] != 0) f.bad("an HNSW element's link list header is invalid");
    for (size_t j = 0; j < cnt; ++j) {
      tableint v;
      std::memcpy(&v, e + 4 + j * sizeof v, sizeof v);
      if (v >= n) f.bad("an HNSW link points past the last element");
    }
    int64_t label;
    std::memcpy(&label, e + h.label_at, sizeof label);
    if (!flag) {
      if (label < 0) f.bad("it has a negative id");
      ++live;
    }
  }
  return live;
}

// Upper levels: a link at level l points to an element that has level l.
void check_upper_levels(const HnswFile& h, const vecfile::Loaded& f) {
  const uint64_t n = h.n;
  const std::vector<int32_t>& levels = h.levels;
  const char* up = h.upper;
  for (size_t i = 0; i < n; ++i)
    for (int32_t l = 1; l <= levels[i]; ++l, up += h.per_links) {
      const uint16_t cnt = u16_at(up);
      if (cnt > h.m || up[2] != 0 || up[3] != 0) f.bad("an HNSW upper link list header is invalid");
      for (size_t j = 0; j < cnt; ++j) {
        tableint v;
        std::memcpy(&v, up + 4 + j * sizeof v, sizeof v);
        if (v >= n || levels[v] < l) f.bad("an HNSW upper-level link is invalid");
      }
    }
}

std::unique_ptr<HnswIndex> HnswIndex::load(VectorIndexOptions opt, const vecfile::Loaded& f) {
  const HnswFile h = read_hnsw_file(opt, f);
  const uint64_t live = check_level0(h, f);
  if (live != f.count) f.bad("the live vector count does not match the header");
  check_upper_levels(h, f);

  opt.hnsw_m = static_cast<int>(h.m);
  std::unique_ptr<HnswIndex> out;
  try {
    out = std::make_unique<HnswIndex>(opt, static_cast<size_t>(h.n + h.n / 8));
  } catch (const std::exception& e) {
    f.bad(std::string("cannot allocate its HNSW graph: ") + e.what());
  }
  out->adopt(h, live, f);
  return out;
}

void HnswIndex::adopt(const HnswFile& h, uint64_t live, const vecfile::Loaded& f) {
  const uint64_t n = h.n;
  const std::vector<int32_t>& levels = h.levels;
  Graph& g = *g_;
  if (g.size_data_per_element_ != h.per_element || g.size_links_per_element_ != h.per_links || g.label_offset_ != h.label_at)
    f.bad("its HNSW layout differs from this hnswlib's");
  if (n) std::memcpy(g.data_level0_memory_, h.level0, n * h.per_element);
  const char* up = h.upper;
  for (size_t i = 0; i < n; ++i) {
    g.element_levels_[i] = levels[i];
    g.linkLists_[i] = nullptr;
    if (levels[i] > 0) {
      const size_t bytes = h.per_links * static_cast<size_t>(levels[i]);
      g.linkLists_[i] = static_cast<char*>(std::malloc(bytes + 1));  // as hnswlib's addPoint sizes it
      if (!g.linkLists_[i]) {
        g.cur_element_count = i;  // the destructor frees the lists allocated so far
        f.bad("out of memory for its HNSW link lists");
      }
      std::memcpy(g.linkLists_[i], up, bytes);
      up += bytes;
    }
    g.cur_element_count = i + 1;
  }
  g.cur_element_count = n;
  g.maxlevel_ = h.max_level;
  g.enterpoint_node_ = h.entry;
  g.num_deleted_ = 0;
  g.label_lookup_.reserve(live);
  for (tableint i = 0; i < n; ++i) {
    if (g.isMarkedDeleted(i)) {
      ++g.num_deleted_;
      free_.push_back(i);
      continue;
    }
    if (!g.label_lookup_.emplace(g.getExternalLabel(i), i).second) f.bad("it has duplicate ids");
  }
  // Reuse the lowest slots first (back of the list).
  std::reverse(free_.begin(), free_.end());
}

}  // namespace

std::unique_ptr<IndexBackend> make_hnsw_index(const VectorIndexOptions& opt) { return std::make_unique<HnswIndex>(opt); }

std::unique_ptr<IndexBackend> load_hnsw_index(const VectorIndexOptions& opt, const vecfile::Loaded& f) {
  return HnswIndex::load(opt, f);
}

}  // namespace mmkg
