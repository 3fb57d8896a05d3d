#include "store/sqlite_store.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>

#include "core/clock.h"
#include "core/error.h"
#include "core/half.h"
#include "core/hash.h"
#include "store/sqlite_util.h"
#include "store/write_lock.h"

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

// Version 2: embeddings, cached by (model, hash of the chunk text) so that unchanged chunk content
// is never embedded twice, and a generation counter that every write bumps (the vector index
// file records the generation it was built at; a mismatch means it is stale).
// Rows enter the FTS index in one statement per document (put_document), not by a per-row trigger:
// a trigger makes FTS5 flush its pending terms after every chunk, which cost ~10% of ingest.
// It also indexes each chunk's document context (file name words and title) as a third FTS
// column, so that "according to the wiki" or a paper's name finds that document's chunks.
const char* kSchemaV2 = R"SQL(
ALTER TABLE chunks ADD COLUMN text_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
DROP TABLE chunks_vocab;
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  heading_path, text, context, content='chunks', content_rowid='rowid',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading_path, text, context)
  VALUES ('delete', old.rowid, old.heading_path, old.text, old.context);
END;
CREATE INDEX chunks_text_hash ON chunks(text_hash);
CREATE TABLE embeddings(
  model     TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vec       BLOB NOT NULL,
  PRIMARY KEY (model, text_hash)
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta(key, value) VALUES ('generation', '0');
)SQL";

// Version 3: figures and tables. A figure's own chunk (caption, references, inner text,
// description) carries its id, so search finds figures through the same FTS and vector index
// as text. Images are files under figures/ named by content hash. figure_cache keeps OCR and
// vision results by image hash across deletes.
const char* kSchemaV3 = R"SQL(
ALTER TABLE chunks ADD COLUMN figure_id TEXT NOT NULL DEFAULT '';
CREATE TABLE figures(
  id          TEXT PRIMARY KEY,
  doc_id      TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  kind        TEXT NOT NULL,
  source      TEXT NOT NULL,
  page        INTEGER NOT NULL,
  x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
  text_offset INTEGER NOT NULL,
  label       TEXT NOT NULL,
  caption     TEXT NOT NULL,
  alt         TEXT NOT NULL,
  refs        TEXT NOT NULL,
  text        TEXT NOT NULL,
  text_source TEXT NOT NULL,
  ocr_conf    REAL NOT NULL,
  description TEXT NOT NULL,
  visual_kind TEXT NOT NULL,
  table_md    TEXT NOT NULL,
  image_hash  TEXT NOT NULL,
  width       INTEGER NOT NULL,
  height      INTEGER NOT NULL,
  chunk_id    TEXT NOT NULL
);
CREATE INDEX figures_doc ON figures(doc_id, seq);
CREATE INDEX figures_image ON figures(image_hash);
CREATE TABLE figure_cache(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
)SQL";

// Version 4: where each chunk's text lies on its PDF pages (Chunk::boxes), one row per box,
// keyed (and so indexed) by the chunk's row id; deleted with the chunk (remove_rows). Chunks
// stored before have none until their document is ingested again.
const char* kSchemaV4 = R"SQL(
CREATE TABLE chunk_boxes(
  chunk_rowid INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  page        INTEGER NOT NULL,
  x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
  PRIMARY KEY (chunk_rowid, seq)
) WITHOUT ROWID;
)SQL";

// Version 5: the embedding cache as a rowid table with its key in a separate index. A WITHOUT
// ROWID row keeps at most about 1 KB in its b-tree page, so each 1.5 KB vector (384 floats)
// spilled to an overflow page of its own: 4.5 KB on disk per vector. A rowid row holds up to 4 KB
// in place: 1.6 KB per vector. migrate() copies the rows.
const char* kSchemaV5 = R"SQL(
CREATE TABLE embeddings_v5(
  model     TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vec       BLOB NOT NULL
);
INSERT INTO embeddings_v5(model, text_hash, vec) SELECT model, text_hash, vec FROM embeddings;
DROP TABLE embeddings;
ALTER TABLE embeddings_v5 RENAME TO embeddings;
CREATE UNIQUE INDEX embeddings_key ON embeddings(model, text_hash);
)SQL";

