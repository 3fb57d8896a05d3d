#include "ingest/ingest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "core/error.h"
#include "core/hash.h"
#include "embed/embedder.h"
#include "index/vector_store.h"
#include "ingest/parser.h"
#include "store/store.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

// Embedding batches: large enough to keep both cores busy, small enough to report progress.
constexpr size_t kEmbedBatch = 256;

// Embeds one batch of texts as documents, timing and counting it in `res`; one vector per text.
std::vector<std::vector<float>> embed_batch(Embedder& emb, const std::vector<std::string>& texts,
                                            IngestResult& res) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<float>> out = embed_rows(emb, texts, EmbedKind::Document);
  res.embed_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.embedded += static_cast<int64_t>(texts.size());
  return out;
}

// Fills the chunks' vectors: reused from the store where the same text was embedded before,
// computed otherwise.
void embed_chunks(Store& store, Embedder& emb, std::vector<Chunk>& chunks, IngestResult& res,
                  const std::function<void(int64_t, int64_t)>& on_batch) {
  std::vector<std::string> texts;
  for (auto& c : chunks) texts.push_back(c.text);
  auto cached = store.cached_embeddings(emb.id(), texts);
  std::vector<std::string> todo;
  std::vector<size_t> where;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (cached[i].size() == static_cast<size_t>(emb.dim())) {
      chunks[i].vector = std::move(cached[i]);
      ++res.embed_reused;
    } else {
      todo.push_back(chunks[i].text);
      where.push_back(i);
    }
  }
  for (size_t b = 0; b < todo.size(); b += kEmbedBatch) {
    size_t e = std::min(todo.size(), b + kEmbedBatch);
    std::vector<std::string> part(todo.begin() + static_cast<std::ptrdiff_t>(b), todo.begin() + static_cast<std::ptrdiff_t>(e));
    auto vecs = embed_batch(emb, part, res);
    for (size_t k = b; k < e; ++k) chunks[where[k]].vector = std::move(vecs[k - b]);
    if (on_batch) on_batch(static_cast<int64_t>(e), static_cast<int64_t>(todo.size()));
  }
}

// What a worker produces for one file.
struct Parsed {
  std::string path;
  std::string error;     // non-empty: the file failed
  bool unchanged = false;
  std::string doc_id;
  int64_t bytes = 0;
  ParsedDocument doc;
  std::string text;      // rendered text
  std::vector<Chunk> chunks;
};

const Parser& parser_for(const std::string& format) {
  static const auto pdf = make_pdf_parser();
  static const auto md = make_markdown_parser();
  static const auto html = make_html_parser();
  static const auto text = make_text_parser();
  if (format == "pdf") return *pdf;
  if (format == "markdown") return *md;
  if (format == "html") return *html;
  return *text;
}

void process(const std::string& path, const IngestOptions& opt, Store* reader, Parsed& out) {
  out.path = path;
  try {
    std::string bytes = read_file(path, opt.max_file_bytes);
    out.bytes = static_cast<int64_t>(bytes.size());
    out.doc_id = hash_hex(bytes);
    if (reader) {
      auto prev = reader->find_by_path(path);
      if (prev && prev->id == out.doc_id) {
        out.unchanged = true;
        return;
      }
    }
    std::string format = detect_format(path, bytes);
    out.doc = parser_for(format).parse(path, bytes);
    bytes.clear();
    bytes.shrink_to_fit();
    RenderedDocument r = render_document(out.doc);
    if (r.text.empty()) throw InputError("no text found in the document");
    out.chunks = chunk_document(out.doc, r, out.doc_id, opt.chunker);
    out.text = std::move(r.text);
    out.doc.blocks.clear();
    out.doc.blocks.shrink_to_fit();
  } catch (const Error& e) {
    out.error = e.what();
  } catch (const std::bad_alloc&) {
    out.error = "out of memory while parsing; lower --max-file-size or split the file";
  } catch (const std::exception& e) {
    out.error = std::string("internal error while parsing: ") + e.what() + "; please report it";
  }
}

}  // namespace

