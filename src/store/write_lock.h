// One writer per store across processes: an advisory lock (flock) on `<store>/write.lock`.
// SQLite serialises single transactions, but an ingest is many of them plus the vector index
// file and the graph; two processes ingesting the same files at once raced between "is this
// path stored?" and the insert ("UNIQUE constraint failed: documents.path"). flock is released
// by the kernel when the holder dies (kill -9 included), so a stale lock cannot outlive it.
#pragma once

#include <functional>
#include <string>

namespace mmkg {

class StoreWriteLock {
 public:
  /// Takes the lock of store folder `store_dir` (which must exist), waiting for another holder.
  /// Before waiting, `on_wait` (if set) is called once with a line naming the holder's pid.
  /// Throws IOError when the lock file cannot be made (read-only store: says so).
  /// `file` names another lock in the same folder (a shared store's local copy is written under
  /// "sync.lock").
  explicit StoreWriteLock(const std::string& store_dir,
                          const std::function<void(const std::string&)>& on_wait = {},
                          const char* file = "write.lock");
  ~StoreWriteLock();
  StoreWriteLock(const StoreWriteLock&) = delete;
  StoreWriteLock& operator=(const StoreWriteLock&) = delete;

  /// The lock file's path in `store_dir`.
  static std::string path(const std::string& store_dir, const char* file = "write.lock");

 private:
  int fd_ = -1;
};

}  // namespace mmkg
