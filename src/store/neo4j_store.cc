// The shared store on Neo4j: opening it (schema, counter node, the local copy) and its writes.
// The model and the staged-then-published write are described in neo4j_store.h.
#include "store/neo4j_store.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "core/base64.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/hash.h"
#include "store/atomic_file.h"
#include "store/neo4j_store_impl.h"
#include "store/write_lock.h"

namespace mmkg {

namespace fs = std::filesystem;
using neo4j_store::json;

bool is_shared_store_spec(const std::string& spec) {
  return spec.rfind("neo4j://", 0) == 0 || spec.rfind("http://", 0) == 0 || spec.rfind("https://", 0) == 0;
}

std::string shared_store_cache_dir(const std::string& url, const std::string& cache_dir) {
  std::string root = cache_dir;
  if (root.empty())
    if (const char* v = std::getenv("MMKG_CACHE_DIR"); v && *v) root = v;
  if (root.empty())
    if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) root = std::string(v) + "/mmkg";
  if (root.empty()) {
    const char* home = std::getenv("HOME");
    root = std::string(home && *home ? home : ".") + "/.cache/mmkg";
  }
  // One folder per server and database (never the credentials): "127.0.0.1_7474_neo4j".
  const Neo4jTarget t = parse_neo4j_url(url);
  std::string name = t.base.substr(t.base.find("://") + 3) + "_" + t.db;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return (fs::path(root) / name).string();
}