// Version 6: how a cached vector is encoded (enc): 0 float32, 1 IEEE binary16. Entity-name vectors
// are written as binary16 (half the bytes; they are compared by cosine against a merge threshold
// and for linking, where the 11-bit mantissa changes nothing), chunk vectors stay float32 (the
// vector index is built from them). Rows written before keep enc 0.
const char* kSchemaV6 = R"SQL(
ALTER TABLE embeddings ADD COLUMN enc INTEGER NOT NULL DEFAULT 0;
)SQL";

constexpr int kEncFloat32 = 0, kEncHalf = 1;

/// The floats of an embeddings row's `vec` (column `col`) in encoding `enc`.
std::vector<float> decode_vector(const Stmt& s, int col, int enc) {
  if (enc != kEncHalf) return s.floats(col);
  const size_t n = static_cast<size_t>(s.bytes(col)) / sizeof(uint16_t);
  std::vector<uint16_t> h(n);
  if (n) std::memcpy(h.data(), s.blob(col), n * sizeof(uint16_t));
  return from_half(h.data(), n);
}

std::string now_utc() { return utc_now_iso(); }

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
  c.rowid = s.i64(10);
  c.chunk.figure_id = s.text(11);
  c.figure_label = s.text(12);
  c.figure_kind = figure_kind_from_name(s.text(13));
  return c;
}

const char* kChunkSelect =
    "SELECT c.id, c.doc_id, c.seq, c.page_start, c.page_end, c.heading_path, c.start_off, c.end_off, "
    "c.text, d.name, c.rowid, c.figure_id, coalesce(f.label, ''), coalesce(f.kind, '') "
    "FROM chunks c JOIN documents d ON d.id = c.doc_id LEFT JOIN figures f ON f.id = c.figure_id AND c.figure_id != '' ";

}  // namespace

std::string document_context(const std::string& name, const std::string& title) {
  std::string stem = name.substr(0, name.rfind('.'));
  for (auto& ch : stem)
    if (ch == '_' || ch == '-' || ch == '.') ch = ' ';
  return title.empty() || title == stem ? stem : stem + " | " + title;
}

std::unique_ptr<Store> Store::open(const std::string& dir, bool create) { return SqliteStore::open(dir, create); }

std::unique_ptr<SqliteStore> SqliteStore::open(const std::string& dir, bool create) {
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
  // Read-only when this process cannot write the folder or the file (a read-only mount, a store
  // shared by another user). WAL mode then needs the -shm file; on a read-only file system with
  // no -shm, nobody can change the file, so SQLite may treat it as immutable.
  const bool read_only = fs::exists(file, ec) && (::access(dir.c_str(), W_OK) != 0 || ::access(file.c_str(), W_OK) != 0);
  struct statvfs vfs {};
  const bool ro_mount = read_only && ::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
  const bool immutable = ro_mount && !fs::exists(file + "-shm", ec);
  // Two processes making the same new store at once (two ingests started together) would race
  // in the first schema transaction and the switch to WAL: the first makes it, the other waits.
  std::optional<StoreWriteLock> creating;
  if (!fs::exists(file, ec)) creating.emplace(dir);
  sqlite3* db = nullptr;
  int flags = read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const std::string target = immutable ? "file:" + file + "?immutable=1" : file;
  if (sqlite3_open_v2(target.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw IOError(file + ": cannot open the store (" + msg + "); check permissions");
  }
  std::unique_ptr<SqliteStore> s(new SqliteStore(db, dir));
  s->read_only_ = read_only;
  sqlite3_busy_timeout(db, 10000);
  if (read_only) {
    try {
      Stmt v(db, "PRAGMA user_version");
      const int version = v.step() ? v.i32(0) : 0;
      if (version != kSchemaVersion)
        throw UsageError(dir + ": store has schema version " + std::to_string(version) + " and is read-only here; " +
                         (version < kSchemaVersion ? "open it once with write access to upgrade it"
                                                   : "upgrade mmkg"));
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw IOError(file + ": cannot read the read-only store (" + e.what() +
                    "); copy it to a writable folder or open it where it is writable");
    }
    return s;
  }
  s->exec("PRAGMA journal_mode=WAL");
  s->exec("PRAGMA synchronous=NORMAL");
  // 64 MB of page cache (SQLite's default is 2 MB): the graph's tables and indexes take random
  // writes from every document, and with the default cache the write time per document grew
  // with the store (2.75 s for 1,000 passages, 9.4 s for 2,000; docs/BENCHMARKS.md).
  s->exec("PRAGMA cache_size=-65536");
  s->exec("PRAGMA foreign_keys=ON");
  s->migrate();
  return s;
}

SqliteStore::~SqliteStore() { sqlite3_close(db_); }

void SqliteStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw_sqlite_error(rc, dir_ + ": database error: " + msg);
  }
}

