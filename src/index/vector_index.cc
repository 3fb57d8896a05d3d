// The policy over the two backends (index_backend.h): exact flat search while the index holds at
// most hnsw_threshold vectors, HNSW above it, back to flat when removals bring it below half the
// threshold (the gap keeps a store near the threshold from switching back and forth). Switching
// copies the live vectors out of one backend into a new one of the other kind; the old backend
// stays in place until the new one is complete, so a failure (out of memory) leaves the index as
// it was. A store that grows over many ingests crosses the threshold on the add() that takes it
// past: that one add builds the graph over every vector (in parallel); later adds insert into it.
//
// This file also checks and de-duplicates add() batches (the last occurrence of an id wins) and
// reads the file header (vector_file.h) to hand the body to the right backend's loader.
//
// Thread-safety: search(), size(), dim(), kind() and save() are const and may run concurrently from
// several threads. add() and remove() mutate the index and must not run concurrently with anything
// else (the caller holds an exclusive lock or a single writer thread).
#include "index/vector_index.h"

#include <unordered_map>

#include "core/error.h"
#include "core/mapped_file.h"
#include "index/index_backend.h"
#include "index/vector_file.h"

namespace mmkg {

const char* vector_index_kind_name(VectorIndexKind k) { return k == VectorIndexKind::Hnsw ? "hnsw" : "flat"; }
namespace {

class SwitchingVectorIndex final : public VectorIndex {
 public:
  SwitchingVectorIndex(const VectorIndexOptions& opt, std::unique_ptr<IndexBackend> backend)
      : opt_(opt), b_(std::move(backend)) {}

  void add(const std::vector<int64_t>& ids_in, const float* vecs_in) override {
    if (ids_in.empty()) return;
    if (!vecs_in) throw UsageError("VectorIndex::add: null vector data");
    for (int64_t id : ids_in)
      if (id < 0) throw UsageError("VectorIndex::add: ids must be non-negative (got " + std::to_string(id) + ")");
    // An id repeated within the batch: the last occurrence wins.
    const size_t d = static_cast<size_t>(opt_.dim);
    std::vector<int64_t> ids;
    std::vector<float> dedup;
    const float* vecs = vecs_in;
    std::unordered_map<int64_t, size_t> last;
    last.reserve(ids_in.size());
    for (size_t i = 0; i < ids_in.size(); ++i) last[ids_in[i]] = i;
    if (last.size() != ids_in.size()) {
      dedup.reserve(last.size() * d);
      for (size_t i = 0; i < ids_in.size(); ++i) {
        if (last[ids_in[i]] != i) continue;
        ids.push_back(ids_in[i]);
        dedup.insert(dedup.end(), vecs_in + i * d, vecs_in + (i + 1) * d);
      }
      vecs = dedup.data();
    }
    const std::vector<int64_t>& batch = dedup.empty() ? ids_in : ids;

    if (b_->kind() == VectorIndexKind::Flat && b_->size() + static_cast<int64_t>(batch.size()) > opt_.hnsw_threshold) {
      // Possibly crossing (replaced ids do not grow it): the flat vectors, then the batch, go into
      // a new HNSW graph if the result is above the threshold.
      b_->add(batch, vecs);
      if (b_->size() > opt_.hnsw_threshold) switch_to(make_hnsw_index(opt_));
      return;
    }
    b_->add(batch, vecs);
  }

  void remove(const std::vector<int64_t>& ids) override {
    if (ids.empty()) return;
    b_->remove(ids);
    if (b_->kind() == VectorIndexKind::Hnsw && b_->size() < opt_.hnsw_threshold / 2) switch_to(make_flat_index(opt_.dim));
  }

  std::vector<std::pair<int64_t, float>> search(const float* query, int k) const override { return b_->search(query, k); }
  int64_t size() const override { return b_->size(); }
  std::vector<int64_t> ids() const override { return b_->ids(); }
  int dim() const override { return opt_.dim; }
  VectorIndexKind kind() const override { return b_->kind(); }
  void save(const std::string& path, const std::string& tag) const override { b_->save(path, tag); }

 private:
  /// Moves every live vector into `next`, which then replaces the current backend.
  void switch_to(std::unique_ptr<IndexBackend> next) {
    std::vector<int64_t> ids;
    std::vector<float> vecs;
    b_->live_vectors(&ids, &vecs);
    if (!ids.empty()) next->add(ids, vecs.data());
    b_ = std::move(next);
  }

