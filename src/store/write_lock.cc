#include "store/write_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace mmkg {

std::string StoreWriteLock::path(const std::string& store_dir, const char* file) { return store_dir + "/" + file; }

StoreWriteLock::StoreWriteLock(const std::string& store_dir,
                               const std::function<void(const std::string&)>& on_wait, const char* file) {
  const std::string p = path(store_dir, file);
  fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) {
    const int err = errno;
    if (err == EROFS || err == EACCES || err == EPERM)
      throw IOError("cannot write to the store " + store_dir + " (" + std::strerror(err) +
                    "); it is read-only here: search and ask work, ingest and delete need write access");
    throw IOError("cannot create the store's lock file " + p + " (" + std::strerror(err) + ")");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      const int err = errno;
      ::close(fd_);
      throw IOError("cannot lock " + p + " (" + std::strerror(err) + ")");
    }
    if (on_wait) {
      char buf[32] = {};
      const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
      std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      on_wait("another mmkg process" + (holder.empty() ? std::string() : " (pid " + holder + ")") +
              " is writing this store; waiting for it to finish");
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd_);
      throw IOError("cannot lock " + p + " (" + std::strerror(err) + ")");
    }
  }
  // The holder's pid, for the next waiter's message (best effort: the lock is what counts).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

StoreWriteLock::~StoreWriteLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace mmkg
