#include "index/xapian_lexical.h"

#include <sqlite3.h>
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <memory>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "text/words.h"

namespace fs = std::filesystem;

namespace mmkg {

namespace {

constexpr const char* kFormat = "mmkg-lexical-1";  // bump when the terms change
constexpr Xapian::valueno kChunkIdSlot = 0;
constexpr Xapian::termcount kHeadingWdf = 2;  // LexicalOptions::heading_weight
constexpr size_t kMaxTerm = 240;              // Xapian refuses terms above 245 bytes

// BM25 as FTS5's bm25() computes it (k1 1.2, b 0.75, no length floor); k3 1 leaves query-side
// term frequency out (our expressions name each term once).
Xapian::BM25Weight bm25() { return Xapian::BM25Weight(1.2, 0, 1, 0.75, 0); }

// Stems with a per-build cache: a corpus has far fewer distinct words than words.
class StemCache {
 public:
  const std::string& operator()(const std::string& w) {
    auto it = cache_.find(w);
    if (it != cache_.end()) return it->second;
    if (cache_.size() > 1000000) cache_.clear();
    return cache_.emplace(w, stem(w)).first->second;
  }

 private:
  std::unordered_map<std::string, std::string> cache_;
};

std::string bigram(const std::string& a, const std::string& b) { return "B" + a + " " + b; }

void index_column(Xapian::Document& doc, const std::string& text, Xapian::termcount wdf, StemCache& stems) {
  const std::string* prev = nullptr;
  for (const auto& w : words(text)) {
    const std::string& t = stems(w);
    const bool content = !is_stopword(w);
    if (t.size() <= kMaxTerm) {
      doc.add_term(t, wdf);
      if (prev && content) {
        std::string b = bigram(*prev, t);
        if (b.size() <= kMaxTerm) doc.add_term(b, wdf);
      }
    }
    prev = content && t.size() <= kMaxTerm ? &t : nullptr;
  }
}

Xapian::Document chunk_document(const std::string& id, const std::string& heading, const std::string& text,
                                const std::string& context, StemCache& stems) {
  Xapian::Document doc;
  doc.add_value(kChunkIdSlot, id);
  index_column(doc, heading, kHeadingWdf, stems);
  index_column(doc, text, 1, stems);
  index_column(doc, context, 1, stems);
  return doc;
}

// Adds (or replaces) the chunks with these row ids, read through `db_conn`; all chunks when
// `rowids` is null, or those with lo <= rowid < hi when `range` is given. Returns how many were
// written.
int64_t add_chunks(Xapian::WritableDatabase& db, sqlite3* db_conn, const std::vector<int64_t>* rowids,
                   const std::pair<int64_t, int64_t>* range = nullptr) {
  StemCache stems;
  int64_t n = 0;
  auto add_rows = [&](Stmt& s) {
    while (s.step()) {
      const int64_t rowid = s.i64(0);
      if (rowid <= 0 || rowid > static_cast<int64_t>(UINT32_MAX))
        throw IOError("chunk row id " + std::to_string(rowid) + " does not fit a Xapian document id");
      db.replace_document(static_cast<Xapian::docid>(rowid),
                          chunk_document(s.text(1), s.text(2), s.text(3), s.text(4), stems));
      ++n;
    }
  };
  const char* sql = "SELECT rowid, id, heading_path, text, context FROM chunks";
  if (!rowids) {
    Stmt s(db_conn, std::string(sql) + (range ? " WHERE rowid >= ? AND rowid < ?" : "") + " ORDER BY rowid");
    if (range) s.bind(1, range->first), s.bind(2, range->second);
    add_rows(s);
    return n;
  }
  Stmt s(db_conn, std::string(sql) + " WHERE rowid = ?");
  for (int64_t r : *rowids) {
    s.reset();
    s.bind(1, r);
    add_rows(s);
  }
  return n;
}

void remove_chunks(Xapian::WritableDatabase& db, const std::vector<int64_t>& rowids) {
  for (int64_t r : rowids) {
    if (r <= 0 || r > static_cast<int64_t>(UINT32_MAX)) continue;
    try {
      db.delete_document(static_cast<Xapian::docid>(r));
    } catch (const Xapian::DocNotFoundError&) {
    }
  }
}

std::vector<std::pair<int64_t, std::string>> index_entries(const Xapian::Database& db) {
  std::vector<std::pair<int64_t, std::string>> out;
  out.reserve(db.get_doccount());
  for (auto it = db.valuestream_begin(kChunkIdSlot); it != db.valuestream_end(kChunkIdSlot); ++it)
    out.emplace_back(static_cast<int64_t>(it.get_docid()), *it);
  return out;
}

// Makes the index hold exactly the chunks table: removes what it has that the store does not
// (or holds under another chunk id: a reused row id), adds what it lacks.
void sync(Xapian::WritableDatabase& db, Store& store) {
  auto have = index_entries(db);  // by docid (value streams iterate in docid order)
  const auto want = chunk_entries(store);
  std::vector<int64_t> drop, add;
  size_t i = 0, j = 0;
  while (i < have.size() || j < want.size()) {
    if (j == want.size() || (i < have.size() && have[i].first < want[j].first)) {
      drop.push_back(have[i++].first);
    } else if (i == have.size() || want[j].first < have[i].first) {
      add.push_back(want[j++].first);
    } else {
      if (have[i].second != want[j].second) add.push_back(want[j].first);  // replace_document
      ++i, ++j;
    }
  }
  remove_chunks(db, drop);
  add_chunks(db, store.db(), &add);
}

int64_t chunk_count(Store& store) {
  Stmt s(store.db(), "SELECT count(*) FROM chunks");
  return s.step() ? s.i64(0) : 0;
}

// Chunks per shard below which a build stays on one thread. Two shards already halve the build at
// 5,000 chunks (1.8 s -> 0.85 s; 20,000: 7.3 s -> 4.2 s; bench/results/history/BENCHMARKS-journal-to-20261128.md, "Lexical index
// build on several cores"); below a few thousand chunks a build takes under a second anyway.
constexpr int64_t kMinShardChunks = 2500;

// Threads for a build of n chunks: one per kMinShardChunks, at most one per core (and 16).
int build_threads(int64_t n) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<int64_t>(n / kMinShardChunks, 1, std::min<int64_t>(cores, 16)));
}

