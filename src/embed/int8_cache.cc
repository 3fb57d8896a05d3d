// The int8 layers' disk cache (see int8_cache.h).
#include "embed/int8_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <type_traits>

#include "core/hash.h"
#include "core/mapped_file.h"

#ifndef MMKG_ENCODER_CODE_HASH  // set by CMakeLists.txt from the encoder's sources
#define MMKG_ENCODER_CODE_HASH MMKG_VERSION
#endif

namespace mmkg {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'M', 'M', 'K', 'G', 'I', 'N', 'T', '8'};
constexpr uint32_t kFormatVersion = 1;

// Hashes a file's name and bytes into `h`; a missing file adds a marker instead.
void hash_file(Hasher& h, const fs::path& p) {
  h.update(p.filename().string());
  const MappedFile m(p.string());
  if (m.status() == MappedFile::Status::Missing) {
    h.update(std::string_view("\0missing", 8));
  } else if (!m.ok()) {
    h.update(std::string_view("\0unmappable", 11));
  } else {
    h.update(m.bytes());  // empty for an empty file
  }
}

class Writer {
 public:
  void bytes(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
  template <typename T>
  void pod(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  template <typename T>
  void array(const std::vector<T>& v) {
    pod<uint64_t>(v.size());
    bytes(v.data(), v.size() * sizeof(T));
  }
  std::string& buf() { return buf_; }

 private:
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool bytes(void* p, size_t n) {
    if (n > s_.size() - pos_) return false;
    std::memcpy(p, s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  template <typename T>
  bool pod(T& v) {
    return bytes(&v, sizeof v);
  }
  template <typename T>
  bool array(std::vector<T>& v) {
    uint64_t n = 0;
    if (!pod(n) || n > (s_.size() - pos_) / sizeof(T)) return false;
    v.resize(static_cast<size_t>(n));
    return bytes(v.data(), v.size() * sizeof(T));
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

void set(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
}

// Keeps the newest `keep` files of `dir` named PREFIX*EXT (by modification time).
void prune(const fs::path& dir, const std::string& prefix, const std::string& ext, size_t keep) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || e.path().extension() != ext) continue;
    files.emplace_back(fs::last_write_time(e.path(), ec), e.path());
  }
  if (files.size() <= keep) return;
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = keep; i < files.size(); ++i) fs::remove(files[i].second, ec);
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("MMKG_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "mmkg").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "mmkg").string();
  return "";
}

namespace {

// The files' identity as the kernel sees it: any change to a file's bytes changes its ctime (which
// no program can set back), and replacing it changes the inode.
std::string identity(const fs::path& root, const char* const* files, size_t count) {
  std::string id = fs::absolute(root).lexically_normal().string();
  for (size_t i = 0; i < count; ++i) {
    struct stat st {};
    const fs::path p = root / files[i];
    if (::stat(p.c_str(), &st) != 0) {
      id += "|" + std::string(files[i]) + ":missing";
      continue;
    }
    id += "|" + std::string(files[i]) + ":" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
          std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
          ":" + std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
  }
  return id;
}

}  // namespace

std::string model_files_hash(const std::string& model_dir, const std::string& cache_dir) {
  static const char* const kFiles[] = {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"};
  const fs::path root(model_dir);
  // Hashing the files (90 MB for all-MiniLM-L6-v2) takes ~17 ms, more than the rest of a cached
  // load: the hash is kept in the cache folder under the files' identity and trusted while that
  // identity holds.
  fs::path memo;
  if (!cache_dir.empty()) {
    memo = fs::path(cache_dir) / ("model-" + hash_hex(identity(root, kFiles, std::size(kFiles))) + ".hash");
    std::ifstream in(memo);
    std::string h;
    if (in >> h && h.size() == 16) return h;
  }
  Hasher h;
  for (const char* f : kFiles) hash_file(h, root / f);
  const std::string hex = h.hex();
  if (!memo.empty()) {
    std::error_code ec;
    fs::create_directories(memo.parent_path(), ec);
    const std::string tmp = memo.string() + ".tmp." + std::to_string(::getpid());
    if (std::ofstream(tmp) << hex << "\n") {
      if (::rename(tmp.c_str(), memo.c_str()) != 0) fs::remove(tmp, ec);
    }
    prune(memo.parent_path(), "model-", ".hash", 16);
  }
  return hex;
}

std::string int8_cache_key(const std::string& model_dir, int8::Isa isa, const std::string& cache_dir) {
  return std::string("model=") + model_files_hash(model_dir, cache_dir) + ";code=" + MMKG_ENCODER_CODE_HASH +
         ";compiler=" + hash_hex(__VERSION__) + ";isa=" + int8::isa_name(isa) + ";format=" +
         std::to_string(kFormatVersion);
}

std::string int8_cache_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / ("int8-" + hash_hex(key) + ".bin")).string();
}

std::optional<Int8Layers> read_int8_cache(const std::string& path, const std::string& key, std::string* why) {
  const MappedFile map(path);
  if (map.status() == MappedFile::Status::Missing) {
    set(why, "no cache file " + path);
    return std::nullopt;
  }
  if (!map.ok()) {
    set(why, path + " cannot be mapped (" + map.error() + ")");
    return std::nullopt;
  }
  if (map.size() == 0) {
    set(why, path + " is empty");
    return std::nullopt;
  }
  const std::string_view s = map.bytes();
  if (s.size() < sizeof kMagic + 8 + 8 || std::memcmp(s.data(), kMagic, sizeof kMagic) != 0) {
    set(why, path + " is not an int8 cache file");
    return std::nullopt;
  }
  uint64_t stored = 0;
  std::memcpy(&stored, s.data() + s.size() - 8, 8);
  const std::string_view body(s.data(), s.size() - 8);
  if (hash64(body) != stored) {
    set(why, path + " is truncated or corrupt (checksum)");
    return std::nullopt;
  }
  Reader r(body.substr(sizeof kMagic));
  uint32_t version = 0, key_len = 0, isa = 0, count = 0;
  std::string stored_key;
  if (!r.pod(version) || version != kFormatVersion || !r.pod(key_len)) {
    set(why, path + ": another format version");
    return std::nullopt;
  }
  stored_key.resize(key_len);
  if (!r.bytes(stored_key.data(), key_len) || stored_key != key) {
    set(why, path + " was written for another model, code version or kernel");
    return std::nullopt;
  }
  if (!r.pod(isa) || isa > static_cast<uint32_t>(int8::Isa::Avx512Vnni) || !r.pod(count) || count > 4096) {
    set(why, path + ": bad header");
    return std::nullopt;
  }
  Int8Layers out;
  out.isa = static_cast<int8::Isa>(isa);
  out.layers.resize(count);
  for (auto& layer : out.layers) {
    for (auto& w : layer) {
      if (!r.pod(w.n) || !r.pod(w.k) || !r.pod(w.kp) || !r.array(w.data) || !r.array(w.scale) ||
          !r.array(w.sum) || !r.array(w.bias) || !r.array(w.in_inv) || !r.array(w.wide)) {
        set(why, path + ": a matrix is cut short");
        return std::nullopt;
      }
      const size_t np = static_cast<size_t>(w.n_padded()), kp = static_cast<size_t>(w.kp);
      const bool ok = w.n > 0 && w.k > 0 && w.kp == (w.k + 3) / 4 * 4 && w.data.size() == np * kp &&
                      w.scale.size() == np && w.sum.size() == np && w.bias.size() == np &&
                      (w.in_inv.empty() || w.in_inv.size() == static_cast<size_t>(w.k)) &&
                      (w.wide.empty() || w.wide.size() == np * kp);
      if (!ok) {
        set(why, path + ": a matrix has inconsistent sizes");
        return std::nullopt;
      }
    }
  }
  return out;
}

bool write_int8_cache(const std::string& path, const std::string& key, const Int8Layers& layers, std::string* why) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kFormatVersion);
  w.pod<uint32_t>(static_cast<uint32_t>(key.size()));
  w.bytes(key.data(), key.size());
  w.pod<uint32_t>(static_cast<uint32_t>(layers.isa));
  w.pod<uint32_t>(static_cast<uint32_t>(layers.layers.size()));
  for (const auto& layer : layers.layers) {
    for (const auto& m : layer) {
      w.pod(m.n);
      w.pod(m.k);
      w.pod(m.kp);
      w.array(m.data);
      w.array(m.scale);
      w.array(m.sum);
      w.array(m.bias);
      w.array(m.in_inv);
      w.array(m.wide);
    }
  }
  w.pod<uint64_t>(hash64(w.buf()));

  const fs::path target(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  // A name no other writer uses: the process id, the thread and a random number.
  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000) + "." +
                          std::to_string(rd() % 1000000);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(w.buf().data(), static_cast<std::streamsize>(w.buf().size())) || !out.flush()) {
      out.close();
      fs::remove(tmp, ec);
      set(why, "cannot write " + tmp);
      return false;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    set(why, "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
    fs::remove(tmp, ec);
    return false;
  }
  prune(target.parent_path(), "int8-", ".bin", kKeepInt8CacheFiles);
  return true;
}

}  // namespace mmkg
