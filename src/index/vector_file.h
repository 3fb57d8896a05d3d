// The file container shared by the vector index backends (flat_index.cc, hnsw_index.cc):
//
//   "MMKGVEC\0"  u32 version  u32 dim  u32 kind  u64 count (live vectors)  u32 tag_len  tag bytes
//   body (the backend's own layout; it must consume it exactly)
//   u64 XXH3_64bits of every preceding byte
//
// Versions: 1 wrote kinds 0 (FAISS flat) and 1 (FAISS HNSW). 2 (written now) has kinds 0 (FAISS
// flat, the same body as in version 1, so version-1 flat files still load) and 2 (hnswlib HNSW).
// A version-1 FAISS HNSW file is refused with a message saying it is rebuilt from the store.
//
// Saving is atomic: a temporary file of this writer's own, fsync, rename, fsync of the directory.
// Loading maps the file read-only, checks the magic, the version and the checksum before any
// backend parses the body, and the backends validate every size and index they read against the
// body's length, so a damaged or truncated file is an IOError, never a crash or a huge allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include <xxhash.h>

namespace mmkg::vecfile {

constexpr char kMagic[8] = {'M', 'M', 'K', 'G', 'V', 'E', 'C', '\0'};
constexpr uint32_t kVersion = 2;  ///< what save writes
constexpr uint32_t kKindFlat = 0;
constexpr uint32_t kKindFaissHnsw = 1;  ///< version 1 only; no longer read
constexpr uint32_t kKindHnsw = 2;       ///< hnswlib, version 2

/// Writes a file while hashing everything written (the checksum trailer).
class Writer {
 public:
  explicit Writer(const std::string& path);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  void write(const void* data, size_t n);
  template <class T>
  void put(T v) { write(&v, sizeof v); }
  /// Writes the checksum, fsyncs and closes.
  void finish();

 private:
  void raw_write(const void* data, size_t n);
  void flush();
  [[noreturn]] void fail(const char* what);
  std::string path_;
  int fd_ = -1;
  XXH3_state_t* state_;
  std::string buf_;
};

/// Saves atomically to `path`: the header, then `body(writer)`, then the checksum.
void save(const std::string& path, uint32_t kind, int dim, uint64_t count, const std::string& tag,
          const std::function<void(Writer&)>& body);

/// Bounds-checked reader over a byte range. Reads past the end set ok = false and yield zeros.
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
  /// Skips count items of `item` bytes (overflow-safe).
  const char* skip_items(uint64_t count, size_t item) {
    if (item && count > (size - pos) / item) {
      ok = false;
      return nullptr;
    }
    return skip(count * item);
  }
  size_t left() const { return size - pos; }
};

/// What a backend's loader gets: the header fields and the body. `bad(why)` throws the IOError
/// that names the file and says what to do.
struct Loaded {
  uint32_t version = 0;
  uint32_t kind = 0;
  uint64_t count = 0;
  const char* body = nullptr;
  size_t body_size = 0;
  std::function<void(const std::string&)> bad;
};

}  // namespace mmkg::vecfile
