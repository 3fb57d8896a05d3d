// The embedding stage of ingest (issue 15): documents are searchable by BM25 before their
// embedding is done, an interrupted embedding is finished by the next ingest (exactly the missing
// vectors), and batches spanning documents, longest texts first, give each chunk its own vector.
#include "ingest/embed_stage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "embed/embedder.h"
#include "index/lexical.h"
#include "index/vector_store.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

// The bundled all-MiniLM-L6-v2, loaded once; nullptr when it is not installed.
Embedder* native() {
  static std::unique_ptr<Embedder> emb = [] {
    try {
      return make_embedder("native");
    } catch (const Error&) {
      return std::unique_ptr<Embedder>();
    }
  }();
  return emb.get();
}

// The native embedder with test hooks: it holds every call while closed, fails from call
// number `fail_from` on (1-based; 0: never), and records the text lengths of each call.
class HookedEmbedder : public Embedder {
 public:
  explicit HookedEmbedder(Embedder& inner) : inner_(inner) {}
  std::string id() const override { return inner_.id(); }
  int dim() const override { return inner_.dim(); }
  std::vector<float> embed(const std::vector<std::string>& texts, EmbedKind kind) override {
    {
      std::unique_lock lk(mu_);
      ++waiting_;
      cv_.notify_all();
      cv_.wait(lk, [&] { return open_; });
      --waiting_;
      std::vector<size_t> lens;
      for (const auto& t : texts) lens.push_back(t.size());
      calls_.push_back(lens);
      if (fail_from_ && calls_.size() >= fail_from_) throw Error("the test embedder is down; restart it");
    }
    return inner_.embed(texts, kind);
  }
  void close() { set_open(false); }
  void open() { set_open(true); }
  void fail_from(size_t call) {
    std::lock_guard lk(mu_);
    fail_from_ = call;
  }
  /// Waits up to 60 s until a call is held; false if none came.
  bool wait_for_held_call() {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, std::chrono::seconds(60), [&] { return waiting_ > 0; });
  }
  std::vector<std::vector<size_t>> calls() {
    std::lock_guard lk(mu_);
    return calls_;
  }

 private:
  void set_open(bool v) {
    {
      std::lock_guard lk(mu_);
      open_ = v;
    }
    cv_.notify_all();
  }
  Embedder& inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int waiting_ = 0;
  size_t fail_from_ = 0;
  std::vector<std::vector<size_t>> calls_;
};

#define REQUIRE_NATIVE()                                                     \
  if (!native()) GTEST_SKIP() << "all-MiniLM-L6-v2 not installed (make setup)"

// `n` short lines naming `word` and their numbers: one chunk each with small chunks.
std::string lines(const std::string& word, int n, int from = 0) {
  std::string body;
  for (int i = from; i < from + n; ++i) body += "Line " + std::to_string(i) + " names " + word + std::to_string(i) + ".\n\n";
  return body;
}

IngestOptions small_chunks(Embedder* emb) {
  IngestOptions opt;
  opt.embedder = emb;
  opt.chunker.target_chars = 64;
  opt.chunker.min_chars = 16;
  return opt;
}

size_t chunk_count(Store& store) { return static_cast<size_t>(store.stats().chunks); }

// What `mmkg check` requires of the vectors: every chunk either in the vector index or without a
// vector; and the full-text index matches the chunks.
void expect_consistent(Store& store, Embedder& emb) {
  EXPECT_NO_THROW(store.exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)"));
  VectorIndexStatus st;
  auto index = open_vector_index(store, emb.id(), emb.dim(), {}, &st);
  const size_t indexed = index ? static_cast<size_t>(index->size()) : 0;
  EXPECT_EQ(indexed + store.chunks_without_vectors(emb.id()).size(), chunk_count(store));
}

TEST(EmbedStage, BM25FindsADocumentWhileItsEmbeddingIsHeld) {
  REQUIRE_NATIVE();
  HookedEmbedder emb(*native());
  testing::TempDir in, st;
  const std::string f = in.write("okapi.txt", lines("okapi", 40));
  auto store = Store::open(st.str());
  emb.close();
  IngestResult res;
  std::exception_ptr err;
  std::thread ingesting([&] {
    try {
      res = ingest(*store, {f}, small_chunks(&emb));
    } catch (...) {
      err = std::current_exception();
    }
  });
  auto reader = Store::open(st.str(), false);
  bool found = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!found && std::chrono::steady_clock::now() < deadline) {
    found = !bm25_search(*reader, "okapi17").empty();
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool held = emb.wait_for_held_call();
  const size_t without = reader->chunks_without_vectors(emb.id()).size();
  emb.open();
  ingesting.join();
  ASSERT_FALSE(err);
  EXPECT_TRUE(found) << "the document is committed before it is embedded";
  EXPECT_TRUE(held);
  EXPECT_EQ(without, chunk_count(*reader)) << "no vector was written while the embedder was held";
  EXPECT_EQ(res.embedded, res.chunks);
  EXPECT_TRUE(reader->chunks_without_vectors(emb.id()).empty());
  EXPECT_FALSE(res.vector_index.empty());
  expect_consistent(*reader, emb);
}

