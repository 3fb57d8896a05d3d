#include "ingest/ingest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

#include "core/error.h"
#include "core/hash.h"
#include "embed/embedder.h"
#include "index/vector_store.h"
#include "index/xapian_lexical.h"
#include "ingest/embed_stage.h"
#include "ingest/figures.h"
#include "ingest/formats.h"
#include "ingest/parser.h"
#include "store/store.h"
#include "text/words.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

// What a worker produces for one file.
struct Parsed {
  std::string path;
  std::string error;     // non-empty: the file failed
  bool unchanged = false;
  bool claimed = false;            // this writer claimed the file (released once it is written)
  bool claimed_elsewhere = false;  // another writer of a shared store has it in hand

  std::string doc_id;
  int64_t bytes = 0;
  ParsedDocument doc;
  std::string source;    // the file, for a store that keeps it (Store::keeps_sources)
  std::string text;      // rendered text
  std::vector<Chunk> chunks;
  FigureStats figure_stats;
};

const Parser& parser_for(Reader reader) {
  static const auto pdf = make_pdf_parser();
  static const auto md = make_markdown_parser();
  static const auto html = make_html_parser();
  static const auto text = make_text_parser();
  static const auto image = make_image_parser();
  static const auto epub = make_epub_parser();
  static const auto office = make_office_parser();
  switch (reader) {
    case Reader::Pdf: return *pdf;
    case Reader::Markdown: return *md;
    case Reader::Html: return *html;
    case Reader::Text: return *text;
    case Reader::Image: return *image;
    case Reader::Epub: return *epub;
    case Reader::Office: return *office;
  }
  return *text;
}

}  // namespace

int reader_revision(const std::string& format) { return format_info(format).reader_revision; }

std::string document_id(std::string_view bytes, const std::string& format) {
  std::string id = hash_hex(bytes);
  const int rev = reader_revision(format);
  return rev <= 1 ? id : hash_hex(id + ":" + format + "-reader-" + std::to_string(rev));
}

namespace {

void process(const std::string& path, const std::string& root, const IngestOptions& opt, Store* reader, Parsed& out) {
  out.path = path;
  try {
    std::string bytes = read_file(path, opt.max_file_bytes);
    out.bytes = static_cast<int64_t>(bytes.size());
    std::string format = detect_format(path, bytes);
    out.doc_id = document_id(bytes, format);
    if (reader) {
      auto prev = reader->find_by_path(path);
      if (prev && prev->id == out.doc_id) {
        out.unchanged = true;
        return;
      }
      // A shared store: another writer parsing this very file is left to it, and one that has
      // stored it since this process last synced has made it unchanged.
      switch (reader->claim(path, out.doc_id)) {
        case Store::Claim::Stored: out.unchanged = true; return;
        case Store::Claim::Elsewhere: out.claimed_elsewhere = true; return;
        case Store::Claim::Mine: out.claimed = true; break;
      }
    }
    ParseContext pctx;
    pctx.root = root;
    pctx.figures = opt.figures.enabled;
    out.doc = parser_for(format_info(format).reader).parse(path, bytes, pctx);
    if (reader && reader->keeps_sources()) out.source = std::move(bytes);
    bytes.clear();
    bytes.shrink_to_fit();
    prepare_figures(out.doc, out.doc_id, opt.figures.max_references);
    FigureCache cache;
    if (reader) cache.get = [reader](const std::string& key) { return reader->cache_get(key); };
    out.figure_stats = enrich_figures(out.doc, opt.figures, cache);
    RenderedDocument r = render_document(out.doc);
    if (r.text.empty() && out.doc.figures.empty()) throw InputError("no text found in the document");
    out.chunks = chunk_document(out.doc, r, out.doc_id, opt.chunker);
    add_figure_chunks(out.doc, r, out.doc_id, out.chunks);
    if (out.chunks.empty()) throw InputError("no text found in the document (and no figure with text)");
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

// The parser threads: they parse files ahead of the single writer, at most `window` parsed but
// unwritten documents at a time. The destructor stops them and waits for them.
class ParsePool {
 public:
  ParsePool(Store& store, const std::vector<std::string>& files, const std::vector<std::string>& roots,
            const IngestOptions& opt)
      : store_(store), files_(files), roots_(roots), opt_(opt), slots_(files.size()) {
    const size_t n = files.size();
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    size_t threads = opt.threads > 0 ? static_cast<size_t>(opt.threads) : hw;
    threads = std::max<size_t>(1, std::min(threads, n));
    window_ = threads * 2;
    for (size_t t = 0; t < threads && n > 0; ++t) pool_.emplace_back([this] { work(); });
  }
  ~ParsePool() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : pool_) t.join();
  }
  ParsePool(const ParsePool&) = delete;
  ParsePool& operator=(const ParsePool&) = delete;

  /// Waits for file i (taken in order, from 0) and hands it to the writer.
  Parsed take(size_t i) {
    Parsed p;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return slots_[i].has_value(); });
      p = std::move(*slots_[i]);
      slots_[i].reset();
      written_ = i + 1;
    }
    cv_.notify_all();
    return p;
  }

 private:
  void work() {
    std::unique_ptr<Store> reader;
    try {
      reader = store_.open_reader();
    } catch (const Error&) {
      // Without a reader connection unchanged files are still detected by the writer.
    }
    const size_t n = files_.size();
    for (;;) {
      size_t i;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return stop_ || next_ >= n || next_ < written_ + window_; });
        if (stop_ || next_ >= n) return;
        i = next_++;
      }
      Parsed p;
      process(files_[i], roots_[i], opt_, reader.get(), p);
      {
        std::lock_guard lk(mu_);
        slots_[i] = std::move(p);
      }
      cv_.notify_all();
    }
  }

  Store& store_;  // only its open_reader(), once per thread
  const std::vector<std::string>& files_;
  const std::vector<std::string>& roots_;
  const IngestOptions& opt_;
  size_t window_ = 0;  // bounded number of parsed-but-unwritten documents
  std::vector<std::optional<Parsed>> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;     // next file to hand out
  size_t written_ = 0;  // files consumed by the writer
  bool stop_ = false;
  std::vector<std::thread> pool_;
};