namespace neo4j_store {

namespace {

// Rows and bytes per UNWIND request: large enough that a document costs a few requests, small
// enough that one request stays far below the server's transaction memory (a 384-dimension
// vector is ~7 KB of JSON).
constexpr size_t kBatchRows = 500;
constexpr size_t kBatchBytes = 4 << 20;
// Staged nodes older than this belong to a process that died before publishing: swept.
constexpr int64_t kStagedTtlMs = 3600 * 1000;

const char* kSchema[] = {
    "CREATE CONSTRAINT mmkg_store_key IF NOT EXISTS FOR (s:MmkgStore) REQUIRE s.key IS UNIQUE",
    "CREATE CONSTRAINT mmkg_document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE",
    "CREATE CONSTRAINT mmkg_chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE",
    "CREATE CONSTRAINT mmkg_image_hash IF NOT EXISTS FOR (i:Image) REQUIRE i.hash IS UNIQUE",
    "CREATE CONSTRAINT mmkg_figure_cache_key IF NOT EXISTS FOR (f:FigureCache) REQUIRE f.key IS UNIQUE",
    "CREATE INDEX mmkg_document_path IF NOT EXISTS FOR (d:Document) ON (d.path)",
    "CREATE INDEX mmkg_document_gen IF NOT EXISTS FOR (d:Document) ON (d.gen)",
    "CREATE INDEX mmkg_chunk_doc IF NOT EXISTS FOR (c:Chunk) ON (c.doc_id)",
    "CREATE INDEX mmkg_chunk_text_hash IF NOT EXISTS FOR (c:Chunk) ON (c.text_hash)",
    "CREATE INDEX mmkg_figure_record_doc IF NOT EXISTS FOR (f:FigureRecord) ON (f.doc_id)",
    "CREATE INDEX mmkg_tombstone_gen IF NOT EXISTS FOR (t:Tombstone) ON (t.gen)",
    "CREATE INDEX mmkg_graph_doc IF NOT EXISTS FOR (g:GraphDoc) ON (g.backend, g.doc_id)",
    "CREATE INDEX mmkg_staged_document IF NOT EXISTS FOR (d:StagedDocument) ON (d.version)",
    "CREATE INDEX mmkg_staged_chunk IF NOT EXISTS FOR (c:StagedChunk) ON (c.version)",
    "CREATE INDEX mmkg_staged_figure IF NOT EXISTS FOR (f:StagedFigureRecord) ON (f.version)",
    "CREATE INDEX mmkg_source_part IF NOT EXISTS FOR (s:SourcePart) ON (s.doc_id, s.seq)",
    "CREATE CONSTRAINT mmkg_job_id IF NOT EXISTS FOR (j:Job) REQUIRE j.id IS UNIQUE",
    "CREATE CONSTRAINT mmkg_worker_id IF NOT EXISTS FOR (w:Worker) REQUIRE w.id IS UNIQUE",
    "CREATE CONSTRAINT mmkg_claim_path IF NOT EXISTS FOR (c:Claim) REQUIRE c.path IS UNIQUE",
    "CREATE CONSTRAINT mmkg_lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE",
};

// Publishes staged version $v in one transaction. The counter node is written first, so
// publishes and deletes take its lock in turn and every one gets its own generation. Nothing is
// published when the same content is already stored at a smaller path (the smallest path keeps a
// document stored under several, as a single ingest's sorted walk does) or when the staged
// chunks are not all there. What it replaces (the same path, the same content at a larger path,
// $replace) is deleted with a tombstone.
const char* kPublish = R"(
MATCH (st:MmkgStore {key: 'store'})
SET st.generation = st.generation + 1
WITH st
MATCH (d:StagedDocument {version: $v})
OPTIONAL MATCH (dup:Document {id: d.id})
WITH st, d, dup WHERE dup IS NULL OR dup.path > d.path
WITH st, d, COUNT { MATCH (c:StagedChunk {version: $v}) } AS staged
WHERE staged = d.chunks
OPTIONAL MATCH (old:Document) WHERE old.path = d.path OR old.id = d.id OR old.id IN $replace
WITH st, d, [x IN collect(DISTINCT old.id) WHERE x IS NOT NULL] AS gone
CALL (st, gone) { UNWIND gone AS g CREATE (:Tombstone {doc_id: g, gen: st.generation}) }
CALL (gone) { UNWIND gone AS g MATCH (f:FigureRecord {doc_id: g}) DETACH DELETE f }
CALL (gone, d) { UNWIND gone + [d.id] AS g MATCH (c:Chunk {doc_id: g}) DETACH DELETE c }
CALL (gone) { UNWIND gone AS g MATCH (o:Document {id: g}) DETACH DELETE o }
CALL (gone, d) { UNWIND [g IN gone WHERE g <> d.id] AS g MATCH (s:SourcePart {doc_id: g}) DELETE s }
CALL (d) { MATCH (c:StagedChunk {version: d.version}) REMOVE c:StagedChunk SET c:Chunk REMOVE c.version, c.staged_at }
CALL (d) {
  MATCH (f:StagedFigureRecord {version: d.version})
  REMOVE f:StagedFigureRecord SET f:FigureRecord REMOVE f.version, f.staged_at
}
REMOVE d:StagedDocument
SET d:Document, d.gen = st.generation
REMOVE d.version, d.staged_at
RETURN d.id, st.generation, gone)";

const char* kDelete = R"(
MATCH (st:MmkgStore {key: 'store'})
SET st.generation = st.generation + 1
WITH st
MATCH (d:Document {id: $id})
CALL (d) { MATCH (c:Chunk {doc_id: d.id}) DETACH DELETE c }
CALL (d) { MATCH (f:FigureRecord {doc_id: d.id}) DETACH DELETE f }
CALL (d) { MATCH (s:SourcePart {doc_id: d.id}) DELETE s }
CREATE (:Tombstone {doc_id: d.id, gen: st.generation})
DETACH DELETE d
RETURN 1)";

}  // namespace

std::string random_token() {
  std::random_device rd;
  std::mt19937_64 g((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(::getpid()));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(g()));
  return buf;
}

namespace {

int64_t claim_ttl_ms() {
  if (const char* v = std::getenv("MMKG_CLAIM_TTL"); v && *v) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && s > 0) return static_cast<int64_t>(s * 1000);
  }
  return 30000;
}

}  // namespace

Neo4jStore::Neo4jStore(Neo4jTarget target, std::unique_ptr<SqliteStore> local, std::string uuid, std::string worker)
    : db_(std::move(target)),
      local_(std::move(local)),
      uuid_(std::move(uuid)),
      worker_(std::move(worker)),
      ttl_ms_(claim_ttl_ms()) {}

Neo4jStore::~Neo4jStore() {
  try {
    leave_writers();
  } catch (const Error&) {  // unreachable server: the registration lapses by itself
  }
}

