#include "store/store.h"

#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "core/error.h"
#include "store/sqlite_util.h"

namespace mmkg {

namespace fs = std::filesystem;

namespace {

// Version 1 of the on-disk schema. Chunks are indexed by an external-content FTS5 table kept in
// sync by triggers, so a document's rows and its index entries commit in one transaction.
const char* kSchemaV1 = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(
  id          TEXT PRIMARY KEY,
  path        TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  format      TEXT NOT NULL,
  title       TEXT NOT NULL DEFAULT '',
  bytes       INTEGER NOT NULL,
  pages       INTEGER NOT NULL,
  chunks      INTEGER NOT NULL,
  text        TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE INDEX documents_name ON documents(name);
CREATE TABLE chunks(
  rowid        INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  doc_id       TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  page_start   INTEGER NOT NULL,
  page_end     INTEGER NOT NULL,
  heading_path TEXT NOT NULL,
  start_off    INTEGER NOT NULL,
  end_off      INTEGER NOT NULL,
  text         TEXT NOT NULL
);
CREATE INDEX chunks_doc ON chunks(doc_id, seq);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  heading_path, text, content='chunks', content_rowid='rowid',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, heading_path, text) VALUES (new.rowid, new.heading_path, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading_path, text)
  VALUES ('delete', old.rowid, old.heading_path, old.text);
END;
)SQL";

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

DocumentRecord read_doc(Stmt& s) {
  DocumentRecord d;
  d.id = s.text(0);
  d.path = s.text(1);
  d.name = s.text(2);
  d.format = s.text(3);
  d.title = s.text(4);
  d.bytes = s.i64(5);
  d.pages = s.i32(6);
  d.chunks = s.i32(7);
  d.ingested_at = s.text(8);
  return d;
}

const char* kDocCols = "id, path, name, format, title, bytes, pages, chunks, ingested_at";

StoredChunk read_chunk(Stmt& s) {
  StoredChunk c;
  c.chunk.id = s.text(0);
  c.chunk.doc_id = s.text(1);
  c.chunk.seq = s.i32(2);
  c.chunk.page_start = s.i32(3);
  c.chunk.page_end = s.i32(4);
  c.chunk.heading_path = s.text(5);
  c.chunk.start = s.i64(6);
  c.chunk.end = s.i64(7);
  c.chunk.text = s.text(8);
  c.doc_name = s.text(9);
  return c;
}

const char* kChunkSelect =
    "SELECT c.id, c.doc_id, c.seq, c.page_start, c.page_end, c.heading_path, c.start_off, c.end_off, "
    "c.text, d.name FROM chunks c JOIN documents d ON d.id = c.doc_id ";

}  // namespace

std::unique_ptr<Store> Store::open(const std::string& dir, bool create) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (!create) throw UsageError(dir + ": no store here; run `mmkg ingest PATH --store " + dir + "` first");
    fs::create_directories(dir, ec);
    if (ec) throw IOError(dir + ": cannot create the store directory (" + ec.message() + ")");
  } else if (!fs::is_directory(dir, ec)) {
    throw UsageError(dir + ": exists and is not a directory; choose another --store");
  }
  std::string file = (fs::path(dir) / "mmkg.db").string();
  if (!create && !fs::exists(file, ec))
    throw UsageError(dir + ": no store here; run `mmkg ingest PATH --store " + dir + "` first");
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(file.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw IOError(file + ": cannot open the store (" + msg + "); check permissions");
  }
  std::unique_ptr<Store> s(new Store(db, dir));
  sqlite3_busy_timeout(db, 10000);
  s->exec("PRAGMA journal_mode=WAL");
  s->exec("PRAGMA synchronous=NORMAL");
  s->exec("PRAGMA foreign_keys=ON");
  s->migrate();
  return s;
}

Store::~Store() { sqlite3_close(db_); }

void Store::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw IOError(dir_ + ": database error: " + msg);
  }
}

void Store::migrate() {
  int version = 0;
  {
    Stmt s(db_, "PRAGMA user_version");
    if (s.step()) version = s.i32(0);
  }
  if (version == kSchemaVersion) return;
  if (version > kSchemaVersion)
    throw UsageError(dir_ + ": store has schema version " + std::to_string(version) +
                     ", this mmkg understands up to " + std::to_string(kSchemaVersion) + "; upgrade mmkg");
  Transaction tx(db_);
  {
    Stmt count(db_, "SELECT count(*) FROM sqlite_master");
    count.step();
    if (version == 0 && count.i64(0) > 0)
      throw UsageError(dir_ + "/mmkg.db: not an mmkg store (unknown tables, no schema version); use another --store");
  }
  exec(kSchemaV1);
  Stmt(db_, "INSERT INTO meta(key, value) VALUES ('created_by', ?)").bind(1, std::string("mmkg ") + MMKG_VERSION).run();
  exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  tx.commit();
}

