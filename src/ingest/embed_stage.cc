#include "ingest/embed_stage.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/error.h"
#include "embed/embedder.h"
#include "store/store.h"

namespace mmkg {

namespace {

// A partial batch waits this long for more texts; when none come (the writer is parsing or
// storing a large file), it is embedded as it is rather than leaving the cores idle.
constexpr auto kLinger = std::chrono::seconds(1);

// How long the stage's connection waits for the writer's transaction (a large document's).
// Both are this process's: StoreWriteLock keeps other writers out.
constexpr int kBusyMs = 120'000;

}  // namespace

void embed_and_store(Store& store, Embedder& emb, std::vector<std::string> texts, EmbedCounts& counts,
                     const std::function<void(size_t)>& on_batch) {
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return texts[a].size() > texts[b].size(); });
  for (size_t b = 0; b < order.size(); b += kEmbedBatch) {
    std::vector<std::string> part;
    for (size_t k = b; k < std::min(order.size(), b + kEmbedBatch); ++k) part.push_back(std::move(texts[order[k]]));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<float>> vecs = embed_rows(emb, part, EmbedKind::Document);
    counts.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    counts.embedded += static_cast<int64_t>(part.size());
    store.put_embeddings(emb.id(), part, vecs);
    if (on_batch) on_batch(part.size());
  }
}

EmbedStage::EmbedStage(const std::string& store_dir, Embedder& emb, ProgressFn progress)
    : store_dir_(store_dir), emb_(emb), progress_(std::move(progress)) {
  thread_ = std::thread([this] { run(); });
}

EmbedStage::~EmbedStage() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EmbedStage::add(std::vector<std::string> texts) {
  {
    std::lock_guard lk(mu_);
    if (error_ || stop_) return;
    queued_ += static_cast<int64_t>(texts.size());  // counted at once: progress shows the whole total
  }
  for (size_t i = 0; i < texts.size();) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return error_ || stop_ || queue_.size() < kMaxQueued; });
    if (error_ || stop_) return;
    while (i < texts.size() && queue_.size() < kMaxQueued) queue_.push_back(std::move(texts[i++]));
    lk.unlock();
    cv_.notify_all();
  }
}

void EmbedStage::finish() {
  {
    std::lock_guard lk(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::exception_ptr EmbedStage::error() const {
  std::lock_guard lk(mu_);
  return error_;
}

void EmbedStage::rethrow_store_error() const {
  std::exception_ptr e = error();
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const StoreLockedError&) {
    throw;
  } catch (const StoreFullError&) {
    throw;
  } catch (...) {  // the embedder's: the writer goes on, documents are stored without vectors
  }
}

EmbedCounts EmbedStage::counts() const {
  std::lock_guard lk(mu_);
  return counts_;
}

void EmbedStage::fail(std::exception_ptr e) {
  {
    std::lock_guard lk(mu_);
    if (!error_) error_ = e;
    queue_.clear();
  }
  cv_.notify_all();  // a writer waiting for room in the queue
}

void EmbedStage::run() {
  std::unique_ptr<Store> store;
  try {
    store = Store::open(store_dir_, false);
    sqlite3_busy_timeout(store->db(), kBusyMs);
  } catch (...) {
    fail(std::current_exception());
    return;
  }
  for (;;) {
    std::vector<std::string> batch;
    int64_t done = 0, queued = 0;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return stop_ || closing_ || !queue_.empty(); });
      // Full batches: wait for more texts while they keep coming.
      while (!stop_ && !closing_ && queue_.size() < kEmbedBatch) {
        const int64_t before = queued_;
        cv_.wait_for(lk, kLinger, [&] { return stop_ || closing_ || queue_.size() >= kEmbedBatch || queued_ != before; });
        if (queued_ == before) break;  // input paused: embed what there is
      }
      if (stop_ || queue_.empty()) return;
      const size_t n = std::min(queue_.size(), kEmbedBatch);
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    cv_.notify_all();  // room for the writer
    EmbedCounts c;
    try {
      embed_and_store(*store, emb_, std::move(batch), c);
    } catch (...) {
      fail(std::current_exception());
      return;
    }
    {
      std::lock_guard lk(mu_);
      counts_.embedded += c.embedded;
      counts_.seconds += c.seconds;
      done = done_ += c.embedded;
      queued = queued_;
    }
    if (progress_) progress_(done, queued);
  }
}

}  // namespace mmkg