void Neo4jStore::run_rows(const std::string& statement, const std::vector<json>& rows, const json& params) {
  std::vector<json> batch;
  size_t bytes = 0;
  auto flush = [&] {
    if (batch.empty()) return;
    json p = params;
    p["rows"] = std::move(batch);
    db_.run(statement, p);
    batch.clear();
    bytes = 0;
  };
  for (const auto& r : rows) {
    const size_t n = r.dump(-1, ' ', false, json::error_handler_t::replace).size();
    if (!batch.empty() && (batch.size() >= kBatchRows || bytes + n > kBatchBytes)) flush();
    batch.push_back(r);
    bytes += n;
  }
  flush();
}

// Each image once per content hash, before the document that shows it (MERGE: a retry or another
// worker writing the same image costs nothing).
void Neo4jStore::write_images(const std::vector<Figure>& figures) {
  std::vector<json> rows;
  for (const Figure& f : figures)
    if (!f.png.empty() && !f.image_hash.empty()) rows.push_back({{"h", f.image_hash}, {"png", base64_encode(f.png)}});
  run_rows("UNWIND $rows AS r MERGE (i:Image {hash: r.h}) ON CREATE SET i.png = r.png, i.written_at = timestamp()",
           rows);
}

void Neo4jStore::write_staged(const std::string& version, const DocumentRecord& doc, const std::string& text,
                              const std::vector<Chunk>& chunks, const std::string& embed_model,
                              const std::vector<Figure>& figures) {
  DocumentRecord d = doc;
  if (d.ingested_at.empty()) d.ingested_at = utc_now_iso();
  json props = document_props(d, text, chunks.size());
  db_.run("CREATE (d:StagedDocument) SET d = $p, d.version = $v, d.staged_at = timestamp()",
          {{"p", std::move(props)}, {"v", version}});
  std::vector<json> rows;
  for (const Chunk& c : chunks) rows.push_back(chunk_props(c, d, embed_model));
  run_rows("UNWIND $rows AS r CREATE (c:StagedChunk) SET c = r, c.version = $v, c.staged_at = timestamp()", rows,
           {{"v", version}});
  // A figure's own chunk is not recorded: the local copy finds it from the chunks' figure_id.
  rows.clear();
  for (const Figure& f : figures) rows.push_back(figure_props(f, d.id));
  run_rows("UNWIND $rows AS r CREATE (f:StagedFigureRecord) SET f = r, f.version = $v, f.staged_at = timestamp()",
           rows, {{"v", version}});
}

void Neo4jStore::drop_staged(const std::string& version) {
  db_.run("MATCH (n:StagedDocument|StagedChunk|StagedFigureRecord {version: $v}) DETACH DELETE n", {{"v", version}});
}

void Neo4jStore::sweep_staged() {
  if (swept_) return;
  swept_ = true;
  db_.run("MATCH (n:StagedDocument|StagedChunk|StagedFigureRecord) WHERE n.staged_at < timestamp() - $ttl "
          "DETACH DELETE n",
          {{"ttl", kStagedTtlMs}});
}

WriteResult Neo4jStore::put_document(const DocumentRecord& doc, const std::string& text,
                                     const std::vector<Chunk>& chunks, const std::optional<std::string>& replace_id,
                                     const std::string& embed_model, const std::vector<Figure>& figures) {
  sweep_staged();
  write_images(figures);
  const std::string version = random_token();
  try {
    write_staged(version, doc, text, chunks, embed_model, figures);
    json replace = json::array();
    if (replace_id) replace.push_back(*replace_id);
    auto r = db_.run(kPublish, {{"v", version}, {"replace", replace}});
    // Not published (the same content is stored at a smaller path, by this or another process):
    // the staged copy goes.
    if (r.rows.empty()) drop_staged(version);
  } catch (...) {
    try {
      drop_staged(version);
    } catch (const Error&) {  // unreachable server: swept later by age
    }
    throw;
  }
  return sync();
}

bool Neo4jStore::delete_document(const std::string& id, WriteResult* removed) {
  auto r = db_.run(kDelete, {{"id", id}});
  WriteResult wr = sync();
  if (removed) *removed = std::move(wr);
  return !r.rows.empty();
}