IngestResult ingest(Store& store, const std::vector<std::string>& paths, const IngestOptions& opt,
                    const ProgressFn& progress) {
  auto t0 = std::chrono::steady_clock::now();
  IngestResult res;
  FileList list = collect_files(paths);
  res.failed = list.errors;
  res.ignored = list.ignored;
  const size_t n = list.files.size();

  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  size_t threads = opt.threads > 0 ? static_cast<size_t>(opt.threads) : hw;
  threads = std::max<size_t>(1, std::min(threads, n));
  const size_t window = threads * 2;  // bounded number of parsed-but-unwritten documents

  std::vector<std::optional<Parsed>> slots(n);
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0;     // next file to hand out
  size_t written = 0;  // files consumed by the writer
  bool stop = false;

  auto worker = [&]() {
    std::unique_ptr<Store> reader;
    try {
      reader = Store::open(store.dir(), false);
    } catch (const Error&) {
      // Without a reader connection unchanged files are still detected by the writer.
    }
    for (;;) {
      size_t i;
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return stop || next >= n || next < written + window; });
        if (stop || next >= n) return;
        i = next++;
      }
      Parsed p;
      process(list.files[i], opt, reader.get(), p);
      {
        std::lock_guard lk(mu);
        slots[i] = std::move(p);
      }
      cv.notify_all();
    }
  };

  const int64_t gen_before = store.generation();
  std::vector<int64_t> added, removed;
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads && n > 0; ++t) pool.emplace_back(worker);

  auto finish_pool = [&]() {
    {
      std::lock_guard lk(mu);
      stop = true;
    }
    cv.notify_all();
    for (auto& t : pool) t.join();
  };

  try {
    for (size_t i = 0; i < n; ++i) {
      Parsed p;
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return slots[i].has_value(); });
        p = std::move(*slots[i]);
        slots[i].reset();
        written = i + 1;
      }
      cv.notify_all();

      if (!p.error.empty()) {
        res.failed.push_back({p.path, p.error});
      } else if (p.unchanged) {
        ++res.skipped;
      } else {
        for (auto& w : p.doc.warnings) res.warnings.push_back({p.path, w});
        auto prev = store.find_by_path(p.path);
        auto same = store.find_by_id(p.doc_id);
        if (prev && prev->id == p.doc_id) {
          ++res.skipped;
        } else if (same) {
          // Identical content already stored under another path: keep one copy.
          if (prev) {
            WriteResult wr;
            store.delete_document(prev->id, &wr);
            removed.insert(removed.end(), wr.removed_rowids.begin(), wr.removed_rowids.end());
          }
          ++res.skipped;
          res.warnings.push_back({p.path, "same content as " + same->path + "; stored once"});
        } else {
          DocumentRecord d;
          d.id = p.doc_id;
          d.path = p.path;
          d.name = fs::path(p.path).filename().string();
          d.format = p.doc.format;
          d.title = p.doc.title;
          d.bytes = p.bytes;
          d.pages = p.doc.pages;
          try {
            if (opt.embedder)
              embed_chunks(store, *opt.embedder, p.chunks, res, [&](int64_t done, int64_t total) {
                if (!progress || done == total) return;
                IngestProgress pr;
                pr.files_done = i;
                pr.files_total = n;
                pr.pages = res.pages;
                pr.bytes = res.bytes;
                pr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                pr.current = p.path;
                pr.embed_done = done;
                pr.embed_total = total;
                progress(pr);
              });
            WriteResult wr = store.put_document(d, p.text, p.chunks,
                                                prev ? std::optional<std::string>(prev->id) : std::nullopt,
                                                opt.embedder ? opt.embedder->id() : "");
            added.insert(added.end(), wr.added_rowids.begin(), wr.added_rowids.end());
            removed.insert(removed.end(), wr.removed_rowids.begin(), wr.removed_rowids.end());
            ++res.documents;
            res.chunks += static_cast<int64_t>(p.chunks.size());
            res.pages += p.doc.pages;
            res.bytes += p.bytes;
          } catch (const IOError& e) {
            std::string what = e.what();
            // A locked or full store fails every later document too: stop the batch.
            if (what.find("locked") != std::string::npos || what.find("disk full") != std::string::npos) throw;
            res.failed.push_back({p.path, what});
          }
        }
      }
      if (progress) {
        IngestProgress pr;
        pr.files_done = i + 1;
        pr.files_total = n;
        pr.pages = res.pages;
        pr.bytes = res.bytes;
        pr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        pr.current = p.path;
        progress(pr);
      }
    }
  } catch (...) {
    finish_pool();
    throw;
  }
  finish_pool();

  if (opt.embedder) {
    // Chunks stored without embeddings (by an older mmkg, or with --embedder none): backfill.
    auto missing = store.chunks_without_vectors(opt.embedder->id());
    for (size_t b = 0; b < missing.size(); b += kEmbedBatch) {
      std::vector<std::string> texts;
      for (size_t i = b; i < std::min(missing.size(), b + kEmbedBatch); ++i) {
        texts.push_back(missing[i].second);
        added.push_back(missing[i].first);
      }
      store.put_embeddings(opt.embedder->id(), texts, embed_batch(*opt.embedder, texts, res));
    }
    VectorIndexStatus vs = update_vector_index(store, opt.embedder->id(), opt.embedder->dim(), gen_before, added, removed);
    res.vector_index = vs.updated ? "updated" : (vs.rebuilt ? "rebuilt: " + vs.reason : "");
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace mmkg
