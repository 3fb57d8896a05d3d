// The server's reader sessions. Each request that searches or asks leases one Session for its
// whole run (a Session is not thread-safe; each has its own SQLite connection, so readers never
// wait for the writer: the store is in WAL mode). A leased session is refreshed first when the
// store or its graph has changed (Session::refresh), so every answer sees the last committed
// write. At most `size` sessions exist (each holds its own embedder); at most `max_queue`
// requests wait for one, and the next gets 429 (HttpError) at once.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "app/session.h"

namespace mmkg::server {

class SessionPool {
 public:
  /// `writer_busy`, when given, says whether the server's writer is running a job: while it is,
  /// leased readers use the vector index file as it is rather than rebuilding it after each
  /// committed document (Session::accept_stale_index).
  SessionPool(Config cfg, int size, int max_queue, double wait_s = 60, std::function<bool()> writer_busy = {});
  ~SessionPool();

  /// A session for this thread until the pointer is dropped. Throws HttpError 429 when
  /// `max_queue` requests already wait, 503 when none came free within the wait.
  std::shared_ptr<Session> acquire();
  /// Opens one session and loads its embedder, so the first query does not pay for it.
  void warm();

  int size() const { return size_; }
  int busy() const;
  int waiting() const;

 private:
  void give_back(Session* s);
  Config cfg_;
  const int size_, max_queue_;
  const double wait_s_;
  std::function<bool()> writer_busy_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Session>> idle_;
  int created_ = 0, busy_ = 0, waiting_ = 0;
};

}  // namespace mmkg::server