void Neo4jStore::put_embeddings(const std::string& model, const std::vector<std::string>& texts,
                                const std::vector<std::vector<float>>& vecs, bool chunk_vectors) {
  // Vectors of other texts (entity names) are this node's cache; chunk vectors are shared: the
  // documents that hold them get a new generation, so every local copy reads them again.
  if (!chunk_vectors) return local_->put_embeddings(model, texts, vecs, false);
  std::vector<json> rows;
  for (size_t i = 0; i < texts.size() && i < vecs.size(); ++i)
    rows.push_back({{"h", hash_hex(texts[i])}, {"v", float_array(vecs[i])}});
  run_rows(R"(
MATCH (st:MmkgStore {key: 'store'})
SET st.generation = st.generation + 1
WITH st
UNWIND $rows AS r
MATCH (c:Chunk {text_hash: r.h})
SET c.embedding = r.v, c.embed_model = $m
WITH st, collect(DISTINCT c.doc_id) AS docs
UNWIND docs AS id
MATCH (d:Document {id: id})
SET d.gen = st.generation)",
           rows, {{"m", model}});
}

// The file in parts of kSourcePart bytes (base64), keyed by document and position: written again
// by a retry or another writer, they are the same nodes.
constexpr size_t kSourcePart = 1 << 20;

void Neo4jStore::put_source(const std::string& doc_id, const std::string& bytes) {
  std::vector<json> rows;
  for (size_t off = 0, seq = 0; off < bytes.size() || seq == 0; off += kSourcePart, ++seq)
    rows.push_back({{"seq", static_cast<int64_t>(seq)},
                    {"b64", base64_encode(std::string_view(bytes).substr(off, kSourcePart))}});
  run_rows("UNWIND $rows AS r MERGE (s:SourcePart {doc_id: $d, seq: r.seq}) "
           "ON CREATE SET s.b64 = r.b64, s.written_at = timestamp()",
           rows, {{"d", doc_id}});
}

// From the local copy's sources/ folder, else read from Neo4j once and kept there (a folder that
// cannot be written only costs the next call another read).
std::optional<std::string> Neo4jStore::source(const std::string& doc_id) {
  const fs::path file = fs::path(local_->dir()) / "sources" / doc_id;
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto r = db_.read("MATCH (s:SourcePart {doc_id: $d}) RETURN s.b64 ORDER BY s.seq", {{"d", doc_id}});
  if (r.rows.empty()) return std::nullopt;
  std::string bytes;
  for (const auto& row : r.rows) bytes += base64_decode(row[0].get<std::string>());
  try {
    write_file_atomically(file.string(), bytes, "the document's source file");
  } catch (const Error&) {
  }
  return bytes;
}

void Neo4jStore::put_job(const std::string& id, const std::string& json) {
  db_.run("MERGE (j:Job {id: $id}) SET j.json = $json, j.updated_at = timestamp()", {{"id", id}, {"json", json}});
}

std::optional<std::string> Neo4jStore::job(const std::string& id) {
  auto r = db_.read("MATCH (j:Job {id: $id}) RETURN j.json", {{"id", id}});
  if (r.rows.empty() || !r.rows[0][0].is_string()) return std::nullopt;
  return r.rows[0][0].get<std::string>();
}

std::optional<std::string> Neo4jStore::cache_get(const std::string& key) {
  auto r = db_.read("MATCH (f:FigureCache {key: $k}) RETURN f.value", {{"k", key}});
  if (r.rows.empty() || !r.rows[0][0].is_string()) return std::nullopt;
  return r.rows[0][0].get<std::string>();
}

void Neo4jStore::cache_put(const std::string& key, const std::string& value) {
  db_.run("MERGE (f:FigureCache {key: $k}) SET f.value = $v", {{"k", key}, {"v", value}});
}

// The local copy's leftovers, and images in Neo4j no figure shows (older than a staged write can
// be, so that an image written for a document not yet published is kept).
int Neo4jStore::remove_unreferenced_images() {
  db_.run("MATCH (i:Image) WHERE i.written_at < timestamp() - $ttl "
          "AND NOT EXISTS { MATCH (f:FigureRecord|StagedFigureRecord {image_hash: i.hash}) } DELETE i",
          {{"ttl", kStagedTtlMs}});
  db_.run("MATCH (s:SourcePart) WHERE s.written_at < timestamp() - $ttl "
          "AND NOT EXISTS { MATCH (:Document {id: s.doc_id}) } DELETE s",
          {{"ttl", kStagedTtlMs}});
  StoreWriteLock lock(local_->dir(), {}, "sync.lock");
  return local_->remove_unreferenced_images();
}