// The progress of one ingest, reported by the writer after each file and by the embedding stage
// after each batch: one snapshot, one callback at a time.
class Progress {
 public:
  Progress(const ProgressFn& fn, size_t files_total, std::chrono::steady_clock::time_point t0) : fn_(fn), t0_(t0) {
    p_.files_total = files_total;
  }
  /// `files_done` files done, `path` the last one; pages and bytes so far from `res`.
  void file(size_t files_done, const IngestResult& res, const std::string& path) {
    if (!fn_) return;
    std::lock_guard lk(mu_);
    p_.files_done = files_done;
    p_.pages = res.pages;
    p_.bytes = res.bytes;
    p_.current = path;
    emit();
  }
  /// `done` of the `queued` chunk texts handed to the embedding stage are embedded.
  void embedded(int64_t done, int64_t queued) {
    if (!fn_) return;
    std::lock_guard lk(mu_);
    done_ = done;
    queued_ = queued;
    emit();
  }

 private:
  void emit() {
    p_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const bool pending = done_ < queued_;  // embedding shown only while some is left
    p_.embed_done = pending ? done_ : 0;
    p_.embed_total = pending ? queued_ : 0;
    fn_(p_);
  }

  const ProgressFn& fn_;
  const std::chrono::steady_clock::time_point t0_;
  std::mutex mu_;
  IngestProgress p_;
  int64_t done_ = 0, queued_ = 0;
};

// The writer's side of one ingest: where results, progress, texts to embed and the changed
// chunk rows go.
struct Writer {
  Store& store;
  const IngestOptions& opt;
  IngestResult& res;
  Progress& progress;
  EmbedStage* stage = nullptr;          // with an embedder: embeds what the writer commits
  std::unordered_set<uint64_t> queued;  // hashes of the texts handed to the stage in this ingest
  std::vector<int64_t> added, removed;  // chunk rowids, for the vector index
  /// Notes the rows a store write (or a shared store's sync) added and removed.
  void took(const WriteResult& wr) {
    added.insert(added.end(), wr.added_rowids.begin(), wr.added_rowids.end());
    removed.insert(removed.end(), wr.removed_rowids.begin(), wr.removed_rowids.end());
  }
};

DocumentRecord record_of(const Parsed& p) {
  DocumentRecord d;
  d.id = p.doc_id;
  d.path = p.path;
  d.name = fs::path(p.path).filename().string();
  d.format = p.doc.format;
  d.title = p.doc.title;
  d.bytes = p.bytes;
  d.pages = p.doc.pages;
  return d;
}