void SqliteStore::migrate() {
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
  {  // Read again under the write lock: another process may have made the store meanwhile.
    Stmt s(db_, "PRAGMA user_version");
    if (s.step()) version = s.i32(0);
  }
  if (version == kSchemaVersion) return;  // tx rolls back: nothing was written
  {
    Stmt count(db_, "SELECT count(*) FROM sqlite_master");
    count.step();
    if (version == 0 && count.i64(0) > 0)
      throw UsageError(dir_ + "/mmkg.db: not an mmkg store (unknown tables, no schema version); use another --store");
  }
  if (version < 1) {
    exec(kSchemaV1);
    Stmt(db_, "INSERT INTO meta(key, value) VALUES ('created_by', ?)").bind(1, std::string("mmkg ") + MMKG_VERSION).run();
  }
  if (version < 2) {
    exec(kSchemaV2);
    // Existing chunks get their text hashes and context; the FTS index is rebuilt; their
    // embeddings are computed by the next ingest.
    struct Row {
      int64_t rowid;
      std::string hash, context;
    };
    std::vector<Row> rows;
    {
      Stmt s(db_, "SELECT c.rowid, c.text, d.name, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id");
      while (s.step()) rows.push_back({s.i64(0), hash_hex(s.text(1)), document_context(s.text(2), s.text(3))});
    }
    Stmt up(db_, "UPDATE chunks SET text_hash = ?, context = ? WHERE rowid = ?");
    for (auto& r : rows) {
      up.reset();
      up.bind(1, r.hash).bind(2, r.context).bind(3, r.rowid).run();
    }
    exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')");
  }
  if (version < 3) exec(kSchemaV3);
  if (version < 4) exec(kSchemaV4);
  if (version < 5) exec(kSchemaV5);
  if (version < 6) exec(kSchemaV6);
  exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  tx.commit();
}

std::optional<DocumentRecord> SqliteStore::find_by_path(const std::string& path) {
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents WHERE path = ?");
  s.bind(1, path);
  if (s.step()) return read_doc(s);
  return std::nullopt;
}

std::optional<DocumentRecord> SqliteStore::find_by_id(const std::string& id) {
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents WHERE id = ?");
  s.bind(1, id);
  if (s.step()) return read_doc(s);
  return std::nullopt;
}