StoreStats Neo4jStore::stats() {
  StoreStats s = local_->stats();
  s.path = location();
  return s;
}

std::vector<GraphDocMark> Neo4jStore::graph_documents(const std::string& backend) {
  std::vector<GraphDocMark> out;
  for (const auto& row :
       db_.read("MATCH (g:GraphDoc {backend: $b}) RETURN g.doc_id, g.extractor", {{"b", backend}}).rows)
    out.push_back({row[0].get<std::string>(), row[1].get<std::string>()});
  return out;
}

size_t Neo4jStore::graph_document_count(const std::string& backend) {
  auto r = db_.read("MATCH (g:GraphDoc {backend: $b}) RETURN count(g)", {{"b", backend}});
  return r.rows.empty() ? 0 : static_cast<size_t>(as_i64(r.rows[0][0]));
}

void Neo4jStore::mark_graph_document(const std::string& backend, const std::string& doc_id,
                                     const std::string& extractor, bool present) {
  const json p = {{"b", backend}, {"d", doc_id}, {"x", extractor}};
  if (present)
    db_.run("MERGE (g:GraphDoc {backend: $b, doc_id: $d}) SET g.extractor = $x", p);
  else
    db_.run("MATCH (g:GraphDoc {backend: $b, doc_id: $d}) DELETE g", p);
}

namespace {

// The counter node (made, with the schema, when the store is new and may be created): the
// store's uuid, so that a local copy of another (or a wiped and remade) database is dropped.
std::string open_schema(Neo4jClient& db, bool create) {
  auto r = db.run("MATCH (s:MmkgStore {key: 'store'}) RETURN s.uuid, s.schema_version");
  if (!r.rows.empty() && as_i64(r.rows[0][1]) > kSchemaVersion)
    throw UsageError(db.target().shown + ": the shared store has schema version " +
                     std::to_string(as_i64(r.rows[0][1])) + "; upgrade mmkg");
  if (!r.rows.empty() && as_i64(r.rows[0][1]) == kSchemaVersion) return r.rows[0][0].get<std::string>();
  if (r.rows.empty() && !create)
    throw UsageError(db.target().shown + ": no mmkg store in this database; run `mmkg ingest PATH --store " +
                     db.target().shown + "` first");
  for (const char* s : kSchema) db.run(s);
  r = db.run(
      "MERGE (s:MmkgStore {key: 'store'}) ON CREATE SET s.uuid = randomUUID(), s.generation = 0 "
      "SET s.schema_version = $v RETURN s.uuid",
      {{"v", kSchemaVersion}});
  return r.rows.at(0).at(0).get<std::string>();
}

// The local copy for store `uuid`: a copy of another store found in its folder is deleted first.
std::unique_ptr<SqliteStore> open_local(const std::string& dir, const std::string& uuid) {
  fs::create_directories(dir);
  StoreWriteLock lock(dir, {}, "sync.lock");
  auto local = SqliteStore::open(dir, true);
  const std::string have = local->meta("shared_uuid");
  if (have == uuid) return local;
  if (!have.empty()) {
    local.reset();
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename() != "sync.lock") fs::remove_all(e.path());
    local = SqliteStore::open(dir, true);
  }
  local->set_meta("shared_uuid", uuid);
  local->set_meta("shared_generation", "0");
  return local;
}

}  // namespace

}  // namespace neo4j_store

std::unique_ptr<Store> open_neo4j_store(const SharedStoreOptions& opt) {
  Neo4jTarget target = parse_neo4j_url(opt.url);
  Neo4jClient db(target);
  const std::string uuid = neo4j_store::open_schema(db, opt.create);
  const std::string dir = shared_store_cache_dir(opt.url, opt.cache_dir);
  return std::make_unique<neo4j_store::Neo4jStore>(std::move(target), neo4j_store::open_local(dir, uuid), uuid,
                                                   neo4j_store::random_token());
}

}  // namespace mmkg