// Gives chunks the vectors the store already has for their texts (reused), before they are
// committed.
void reuse_vectors(Writer& w, std::vector<Chunk>& chunks) {
  Embedder& emb = *w.opt.embedder;
  std::vector<std::string> texts;
  for (auto& c : chunks) texts.push_back(c.text);
  auto cached = w.store.cached_embeddings(emb.id(), texts);
  for (size_t i = 0; i < chunks.size(); ++i)
    if (cached[i].size() == static_cast<size_t>(emb.dim())) {
      chunks[i].vector = std::move(cached[i]);
      ++w.res.embed_reused;
    }
}

// A shared store's documents are committed with their vectors (readers on other machines never
// see one without them): the chunks' missing vectors are computed here, in batches of
// kEmbedBatch, each distinct text once. An embedder that fails leaves them without vectors (the
// next ingest's backfill embeds them), as the embedding stage would.
void embed_before_commit(Writer& w, Parsed& p) {
  std::vector<Chunk>& chunks = p.chunks;
  Embedder& emb = *w.opt.embedder;
  std::map<std::string, std::vector<size_t>> where;  // text -> chunks with it
  for (size_t i = 0; i < chunks.size(); ++i)
    if (chunks[i].vector.empty()) where[chunks[i].text].push_back(i);
  std::vector<std::string> texts;
  for (const auto& [t, _] : where) texts.push_back(t);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (size_t from = 0; from < texts.size(); from += kEmbedBatch) {
      std::vector<std::string> batch(texts.begin() + static_cast<long>(from),
                                     texts.begin() + static_cast<long>(std::min(texts.size(), from + kEmbedBatch)));
      std::vector<std::vector<float>> vecs = embed_rows(emb, batch, EmbedKind::Document);
      for (size_t k = 0; k < batch.size(); ++k)
        for (size_t i : where[batch[k]]) chunks[i].vector = vecs[k];
      w.res.embedded += static_cast<int64_t>(batch.size());
    }
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    w.res.warnings.push_back({p.path, std::string("embedding failed (") + e.what() +
                                      "); stored without vectors, the next ingest embeds them"});
  }
  w.res.embed_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The texts of committed chunks still without vectors, for the embedding stage: each text once
// per ingest (a text already handed over counts as reused, as it would once embedded).
std::vector<std::string> texts_to_embed(Writer& w, const std::vector<Chunk>& chunks) {
  std::vector<std::string> out;
  for (const auto& c : chunks) {
    if (!c.vector.empty()) continue;
    if (w.queued.insert(hash64(c.text)).second)
      out.push_back(c.text);
    else
      ++w.res.embed_reused;
  }
  return out;
}

// Stores new document i (replacing `prev`, its earlier version at the same path) with the
// vectors the store already has; returns the texts left to embed. A document the store refuses
// is reported in `failed`; a locked store or a full disk fails every later document too, so
// those stop the batch.
std::vector<std::string> store_document(Writer& w, Parsed& p, const std::optional<DocumentRecord>& prev) {
  IngestResult& res = w.res;
  DocumentRecord d = record_of(p);
  try {
    if (w.opt.embedder) reuse_vectors(w, p.chunks);
    if (w.opt.embedder && w.store.shared()) embed_before_commit(w, p);
    for (const auto& [key, value] : p.figure_stats.cache_new) w.store.cache_put(key, value);
    if (w.store.keeps_sources()) w.store.put_source(d.id, p.source);
    p.source.clear();
    WriteResult wr = w.store.put_document(d, p.text, p.chunks,
                                          prev ? std::optional<std::string>(prev->id) : std::nullopt,
                                          w.opt.embedder ? w.opt.embedder->id() : "", p.doc.figures);
    w.took(wr);
    ++res.documents;
    res.chunks += static_cast<int64_t>(p.chunks.size());
    const FigureStats& fs = p.figure_stats;
    res.figures += fs.figures;
    res.tables += fs.tables;
    res.ocr_runs += fs.ocr_runs;
    res.ocr_cached += fs.ocr_cached;
    res.ocr_skipped += fs.ocr_skipped;
    res.ocr_seconds += fs.ocr_seconds;
    res.described += fs.described;
    res.describe_cached += fs.describe_cached;
    res.describe_seconds += fs.describe_seconds;
    res.pages += p.doc.pages;
    res.bytes += p.bytes;
    return w.stage ? texts_to_embed(w, p.chunks) : std::vector<std::string>{};
  } catch (const StoreLockedError&) {
    throw;
  } catch (const StoreFullError&) {
    throw;
  } catch (const IOError& e) {
    res.failed.push_back({p.path, e.what()});
  }
  return {};
}