std::vector<DocumentRecord> SqliteStore::resolve(const std::string& key) {
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

std::vector<DocumentRecord> SqliteStore::documents() {
  std::vector<DocumentRecord> out;
  Stmt s(db_, std::string("SELECT ") + kDocCols + " FROM documents ORDER BY path");
  while (s.step()) out.push_back(read_doc(s));
  return out;
}

void SqliteStore::remove_rows(const std::string& doc_id, WriteResult& wr) {
  {
    Stmt s(db_, "SELECT rowid, text_hash FROM chunks WHERE doc_id = ?");
    s.bind(1, doc_id);
    while (s.step()) {
      wr.removed_rowids.push_back(s.i64(0));
      wr.removed_hashes.push_back(s.text(1));
    }
  }
  Stmt(db_, "DELETE FROM chunk_boxes WHERE chunk_rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)")
      .bind(1, doc_id)
      .run();
  Stmt(db_, "DELETE FROM chunks WHERE doc_id = ?").bind(1, doc_id).run();
  Stmt(db_, "DELETE FROM figures WHERE doc_id = ?").bind(1, doc_id).run();
  Stmt(db_, "DELETE FROM documents WHERE id = ?").bind(1, doc_id).run();
}

void SqliteStore::collect_garbage(const std::vector<std::string>& hashes) {
  // Embeddings no chunk refers to any more (a chunk elsewhere with the same text keeps them).
  Stmt gc(db_,
          "DELETE FROM embeddings WHERE text_hash = ?1 AND NOT EXISTS (SELECT 1 FROM chunks WHERE text_hash = ?1)");
  for (const auto& h : hashes) {
    gc.reset();
    gc.bind(1, h).run();
  }
}

void SqliteStore::bump_generation() {
  Stmt(db_, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'").run();
}

int64_t SqliteStore::generation() {
  Stmt s(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'");
  return s.step() ? s.i64(0) : 0;
}

WriteResult SqliteStore::put_document(const DocumentRecord& d, const std::string& text, const std::vector<Chunk>& chunks,
                                const std::optional<std::string>& replace_id, const std::string& embed_model,
                                const std::vector<Figure>& figures) {
  WriteResult wr;
  write_images(figures);
  Transaction tx(db_);
  if (replace_id) remove_rows(*replace_id, wr);
  // Whatever else holds this path now goes too: the caller looked before embedding, and a writer
  // that does not take StoreWriteLock may have stored the path since (the newest version wins).
  {
    Stmt at(db_, "SELECT id FROM documents WHERE path = ?");
    at.bind(1, d.path);
    std::string other = at.step() ? at.text(0) : "";
    if (!other.empty() && other != d.id) remove_rows(other, wr);
    if (other == d.id) {  // this very document was stored meanwhile: nothing left to write
      tx.commit();
      return wr;
    }
  }
  Stmt ins(db_,
           "INSERT INTO documents(id, path, name, format, title, bytes, pages, chunks, text, ingested_at) "
           "VALUES (?,?,?,?,?,?,?,?,?,?)");
  ins.bind(1, d.id).bind(2, d.path).bind(3, d.name).bind(4, d.format).bind(5, d.title);
  ins.bind(6, d.bytes).bind(7, d.pages).bind(8, static_cast<int64_t>(chunks.size())).bind(9, text);
  ins.bind(10, d.ingested_at.empty() ? now_utc() : d.ingested_at);
  ins.run();
  Stmt c(db_,
         "INSERT INTO chunks(id, doc_id, seq, page_start, page_end, heading_path, start_off, end_off, text, text_hash, "
         "context, figure_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  const std::string context = document_context(d.name, d.title);
  Stmt e(db_, "INSERT OR IGNORE INTO embeddings(model, text_hash, vec) VALUES (?,?,?)");
  Stmt bx(db_, "INSERT INTO chunk_boxes(chunk_rowid, seq, page, x0, y0, x1, y1) VALUES (?,?,?,?,?,?,?)");
  for (const auto& ch : chunks) {
    std::string th = hash_hex(ch.text);
    c.reset();
    c.bind(1, ch.id).bind(2, d.id).bind(3, ch.seq).bind(4, ch.page_start).bind(5, ch.page_end);
    c.bind(6, ch.heading_path).bind(7, ch.start).bind(8, ch.end).bind(9, ch.text).bind(10, th).bind(11, context);
    c.bind(12, ch.figure_id);
    c.run();
    const int64_t rowid = sqlite3_last_insert_rowid(db_);
    wr.added_rowids.push_back(rowid);
    for (size_t k = 0; k < ch.boxes.size(); ++k) {
      const PageBox& b = ch.boxes[k];
      bx.reset();
      bx.bind(1, rowid).bind(2, static_cast<int64_t>(k)).bind(3, b.page);
      bx.bind(4, static_cast<double>(b.x0)).bind(5, static_cast<double>(b.y0));
      bx.bind(6, static_cast<double>(b.x1)).bind(7, static_cast<double>(b.y1));
      bx.run();
    }
    if (!embed_model.empty() && !ch.vector.empty()) {
      e.reset();
      e.bind(1, embed_model).bind(2, th).bind_blob(3, ch.vector.data(), ch.vector.size() * sizeof(float));
      e.run();
    }
  }
  Stmt(db_,
       "INSERT INTO chunks_fts(rowid, heading_path, text, context) "
       "SELECT rowid, heading_path, text, context FROM chunks WHERE doc_id = ?")
      .bind(1, d.id)
      .run();
  insert_figures(d.id, chunks, figures);
  collect_garbage(wr.removed_hashes);
  bump_generation();
  tx.commit();
  if (replace_id) remove_unreferenced_images();
  return wr;
}

bool SqliteStore::delete_document(const std::string& id, WriteResult* out) {
  WriteResult wr;
  Transaction tx(db_);
  remove_rows(id, wr);
  bool existed = sqlite3_changes(db_) > 0;
  collect_garbage(wr.removed_hashes);
  bump_generation();
  tx.commit();
  remove_unreferenced_images();
  if (out) *out = std::move(wr);
  return existed;
}

std::vector<std::vector<float>> SqliteStore::cached_embeddings(const std::string& model,
                                                        const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out(texts.size());
  Stmt s(db_, "SELECT vec, enc FROM embeddings WHERE model = ? AND text_hash = ?");
  for (size_t i = 0; i < texts.size(); ++i) {
    s.reset();
    s.bind(1, model).bind(2, hash_hex(texts[i]));
    if (s.step()) out[i] = decode_vector(s, 0, s.i32(1));
  }
  return out;
}

void SqliteStore::put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                           const std::vector<std::vector<float>>& vecs, bool chunk_vectors) {
  Transaction tx(db_);
  Stmt e(db_, "INSERT OR REPLACE INTO embeddings(model, text_hash, vec, enc) VALUES (?,?,?,?)");
  for (size_t i = 0; i < texts.size() && i < vecs.size(); ++i) {
    e.reset();
    e.bind(1, model).bind(2, hash_hex(texts[i]));
    if (chunk_vectors) {
      e.bind_blob(3, vecs[i].data(), vecs[i].size() * sizeof(float)).bind(4, kEncFloat32);
    } else {
      const std::vector<uint16_t> h = to_half(vecs[i].data(), vecs[i].size());
      e.bind_blob(3, h.data(), h.size() * sizeof(uint16_t)).bind(4, kEncHalf);
    }
    e.run();
  }
  if (chunk_vectors) bump_generation();
  tx.commit();
}

std::vector<std::pair<int64_t, std::string>> SqliteStore::chunks_without_vectors(const std::string& model) {
  std::vector<std::pair<int64_t, std::string>> out;
  Stmt s(db_,
         "SELECT c.rowid, c.text FROM chunks c WHERE NOT EXISTS "
         "(SELECT 1 FROM embeddings e WHERE e.model = ? AND e.text_hash = c.text_hash) ORDER BY c.rowid");
  s.bind(1, model);
  while (s.step()) out.emplace_back(s.i64(0), s.text(1));
  return out;
}

void SqliteStore::for_each_vector(const std::string& model, const std::function<void(int64_t, const float*, size_t)>& fn,
                            const std::vector<int64_t>* only) {
  const char* sql =
      "SELECT c.rowid, e.vec, e.enc FROM chunks c JOIN embeddings e ON e.model = ?1 AND e.text_hash = c.text_hash";
  auto emit = [&](Stmt& s) {
    if (s.i32(2) == kEncHalf) {  // a chunk text that was also embedded as a name
      const std::vector<float> v = decode_vector(s, 1, kEncHalf);
      fn(s.i64(0), v.data(), v.size());
      return;
    }
    const float* p = static_cast<const float*>(s.blob(1));
    fn(s.i64(0), p, static_cast<size_t>(s.bytes(1)) / sizeof(float));
  };
  if (!only) {
    Stmt s(db_, std::string(sql) + " ORDER BY c.rowid");
    s.bind(1, model);
    while (s.step()) emit(s);
    return;
  }
  Stmt s(db_, std::string(sql) + " WHERE c.rowid = ?2");
  for (int64_t id : *only) {
    s.reset();
    s.bind(1, model).bind(2, id);
    if (s.step()) emit(s);
  }
}

std::vector<StoredChunk> SqliteStore::chunks_by_rowid(const std::vector<int64_t>& rowids) {
  std::vector<StoredChunk> out;
  Stmt s(db_, std::string(kChunkSelect) + "WHERE c.rowid = ?");
  for (int64_t id : rowids) {
    s.reset();
    s.bind(1, id);
    if (s.step()) out.push_back(read_chunk(s));
  }
  return out;
}

std::vector<int64_t> SqliteStore::adjacent_rowids(int64_t rowid) {
  std::vector<int64_t> out;
  Stmt s(db_,
         "SELECT n.rowid FROM chunks c JOIN chunks n ON n.doc_id = c.doc_id AND n.seq IN (c.seq - 1, c.seq + 1) "
         "WHERE c.rowid = ? ORDER BY n.seq");
  s.bind(1, rowid);
  while (s.step()) out.push_back(s.i64(0));
  return out;
}

std::optional<StoredChunk> SqliteStore::chunk(const std::string& chunk_id) {
  Stmt s(db_, std::string(kChunkSelect) + "WHERE c.id = ?");
  s.bind(1, chunk_id);
  if (s.step()) return read_chunk(s);
  return std::nullopt;
}

std::vector<PageBox> SqliteStore::chunk_boxes(int64_t rowid) {
  std::vector<PageBox> out;
  Stmt s(db_, "SELECT page, x0, y0, x1, y1 FROM chunk_boxes WHERE chunk_rowid = ? ORDER BY seq");
  s.bind(1, rowid);
  while (s.step())
    out.push_back({s.i32(0), static_cast<float>(s.f64(1)), static_cast<float>(s.f64(2)), static_cast<float>(s.f64(3)),
                   static_cast<float>(s.f64(4))});
  return out;
}

std::vector<PageBox> SqliteStore::chunk_boxes(const std::string& chunk_id) {
  Stmt s(db_, "SELECT rowid FROM chunks WHERE id = ?");
  s.bind(1, chunk_id);
  return s.step() ? chunk_boxes(s.i64(0)) : std::vector<PageBox>{};
}

std::vector<StoredChunk> SqliteStore::chunks_of(const std::string& doc_id) {
  std::vector<StoredChunk> out;
  Stmt s(db_, std::string(kChunkSelect) + "WHERE c.doc_id = ? ORDER BY c.seq");
  s.bind(1, doc_id);
  while (s.step()) out.push_back(read_chunk(s));
  return out;
}

StoreStats SqliteStore::stats() {
  StoreStats st;
  st.path = dir_;
  {
    Stmt s(db_, "SELECT count(*), coalesce(sum(pages),0), coalesce(sum(bytes),0), coalesce(sum(length(text)),0) FROM documents");
    s.step();
    st.documents = s.i64(0);
    st.pages = s.i64(1);
    st.bytes = s.i64(2);
    st.text_chars = s.i64(3);
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

std::string SqliteStore::document_text(const std::string& id) {
  Stmt s(db_, "SELECT text FROM documents WHERE id = ?");
  s.bind(1, id);
  return s.step() ? s.text(0) : std::string();
}

namespace {

// The graph's bookkeeping table, made by the first write (a store no graph was built for has
// none); reads of a store without it see no graph documents and write nothing, so they work on a
// read-only store or a full disk. A failure to make it is thrown as it is (a full disk).
bool has_graph_docs(sqlite3* db) {
  Stmt s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'graph_docs'");
  return s.step();
}

void ensure_graph_docs(sqlite3* db) {
  int rc = sqlite3_exec(db,
                        "CREATE TABLE IF NOT EXISTS graph_docs(backend TEXT NOT NULL, doc_id TEXT NOT NULL, "
                        "extractor TEXT NOT NULL, PRIMARY KEY(backend, doc_id)) WITHOUT ROWID;",
                        nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK)
    throw_sqlite_error(rc, "database error: " + std::string(sqlite3_errmsg(db)) + " (creating graph_docs)");
}

}  // namespace

std::vector<GraphDocMark> SqliteStore::graph_documents(const std::string& backend) {
  std::vector<GraphDocMark> out;
  if (!has_graph_docs(db_)) return out;
  Stmt s(db_, "SELECT doc_id, extractor FROM graph_docs WHERE backend = ?");
  s.bind(1, backend);
  while (s.step()) out.push_back({s.text(0), s.text(1)});
  return out;
}

size_t SqliteStore::graph_document_count(const std::string& backend) {
  if (!has_graph_docs(db_)) return 0;
  Stmt s(db_, "SELECT COUNT(*) FROM graph_docs WHERE backend = ?");
  s.bind(1, backend);
  return s.step() ? static_cast<size_t>(s.i64(0)) : 0;
}

void SqliteStore::mark_graph_document(const std::string& backend, const std::string& doc_id,
                                      const std::string& extractor, bool present) {
  if (!present && !has_graph_docs(db_)) return;
  ensure_graph_docs(db_);
  Stmt s(db_, present ? "INSERT OR REPLACE INTO graph_docs(backend, doc_id, extractor) VALUES (?,?,?)"
                      : "DELETE FROM graph_docs WHERE backend = ? AND doc_id = ?");
  s.bind(1, backend).bind(2, doc_id);
  if (present) s.bind(3, extractor);
  s.run();
}

std::string SqliteStore::meta(const std::string& key) {
  Stmt s(db_, "SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  return s.step() ? s.text(0) : std::string();
}

void SqliteStore::set_meta(const std::string& key, const std::string& value) {
  Stmt s(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)");
  s.bind(1, key).bind(2, value);
  s.run();
}

}  // namespace mmkg
