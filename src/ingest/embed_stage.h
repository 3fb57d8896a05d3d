// The embedding stage of ingest (issue 15). The writer commits each document's chunks without
// vectors, so BM25 finds them at once, and hands the texts still to embed to this stage: a thread
// of its own that embeds them in batches spanning documents (longest texts first, full batches)
// and writes their vectors in transactions of its own, through its own store connection, while
// the parser threads and the writer go on with the next files. A kill at any moment leaves chunks
// without vectors at worst, which the next ingest embeds (Store::chunks_without_vectors).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mmkg {

class Embedder;
class Store;

/// Texts per embed() call: enough to keep every core busy, small enough to report progress.
inline constexpr size_t kEmbedBatch = 256;

/// What embedding cost: texts embedded and seconds spent in Embedder::embed.
struct EmbedCounts {
  int64_t embedded = 0;
  double seconds = 0;
};

/// Embeds `texts` as documents and stores their vectors under the embedder's id: sorted longest
/// first and cut into calls of at most kEmbedBatch texts (so a batch holds similar lengths: less
/// padding for servers that pad), each call's vectors written in a transaction of its own (a kill
/// keeps what was written). Adds to `counts`; calls `on_batch(n)` after each call of n texts.
/// Throws what the embedder or the store throws.
void embed_and_store(Store& store, Embedder& emb, std::vector<std::string> texts, EmbedCounts& counts,
                     const std::function<void(size_t)>& on_batch = {});

class EmbedStage {
 public:
  /// Called after each batch, from the stage's thread: texts embedded so far, texts queued so far.
  using ProgressFn = std::function<void(int64_t done, int64_t queued)>;

  /// Starts the stage's thread, which opens its own connection to the store in `store_dir` (the
  /// caller holds the store's write lock; threads of one process share it).
  EmbedStage(const std::string& store_dir, Embedder& emb, ProgressFn progress = {});
  /// Stops the thread without embedding what is still queued (those chunks stay without vectors;
  /// the next ingest embeds them) and waits for the batch in hand.
  ~EmbedStage();
  EmbedStage(const EmbedStage&) = delete;
  EmbedStage& operator=(const EmbedStage&) = delete;

  /// Queues the texts of committed chunks. Blocks while kMaxQueued texts wait (bounded memory:
  /// the writer then runs at the embedder's pace). Does nothing once the stage has failed.
  void add(std::vector<std::string> texts);
  /// Embeds what is still queued (the last batch may be short), waits for it and stops the thread.
  void finish();
  /// The stage's first error (nullptr if none): the embedder failing or the store refusing a write.
  /// After it the stage embeds nothing more; what it had not written stays without vectors.
  std::exception_ptr error() const;
  /// Rethrows error() when it is the store's (full disk, locked): every later write would fail
  /// the same way, so the writer stops on it too.
  void rethrow_store_error() const;
  EmbedCounts counts() const;

  /// At most this many texts wait in the queue.
  static constexpr size_t kMaxQueued = 8 * kEmbedBatch;

 private:
  void run();
  void fail(std::exception_ptr e);

  const std::string store_dir_;
  Embedder& emb_;
  const ProgressFn progress_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  int64_t queued_ = 0;  // texts ever queued
  int64_t done_ = 0;    // texts embedded and written
  EmbedCounts counts_;
  std::exception_ptr error_;
  bool closing_ = false;  // finish(): no more texts; embed the rest
  bool stop_ = false;     // destructor: stop now
  std::thread thread_;
};

}  // namespace mmkg
