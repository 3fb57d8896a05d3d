#include "server/pool.h"

#include <chrono>

#include "core/error.h"
#include "server/http.h"

namespace mmkg::server {

SessionPool::SessionPool(Config cfg, int size, int max_queue, double wait_s, std::function<bool()> writer_busy)
    : cfg_(std::move(cfg)),
      size_(std::max(1, size)),
      max_queue_(std::max(0, max_queue)),
      wait_s_(wait_s),
      writer_busy_(std::move(writer_busy)) {}

SessionPool::~SessionPool() = default;

std::shared_ptr<Session> SessionPool::acquire() {
  std::unique_ptr<Session> s;
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (idle_.empty() && created_ >= size_) {
      if (waiting_ >= max_queue_)
        throw HttpError(429, "too_many_requests",
                        "the server is busy (" + std::to_string(size_) + " requests running, " +
                            std::to_string(waiting_) + " waiting); retry after a second");
      ++waiting_;
      const bool got = cv_.wait_for(lk, std::chrono::duration<double>(wait_s_), [&] { return !idle_.empty(); });
      --waiting_;
      if (!got) throw HttpError(503, "unavailable", "no session came free in time; retry later");
    }
    if (!idle_.empty()) {
      s = std::move(idle_.back());
      idle_.pop_back();
    } else {
      ++created_;
    }
    ++busy_;
  }
  try {
    if (!s) s = Session::open(cfg_, false);
    s->accept_stale_index(writer_busy_ && writer_busy_());
    s->refresh();
  } catch (...) {
    std::lock_guard<std::mutex> lk(mu_);
    --busy_;
    if (!s) --created_;
    else idle_.push_back(std::move(s));
    cv_.notify_one();
    throw;
  }
  Session* raw = s.release();
  return std::shared_ptr<Session>(raw, [this](Session* p) { give_back(p); });
}

void SessionPool::give_back(Session* s) {
  std::lock_guard<std::mutex> lk(mu_);
  idle_.emplace_back(s);
  --busy_;
  cv_.notify_one();
}

void SessionPool::warm() {
  auto s = acquire();
  s->warm();
}

int SessionPool::busy() const {
  std::lock_guard<std::mutex> lk(mu_);
  return busy_;
}

int SessionPool::waiting() const {
  std::lock_guard<std::mutex> lk(mu_);
  return waiting_;
}

}  // namespace mmkg::server
