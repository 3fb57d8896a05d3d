#include "index/vector_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>

#include "core/error.h"

namespace mmkg::vecfile {
namespace {

std::string errno_text() { return std::strerror(errno); }

constexpr size_t kBuffer = size_t{1} << 20;

}  // namespace

Writer::Writer(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw IOError("cannot create " + path + ": " + errno_text() + "; check the directory's permissions and free space");
  state_ = XXH3_createState();
  XXH3_64bits_reset(state_);
  buf_.reserve(kBuffer);
}

Writer::~Writer() {
  if (fd_ >= 0) ::close(fd_);
  XXH3_freeState(state_);
}

void Writer::write(const void* data, size_t n) {
  XXH3_64bits_update(state_, data, n);
  if (n >= kBuffer) {
    flush();
    raw_write(data, n);
    return;
  }
  if (buf_.size() + n > kBuffer) flush();
  buf_.append(static_cast<const char*>(data), n);
}

void Writer::flush() {
  if (buf_.empty()) return;
  raw_write(buf_.data(), buf_.size());
  buf_.clear();
}

void Writer::finish() {
  uint64_t h = XXH3_64bits_digest(state_);
  buf_.append(reinterpret_cast<const char*>(&h), sizeof h);
  flush();
  if (::fsync(fd_) != 0) fail("fsync");
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close");
}

void Writer::raw_write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_, p, std::min<size_t>(n, size_t{1} << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("write");
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void Writer::fail(const char* what) {
  throw IOError(std::string("cannot ") + what + " " + path_ + ": " + errno_text() + "; check free disk space");
}

void save(const std::string& path, uint32_t kind, int dim, uint64_t count, const std::string& tag,
          const std::function<void(Writer&)>& body) {
  // A temporary name of this writer's own: two processes (or a server's reader and writer
  // sessions) may save the same index at once; each renames its own complete file into place.
  static std::atomic<unsigned> seq{0};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(seq++);
  try {
    Writer f(tmp);
    f.write(kMagic, sizeof kMagic);
    f.put<uint32_t>(kVersion);
    f.put<uint32_t>(static_cast<uint32_t>(dim));
    f.put<uint32_t>(kind);
    f.put<uint64_t>(count);
    f.put<uint32_t>(static_cast<uint32_t>(tag.size()));
    f.write(tag.data(), tag.size());
    body(f);
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

}  // namespace mmkg::vecfile