TEST(EmbedStage, AFailedEmbeddingKeepsTheDocumentsAndTheNextIngestEmbedsExactlyTheMissing) {
  REQUIRE_NATIVE();
  HookedEmbedder emb(*native());
  testing::TempDir in, st;
  for (int d = 0; d < 6; ++d) in.write("doc" + std::to_string(d) + ".txt", lines("animal" + std::to_string(d) + "x", 100));
  auto store = Store::open(st.str());
  emb.fail_from(2);  // the first batch is embedded, then the embedder is down
  try {
    ingest(*store, {in.str()}, small_chunks(&emb));
    FAIL() << "the embedder's failure is not reported";
  } catch (const UsageError&) {
    FAIL() << "a failing embedder is not a usage error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the test embedder is down; restart it"), std::string::npos) << what;
    EXPECT_NE(what.find("the next ingest embeds them"), std::string::npos) << what;
  }
  EXPECT_EQ(store->documents().size(), 6u) << "every document is stored";
  for (int d = 0; d < 6; ++d) EXPECT_FALSE(bm25_search(*store, "animal" + std::to_string(d) + "x42").empty());
  const auto calls = emb.calls();
  ASSERT_GE(calls.size(), 2u);
  const size_t total = chunk_count(*store);
  const size_t missing = store->chunks_without_vectors(emb.id()).size();
  EXPECT_EQ(missing, total - calls[0].size()) << "the first batch's vectors are kept";
  EXPECT_GT(missing, 0u);
  expect_consistent(*store, emb);

  // The next ingest: the documents are unchanged, only the missing vectors are computed.
  IngestResult again = ingest(*store, {in.str()}, small_chunks(native()));
  EXPECT_EQ(again.documents, 0);
  EXPECT_EQ(again.skipped, 6);
  EXPECT_EQ(again.embedded, static_cast<int64_t>(missing));
  EXPECT_TRUE(store->chunks_without_vectors(emb.id()).empty());
  auto index = open_vector_index(*store, emb.id(), emb.dim());
  EXPECT_EQ(static_cast<size_t>(index->size()), total);
  expect_consistent(*store, emb);
  EXPECT_EQ(ingest(*store, {in.str()}, small_chunks(native())).embedded, 0);
}

TEST(EmbedStage, BatchesSpanDocumentsLongestFirstAndEachChunkGetsItsOwnVector) {
  REQUIRE_NATIVE();
  HookedEmbedder emb(*native());
  testing::TempDir in, st;
  const char* topics[] = {"rivers", "volcanoes", "violins", "glaciers", "orchids", "comets"};
  for (int d = 0; d < 30; ++d) {
    std::string body;
    for (int k = 0; k < 4; ++k) {
      body += "Document " + std::to_string(d) + " paragraph " + std::to_string(k) + " is about " + topics[(d + k) % 6] + ".";
      for (int r = 0; r < (d * 7 + k * 3) % 9; ++r) body += " It adds remark " + std::to_string(r) + " on " + topics[r % 6] + ".";
      body += "\n\n";
    }
    in.write("d" + std::to_string(d) + ".txt", body);
  }
  auto store = Store::open(st.str());
  IngestOptions opt;
  opt.embedder = &emb;
  opt.chunker.target_chars = 120;
  opt.chunker.min_chars = 16;
  IngestResult res = ingest(*store, {in.str()}, opt);
  ASSERT_EQ(res.documents, 30);

  size_t per_doc = 0, biggest = 0, sum = 0;
  for (const auto& d : store->documents()) per_doc = std::max(per_doc, static_cast<size_t>(d.chunks));
  for (const auto& call : emb.calls()) {
    biggest = std::max(biggest, call.size());
    sum += call.size();
    EXPECT_TRUE(std::is_sorted(call.rbegin(), call.rend())) << "texts reach the embedder longest first";
  }
  EXPECT_GT(biggest, per_doc) << "a batch spans documents";
  EXPECT_EQ(static_cast<int64_t>(sum), res.embedded);
  EXPECT_EQ(res.embedded + res.embed_reused, res.chunks);

  // Each stored vector is its own chunk's: the one the chunk gets when embedded alone.
  for (const auto& d : store->documents())
    for (const auto& c : store->chunks_of(d.id)) {
      auto stored = store->cached_embeddings(emb.id(), {c.chunk.text});
      auto alone = embed_rows(*native(), {c.chunk.text}, EmbedKind::Document);
      ASSERT_EQ(stored[0].size(), alone[0].size()) << c.chunk.text;
      EXPECT_GT(dot(stored[0], alone[0]), 0.9999) << c.chunk.text;
    }
  expect_consistent(*store, emb);
}

}  // namespace
}  // namespace mmkg