std::optional<DocumentRecord> Store::find_by_path(const std::string& path) {
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents WHERE path = ?");
  s.bind(1, path);
  if (s.step()) return read_doc(s);
  return std::nullopt;
}

std::optional<DocumentRecord> Store::find_by_id(const std::string& id) {
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents WHERE id = ?");
  s.bind(1, id);
  if (s.step()) return read_doc(s);
  return std::nullopt;
}

std::vector<DocumentRecord> Store::resolve(const std::string& key) {
  std::vector<DocumentRecord> out;
  auto collect = [&](const std::string& sql, const std::string& v) {
    Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents WHERE " + sql + " ORDER BY path");
    s.bind(1, v);
    while (s.step()) out.push_back(read_doc(s));
  };
  collect("id = ?", key);
  if (out.empty()) {
    std::error_code ec;
    fs::path abs = fs::absolute(key, ec);
    collect("path = ?", ec ? key : abs.lexically_normal().string());
  }
  if (out.empty()) collect("name = ?", key);
  if (out.empty() && key.size() >= 4 && key.find_first_not_of("0123456789abcdef") == std::string::npos)
    collect("substr(id, 1, length(?1)) = ?1", key);
  return out;
}

std::vector<DocumentRecord> Store::documents() {
  std::vector<DocumentRecord> out;
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents ORDER BY path");
  while (s.step()) out.push_back(read_doc(s));
  return out;
}

void Store::put_document(const DocumentRecord& d, const std::string& text, const std::vector<Chunk>& chunks,
                         const std::optional<std::string>& replace_id) {
  Transaction tx(db_);
  if (replace_id) {
    Stmt(db_, "DELETE FROM chunks WHERE doc_id = ?").bind(1, *replace_id).run();
    Stmt(db_, "DELETE FROM documents WHERE id = ?").bind(1, *replace_id).run();
  }
  Stmt ins(db_,
           "INSERT INTO documents(id, path, name, format, title, bytes, pages, chunks, text, ingested_at) "
           "VALUES (?,?,?,?,?,?,?,?,?,?)");
  ins.bind(1, d.id).bind(2, d.path).bind(3, d.name).bind(4, d.format).bind(5, d.title);
  ins.bind(6, d.bytes).bind(7, d.pages).bind(8, static_cast<int64_t>(chunks.size())).bind(9, text);
  ins.bind(10, d.ingested_at.empty() ? now_utc() : d.ingested_at);
  ins.run();
  Stmt c(db_,
         "INSERT INTO chunks(id, doc_id, seq, page_start, page_end, heading_path, start_off, end_off, text) "
         "VALUES (?,?,?,?,?,?,?,?,?)");
  for (const auto& ch : chunks) {
    c.reset();
    c.bind(1, ch.id).bind(2, d.id).bind(3, ch.seq).bind(4, ch.page_start).bind(5, ch.page_end);
    c.bind(6, ch.heading_path).bind(7, ch.start).bind(8, ch.end).bind(9, ch.text);
    c.run();
  }
  tx.commit();
}

bool Store::delete_document(const std::string& id) {
  Transaction tx(db_);
  Stmt(db_, "DELETE FROM chunks WHERE doc_id = ?").bind(1, id).run();
  Stmt del(db_, "DELETE FROM documents WHERE id = ?");
  del.bind(1, id).run();
  bool existed = sqlite3_changes(db_) > 0;
  tx.commit();
  return existed;
}

std::optional<StoredChunk> Store::chunk(const std::string& chunk_id) {
  Stmt s(db_, std::string(kChunkSelect) + "WHERE c.id = ?");
  s.bind(1, chunk_id);
  if (s.step()) return read_chunk(s);
  return std::nullopt;
}

std::vector<StoredChunk> Store::chunks_of(const std::string& doc_id) {
  std::vector<StoredChunk> out;
  Stmt s(db_, std::string(kChunkSelect) + "WHERE c.doc_id = ? ORDER BY c.seq");
  s.bind(1, doc_id);
  while (s.step()) out.push_back(read_chunk(s));
  return out;
}

StoreStats Store::stats() {
  StoreStats st;
  st.path = dir_;
  {
    Stmt s(db_, "SELECT count(*), coalesce(sum(pages),0), coalesce(sum(bytes),0), coalesce(sum(length(text)),0) FROM documents");
    s.step();
    st.documents = s.i64(0);
    st.pages = s.i64(1);
    st.bytes = s.i64(2);
    st.text_bytes = s.i64(3);
  }
  {
    Stmt s(db_, "SELECT count(*) FROM chunks");
    s.step();
    st.chunks = s.i64(0);
  }
  st.schema_version = kSchemaVersion;
  std::error_code ec;
  for (const char* f : {"mmkg.db", "mmkg.db-wal"}) {
    auto sz = fs::file_size(fs::path(dir_) / f, ec);
    if (!ec) st.db_bytes += static_cast<int64_t>(sz);
  }
  return st;
}

}  // namespace mmkg