// Writes parsed document p, unless it is already stored: unchanged at its path, or the same
// content under another path (then it is stored once, and its old version at this path goes).
// Returns the texts left to embed.
std::vector<std::string> write_document(Writer& w, Parsed& p) {
  IngestResult& res = w.res;
  for (auto& warning : p.doc.warnings) res.warnings.push_back({p.path, warning});
  for (auto& warning : p.figure_stats.warnings) res.warnings.push_back({p.path, warning});
  auto prev = w.store.find_by_path(p.path);
  auto same = w.store.find_by_id(p.doc_id);
  if (prev && prev->id == p.doc_id) {
    ++res.skipped;
  } else if (same) {
    // Identical content already stored under another path: keep one copy.
    if (prev) {
      WriteResult wr;
      w.store.delete_document(prev->id, &wr);
      w.took(wr);
    }
    ++res.skipped;
    res.warnings.push_back({p.path, "same content as " + same->path + "; stored once"});
  } else {
    return store_document(w, p, prev);
  }
  return {};
}

// Parses `files` on the pool and writes them in order, reporting progress after each file and
// handing what is left to embed to the embedding stage (which runs meanwhile). Returns the
// indexes of the files another writer of a shared store had in hand.
std::vector<size_t> write_all(Writer& w, const std::vector<std::string>& files, const std::vector<std::string>& roots) {
  ParsePool pool(w.store, files, roots, w.opt);
  std::vector<size_t> elsewhere;
  for (size_t i = 0; i < files.size(); ++i) {
    if (w.stage) w.stage->rethrow_store_error();
    Parsed p = pool.take(i);
    std::vector<std::string> to_embed;
    if (!p.error.empty()) {
      w.res.failed.push_back({p.path, p.error});
    } else if (p.unchanged) {
      ++w.res.skipped;
    } else if (p.claimed_elsewhere) {
      elsewhere.push_back(i);
    } else {
      to_embed = write_document(w, p);
    }
    if (p.claimed) w.store.release(p.path);
    w.progress.file(i + 1, w.res, p.path);
    if (!to_embed.empty()) w.stage->add(std::move(to_embed));
  }
  return elsewhere;
}

// A shared store: the files other writers had in hand are waited for, so that every file named is
// stored when ingest returns. Each round brings the local copy up to date (its rows go to the
// indexes with this ingest's), then tries them again: stored meanwhile, they are unchanged; a
// writer killed on one let its claim lapse, and this one writes it.
void write_claimed_elsewhere(Writer& w, std::vector<std::string> files, std::vector<std::string> roots,
                             std::vector<size_t> elsewhere) {
  while (!elsewhere.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    w.took(w.store.sync());
    std::vector<std::string> f, r;
    for (size_t i : elsewhere) {
      f.push_back(files[i]);
      r.push_back(roots[i]);
    }
    files = std::move(f);
    roots = std::move(r);
    elsewhere = write_all(w, files, roots);
  }
}

// Chunks stored without embeddings (by an older mmkg, with --embedder none, or by an ingest
// killed before its embedding stage was done): embeds them and adds their rowids to `added`.
void backfill_embeddings(Writer& w) {
  Embedder& emb = *w.opt.embedder;
  auto missing = w.store.chunks_without_vectors(emb.id());
  if (missing.empty()) return;
  std::vector<std::string> texts;
  for (auto& [rowid, text] : missing) {
    w.added.push_back(rowid);
    texts.push_back(std::move(text));
  }
  EmbedCounts counts;
  const auto total = static_cast<int64_t>(texts.size());
  embed_and_store(w.store, emb, std::move(texts), counts,
                  [&](size_t) { w.progress.embedded(counts.embedded, total); });
  w.res.embedded += counts.embedded;
  w.res.embed_seconds += counts.seconds;
}