// The row ids that cut the chunks into `parts` ranges of about equal count: [b0, b1), [b1, b2), ...
// with b0 = 0 and the last bound past the largest row id.
std::vector<int64_t> shard_bounds(Store& store, int64_t n, int parts) {
  std::vector<int64_t> b{0};
  Stmt s(store.db(), "SELECT rowid FROM chunks ORDER BY rowid LIMIT 1 OFFSET ?");
  for (int i = 1; i < parts; ++i) {
    s.reset();
    s.bind(1, n * i / parts);
    if (s.step()) b.push_back(s.i64(0));
  }
  b.push_back(INT64_MAX);
  return b;
}

// Writes the n chunks into one shard per thread under `dir`, each thread over its own range of
// row ids through its own read-only SQLite connection, and merges the shards into `out` keeping
// the document ids. Returns the chunks written.
int64_t build_sharded(Store& store, int64_t n, int threads, const std::string& dir, const std::string& out) {
  fs::create_directories(dir);
  const std::string db_file = (fs::path(store.dir()) / "mmkg.db").string();
  const std::vector<int64_t> bounds = shard_bounds(store, n, threads);
  const size_t shards = bounds.size() - 1;
  auto shard_path = [&](size_t i) { return (fs::path(dir) / ("shard" + std::to_string(i))).string(); };
  std::vector<int64_t> counts(shards, 0);
  std::vector<std::exception_ptr> errors(shards);
  std::vector<std::thread> workers;
  for (size_t i = 0; i < shards; ++i) {
    workers.emplace_back([&, i] {
      try {
        sqlite3* conn = nullptr;
        if (sqlite3_open_v2(db_file.c_str(), &conn, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
          std::string why = conn ? sqlite3_errmsg(conn) : "out of memory";
          sqlite3_close(conn);
          throw IOError("cannot read " + db_file + " for the lexical index: " + why);
        }
        std::unique_ptr<sqlite3, int (*)(sqlite3*)> guard(conn, sqlite3_close);
        sqlite3_busy_timeout(conn, 10000);
        Xapian::WritableDatabase db(shard_path(i), Xapian::DB_CREATE_OR_OVERWRITE);
        const std::pair<int64_t, int64_t> range{bounds[i], bounds[i + 1]};
        counts[i] = add_chunks(db, conn, nullptr, &range);
        db.commit();
        db.close();
      } catch (const Xapian::Error& e) {
        errors[i] = std::make_exception_ptr(IOError("lexical index shard: " + e.get_description()));
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  Xapian::Database all;
  int64_t written = 0;
  for (size_t i = 0; i < shards; ++i) {
    if (counts[i] == 0) continue;  // an empty shard has no document id range to keep
    all.add_database(Xapian::Database(shard_path(i)));
    written += counts[i];
  }
  if (written > 0) all.compact(out, Xapian::DBCOMPACT_NO_RENUMBER);
  return written;
}

// Builds the index from scratch beside `path` and moves it into place. A kill leaves either no
// index (search uses FTS5; the next write builds it) or a whole one.
//
// Xapian has one writer per database, and most of a build's time is that writer (2/3 of it in
// `perf`, the rest our tokenising and stemming). A large store is therefore built as one shard per
// core (build_sharded; the caller holds the write lock and has committed, so every connection
// reads the same rows), and the shards are merged by Xapian's compactor keeping the document ids
// (DBCOMPACT_NO_RENUMBER: the ranges do not overlap). The merged index answers exactly as a
// single-writer one (test XapianStore.AShardedBuildAnswersAsASingleWriterBuild). `threads` 0:
// build_threads() of the store's chunks.
int64_t build(Store& store, const std::string& path, int threads) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  const int64_t rows = threads == 1 ? 0 : chunk_count(store);
  if (threads <= 0) threads = build_threads(rows);
  // What is moved into place: the single writer's database, or the shards' merge inside tmp.
  const std::string ready = threads > 1 ? (fs::path(tmp) / "merged").string() : tmp;
  int64_t n = 0;
  if (threads > 1) {
    n = build_sharded(store, rows, threads, tmp, ready);
  } else {
    Xapian::WritableDatabase db(tmp, Xapian::DB_CREATE_OR_OVERWRITE);
    n = add_chunks(db, store.db(), nullptr);
    db.commit();
    db.close();
  }
  {  // the metadata that makes it this store's index (on a fresh database when no chunk was written)
    Xapian::WritableDatabase db(ready, Xapian::DB_CREATE_OR_OPEN);
    db.set_metadata("format", kFormat);
    db.set_metadata("generation", std::to_string(store.generation()));
    db.commit();
    db.close();
  }
  fs::remove_all(path, ec);
  fs::rename(ready, path, ec);
  if (ec) throw IOError("cannot move the lexical index into place (" + path + "): " + ec.message());
  fs::remove_all(tmp, ec);  // the shards (nothing when tmp itself was moved)
  return n;
}

// Folders of builds whose writer died (the caller holds the write lock, so none is live).
void remove_dead_builds(const std::string& path) {
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp";
  std::error_code ec;
  for (auto it = fs::directory_iterator(p.parent_path(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(it->path(), ec);
}

std::optional<Xapian::Query> to_query(const LexNode& n) {
  switch (n.kind) {
    case LexNode::Kind::Phrase:
      if (n.terms.size() == 1) return Xapian::Query(n.terms[0]);
      if (n.terms.size() == 2 && !is_stopword(n.words[0]) && !is_stopword(n.words[1]))
        return Xapian::Query(bigram(n.terms[0], n.terms[1]));
      return std::nullopt;  // a longer phrase, or one with a stop word: FTS5 (it has positions)
    case LexNode::Kind::Or:
    case LexNode::Kind::And:
    case LexNode::Kind::Not: {  // Not: {kept, excluded}, ranked by the kept side only, as FTS5
      std::vector<Xapian::Query> parts;
      for (const auto& c : n.children) {
        auto q = to_query(c);
        if (!q) return std::nullopt;
        parts.push_back(std::move(*q));
      }
      const auto op = n.kind == LexNode::Kind::Or    ? Xapian::Query::OP_OR
                      : n.kind == LexNode::Kind::And ? Xapian::Query::OP_AND
                                                     : Xapian::Query::OP_AND_NOT;
      return Xapian::Query(op, parts.begin(), parts.end());
    }
    case LexNode::Kind::Near:
      return std::nullopt;  // positions are FTS5's
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::pair<int64_t, std::string>> chunk_entries(Store& store) {
  std::vector<std::pair<int64_t, std::string>> out;
  Stmt s(store.db(), "SELECT rowid, id FROM chunks ORDER BY rowid");
  while (s.step()) out.emplace_back(s.i64(0), s.text(1));
  return out;
}

std::string lexical_index_path(const std::string& store_dir) {
  return (fs::path(store_dir) / "lexical.xapian").string();
}

int64_t lexical_index_threshold() {
  if (const char* t = std::getenv("MMKG_LEXICAL_THRESHOLD"); t && *t) return std::atoll(t);
  return 5000;
}

struct XapianLexical::Impl {
  Xapian::Database db;
};

XapianLexical::XapianLexical(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
XapianLexical::~XapianLexical() = default;

std::unique_ptr<XapianLexical> XapianLexical::open(const std::string& store_dir, std::string* why) {
  const std::string path = lexical_index_path(store_dir);
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (why) *why = "no lexical index";
    return nullptr;
  }
  try {
    auto impl = std::make_unique<Impl>();
    impl->db = Xapian::Database(path);
    if (impl->db.get_metadata("format") != kFormat) {
      if (why) *why = "lexical index of another format (" + impl->db.get_metadata("format") + ")";
      return nullptr;
    }
    return std::unique_ptr<XapianLexical>(new XapianLexical(std::move(impl)));
  } catch (const Xapian::Error& e) {
    if (why) *why = "cannot open the lexical index: " + e.get_description();
    return nullptr;
  }
}

int64_t XapianLexical::generation() {
  try {
    impl_->db.reopen();
    std::string g = impl_->db.get_metadata("generation");
    return g.empty() ? -1 : std::stoll(g);
  } catch (const std::exception&) {
    return -1;
  } catch (const Xapian::Error&) {
    return -1;
  }
}

bool XapianLexical::search(const LexNode& q, int k, std::vector<Hit>& out) {
  out.clear();
  auto query = to_query(q);
  if (!query) return false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      Xapian::Enquire enq(impl_->db);
      enq.set_query(*query);
      enq.set_weighting_scheme(bm25());
      enq.set_docid_order(Xapian::Enquire::DONT_CARE);
      Xapian::MSet m = enq.get_mset(0, static_cast<Xapian::doccount>(std::max(0, k)));
      for (auto it = m.begin(); it != m.end(); ++it)
        out.push_back({static_cast<int64_t>(*it), it.get_document().get_value(kChunkIdSlot), it.get_weight()});
      return true;
    } catch (const Xapian::DatabaseModifiedError&) {
      out.clear();
      impl_->db.reopen();  // a writer committed twice during the read: read the new revision
    } catch (const Xapian::Error&) {
      out.clear();
      return false;
    }
  }
  return false;
}

int64_t XapianLexical::size() { return static_cast<int64_t>(impl_->db.get_doccount()); }

int64_t XapianLexical::term_freq(const std::string& term) {
  try {
    return static_cast<int64_t>(impl_->db.get_termfreq(term));
  } catch (const Xapian::Error&) {
    return 0;
  }
}

std::vector<std::pair<int64_t, std::string>> XapianLexical::entries() { return index_entries(impl_->db); }

LexicalIndexStatus update_lexical_index(Store& store, int64_t gen_before, const std::vector<int64_t>& added,
                                        const std::vector<int64_t>& removed, int threads) {
  LexicalIndexStatus st;
  if (store.read_only()) return st;
  const std::string path = lexical_index_path(store.dir());
  remove_dead_builds(path);
  std::error_code ec;
  try {
    if (!fs::is_directory(path, ec)) {
      const int64_t n = chunk_count(store);
      if (n < lexical_index_threshold()) return st;
      st.action = "built";
      st.reason = std::to_string(n) + " chunks, threshold " + std::to_string(lexical_index_threshold());
      st.chunks = build(store, path, threads);
      return st;
    }
    std::string broken;
    try {
      Xapian::WritableDatabase db(path, Xapian::DB_OPEN);
      if (db.get_metadata("format") != kFormat) {
        broken = "lexical index of another format";
      } else {
        const std::string have = db.get_metadata("generation");
        if (have == std::to_string(gen_before)) {
          remove_chunks(db, removed);
          add_chunks(db, store.db(), &added);
          st.action = "updated";
        } else {
          sync(db, store);
          st.action = "synced";
          st.reason = "the index was at generation " + (have.empty() ? std::string("?") : have) +
                      ", the store at " + std::to_string(gen_before);
        }
        db.set_metadata("generation", std::to_string(store.generation()));
        db.commit();
        st.chunks = static_cast<int64_t>(db.get_doccount());
        return st;
      }
    } catch (const Xapian::DatabaseError& e) {  // corrupt, truncated, of another version, ...
      broken = std::string("unreadable lexical index (") + e.get_type() + ": " + e.get_msg() + ")";
    }
    st.action = "built";
    st.reason = broken;
    st.chunks = build(store, path, threads);
  } catch (const Xapian::Error& e) {
    throw IOError("cannot update the lexical index " + path + ": " + e.get_description() +
                  "; search uses the store's FTS5 index until the next ingest or delete rebuilds it");
  }
  return st;
}

}  // namespace mmkg