  VectorIndexOptions opt_;
  std::unique_ptr<IndexBackend> b_;
};

void check_options(const VectorIndexOptions& opt) {
  if (opt.dim <= 0) throw UsageError("vector index dimension must be positive (got " + std::to_string(opt.dim) + ")");
  if (opt.hnsw_m < 2 || opt.hnsw_m > 1000)
    throw UsageError("HNSW M must be between 2 and 1000 (got " + std::to_string(opt.hnsw_m) + ")");
}

}  // namespace

std::unique_ptr<VectorIndex> make_vector_index(const VectorIndexOptions& opt) {
  check_options(opt);
  return std::make_unique<SwitchingVectorIndex>(opt, make_flat_index(opt.dim));
}

std::unique_ptr<VectorIndex> load_vector_index(const std::string& path, const VectorIndexOptions& opt,
                                               std::string* tag) {
  check_options(opt);
  const std::string what = "vector index " + path;
  const std::string redo = "; delete it and rebuild the vector index (any `mmkg search` or `mmkg ingest` on the store "
                           "rebuilds a missing index from the store)";
  auto corrupt = [&](const std::string& why) -> void { throw IOError(what + " is corrupt (" + why + ")" + redo); };

  const MappedFile file(path, /*sequential=*/true);  // no copy on the heap
  switch (file.status()) {
    case MappedFile::Status::Ok: break;
    case MappedFile::Status::Missing: return nullptr;
    case MappedFile::Status::NotAFile: throw IOError(what + " is not a regular file (a directory?)" + redo);
    case MappedFile::Status::Unreadable: throw IOError("cannot read " + what + ": " + file.error());
    case MappedFile::Status::Unmappable:
      throw IOError("cannot map " + what + ": " + file.error());
  }
  const char* data = file.data();
  const size_t size = file.size();
  if (size == 0) throw IOError(what + " is empty (truncated)" + redo);
  vecfile::Cursor c{data, size};
  char magic[sizeof vecfile::kMagic];
  if (!c.take(magic, sizeof magic) || std::memcmp(magic, vecfile::kMagic, sizeof magic) != 0)
    throw IOError(what + " is not an mmkg vector index (bad magic)" + redo);
  const auto version = c.get<uint32_t>();
  if (!c.ok) throw IOError(what + " is truncated (" + std::to_string(size) + " bytes, header incomplete)" + redo);
  if (version != 1 && version != vecfile::kVersion)
    throw IOError(what + " has format version " + std::to_string(version) + "; this build reads versions 1 and " +
                  std::to_string(vecfile::kVersion) + redo);
  const auto dim = c.get<uint32_t>();
  const auto kind = c.get<uint32_t>();
  const auto count = c.get<uint64_t>();
  const auto tag_len = c.get<uint32_t>();
  const char* tag_p = c.skip(tag_len);
  if (!c.ok || c.left() < 8)
    throw IOError(what + " is truncated or corrupt (" + std::to_string(size) + " bytes; the header runs past the end of the file)" +
                  redo);
  uint64_t stored_sum;
  std::memcpy(&stored_sum, data + size - 8, 8);
  if (XXH3_64bits(data, size - 8) != stored_sum)
    corrupt("checksum mismatch: the file is truncated or damaged");
  if (static_cast<int64_t>(dim) != opt.dim)
    throw IOError(what + " was built with " + std::to_string(dim) + "-dimensional embeddings, but the embedder has " +
                  std::to_string(opt.dim) + " dimensions" + redo);

  vecfile::Loaded f;
  f.version = version;
  f.kind = kind;
  f.count = count;
  f.body = data + c.pos;
  f.body_size = size - 8 - c.pos;
  f.bad = corrupt;
  std::unique_ptr<IndexBackend> backend;
  if (kind == vecfile::kKindFlat) {
    backend = load_flat_index(opt.dim, f);
  } else if (kind == vecfile::kKindHnsw && version == vecfile::kVersion) {
    backend = load_hnsw_index(opt, f);
  } else if (kind == vecfile::kKindFaissHnsw && version == 1) {
    throw IOError(what + " holds a FAISS HNSW index written by an older mmkg, which this build no longer reads" + redo);
  } else {
    corrupt("unknown index kind " + std::to_string(kind) + " in format version " + std::to_string(version));
  }
  if (tag) tag->assign(tag_p, tag_len);
  return std::make_unique<SwitchingVectorIndex>(opt, std::move(backend));
}

}  // namespace mmkg