// The embedding stage failed: the store's error as it is (it stops every writer), the embedder's
// saying that the documents are stored and what the next ingest does about the `missing` chunks
// without vectors.
[[noreturn]] void throw_embed_error(const EmbedStage& stage, size_t missing) {
  stage.rethrow_store_error();
  try {
    std::rethrow_exception(stage.error());
  } catch (const UsageError&) {
    throw;
  } catch (const Error& err) {
    throw Error(std::string(err.what()) + " (the documents are stored and BM25 finds them; " +
                std::to_string(missing) + " chunks are without vectors: the next ingest embeds them)");
  }
}

// Brings the vector index up to date with the chunk rows added and removed since generation
// `gen_before`; says what happened to it ("updated", "rebuilt: why", "").
std::string update_index(Store& store, Embedder& emb, int64_t gen_before, const std::vector<int64_t>& added,
                         const std::vector<int64_t>& removed) {
  VectorIndexStatus vs = update_vector_index(store, emb.id(), emb.dim(), gen_before, added, removed);
  return vs.updated ? "updated" : (vs.rebuilt ? "rebuilt: " + vs.reason : "");
}

// Brings the Xapian lexical index of a large store up to date; says what happened to it ("built:
// why", "updated", "synced: why", "" when the store has none). A failure leaves it stale (search
// uses FTS5 meanwhile) and is reported, not thrown: the documents are stored.
std::string update_lexical(Store& store, int64_t gen_before, const std::vector<int64_t>& added,
                           const std::vector<int64_t>& removed) {
  try {
    LexicalIndexStatus st = update_lexical_index(store, gen_before, added, removed);
    return st.reason.empty() ? st.action : st.action + ": " + st.reason;
  } catch (const Error& e) {
    return std::string("stale: ") + e.what();
  }
}

// The folder each file was found under: the deepest folder named on the command line that
// contains it. Images a document links to must lie inside it, so `mmkg ingest docs/` lets
// docs/a/page.md show docs/img/x.png, and nothing outside docs/. A file named by itself gets ""
// (its own folder).
std::vector<std::string> ingest_roots(const std::vector<std::string>& paths, const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  std::vector<std::string> folders;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) continue;
    std::string f = fs::absolute(p, ec).lexically_normal().string();
    while (f.size() > 1 && f.back() == '/') f.pop_back();
    folders.push_back(f);
  }
  std::vector<std::string> roots(files.size());
  for (size_t i = 0; i < files.size(); ++i)
    for (const auto& f : folders)
      if (files[i].size() > f.size() && files[i].compare(0, f.size(), f) == 0 &&
          (files[i][f.size()] == '/' || f == "/") && f.size() > roots[i].size())
        roots[i] = f;
  return roots;
}

}  // namespace

IngestResult ingest(Store& store, const std::vector<std::string>& paths, const IngestOptions& opt,
                    const ProgressFn& progress) {
  auto t0 = std::chrono::steady_clock::now();
  IngestResult res;
  FileList list = collect_files(paths, opt.follow_symlinks);
  drop_linked_images(list, paths);
  res.failed = list.errors;
  res.skipped_links = list.skipped;
  res.ignored = list.ignored;

  const int64_t gen_before = store.generation();
  Progress prog(progress, list.files.size(), t0);
  std::unique_ptr<EmbedStage> stage;
  if (opt.embedder && !store.shared())
    stage = std::make_unique<EmbedStage>(store.dir(), *opt.embedder,
                                         [&](int64_t done, int64_t queued) { prog.embedded(done, queued); });
  Writer w{store, opt, res, prog, stage.get(), {}, {}, {}};
  const std::vector<std::string> roots = ingest_roots(paths, list.files);
  write_claimed_elsewhere(w, list.files, roots, write_all(w, list.files, roots));
  if (stage) {
    stage->finish();
    const EmbedCounts c = stage->counts();
    res.embedded += c.embedded;
    res.embed_seconds += c.seconds;
    if (stage->error()) {  // what was embedded goes into the index; the rest is the next ingest's
      try {
        update_index(store, *opt.embedder, gen_before, w.added, w.removed);
      } catch (const Error&) {  // a stale index file is rebuilt on its next use
      }
      update_lexical(store, gen_before, w.added, w.removed);  // the documents are stored: index them
      throw_embed_error(*stage, store.chunks_without_vectors(opt.embedder->id()).size());
    }
    stage.reset();
  }
  if (opt.embedder) {
    backfill_embeddings(w);
    res.vector_index = update_index(store, *opt.embedder, gen_before, w.added, w.removed);
  }
  res.lexical_index = update_lexical(store, gen_before, w.added, w.removed);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace mmkg
