#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/error.h"
#include "core/half.h"
#include "core/hash.h"
#include "support/temp_dir.h"
#include "store/sqlite_util.h"
#include "support/store_fixtures.h"

namespace mmkg {
namespace {

Chunk mk_chunk(const std::string& doc, int seq, const std::string& text) {
  Chunk c;
  c.id = doc + "-" + std::to_string(seq);
  c.doc_id = doc;
  c.seq = seq;
  c.text = text;
  c.heading_path = "H";
  c.end = static_cast<int64_t>(text.size());
  return c;
}

DocumentRecord mk_doc(const std::string& id, const std::string& path) {
  DocumentRecord d;
  d.id = id;
  d.path = path;
  d.name = path.substr(path.rfind('/') + 1);
  d.format = "text";
  d.bytes = 10;
  return d;
}

int64_t count(Store& s, const std::string& sql) {
  Stmt st(s.db(), sql);
  st.step();
  return st.i64(0);
}

// The chunks the full-text index finds for a word: the index stays in step with the chunks.
std::vector<std::string> fts_match(Store& s, const std::string& word) {
  Stmt st(s.db(), "SELECT c.id FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid WHERE chunks_fts MATCH ?");
  st.bind(1, word);
  std::vector<std::string> ids;
  while (st.step()) ids.push_back(st.text(0));
  return ids;
}

TEST(Store, PutFindDeleteKeepsFtsInSync) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(mk_doc("d1", "/x/a.txt"), "alpha beta",
                  {mk_chunk("d1", 0, "alpha beta gamma"), mk_chunk("d1", 1, "delta epsilon")}, std::nullopt);
  s->put_document(mk_doc("d2", "/x/b.txt"), "zeta", {mk_chunk("d2", 0, "zeta alpha")}, std::nullopt);
  EXPECT_EQ(s->documents().size(), 2u);
  EXPECT_EQ(s->find_by_path("/x/a.txt")->chunks, 2);
  EXPECT_EQ(fts_match(*s, "alpha").size(), 2u);
  EXPECT_TRUE(s->delete_document("d1"));
  EXPECT_FALSE(s->delete_document("d1"));
  EXPECT_EQ(fts_match(*s, "alpha").size(), 1u);
  EXPECT_EQ(fts_match(*s, "delta").size(), 0u);
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunks"), 1);
  // The FTS index agrees with its content table.
  s->exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)");
}

// Reading the graph's document marks writes nothing (a read-only store, a full disk): the table
// is made by the first mark, and un-marking on a store without it is a no-op.
TEST(Store, GraphDocumentMarksAreMadeByTheFirstWriteOnly) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  const std::string has = "SELECT count(*) FROM sqlite_master WHERE name = 'graph_docs'";
  EXPECT_TRUE(s->graph_documents("sqlite").empty());
  EXPECT_EQ(s->graph_document_count("sqlite"), 0u);
  s->mark_graph_document("sqlite", "d1", "", false);
  EXPECT_EQ(count(*s, has), 0);
  s->mark_graph_document("sqlite", "d1", "rules", true);
  EXPECT_EQ(count(*s, has), 1);
  EXPECT_EQ(s->graph_document_count("sqlite"), 1u);
}

TEST(Store, ReplaceSwapsOldVersionAtomically) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(mk_doc("v1", "/x/a.txt"), "old", {mk_chunk("v1", 0, "old words here")}, std::nullopt);
  s->put_document(mk_doc("v2", "/x/a.txt"), "new", {mk_chunk("v2", 0, "new words here")}, std::string("v1"));
  EXPECT_EQ(s->documents().size(), 1u);
  EXPECT_EQ(s->find_by_path("/x/a.txt")->id, "v2");
  EXPECT_TRUE(fts_match(*s, "old").empty());
  EXPECT_EQ(fts_match(*s, "new").size(), 1u);
}

// Two writers that both looked ("is /x/a.txt stored?") before either wrote: the second insert
// replaces what the first stored instead of failing on documents.path (issue 15's re-run error).
TEST(Store, PutReplacesAVersionStoredAtThePathSinceTheCallerLooked) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  auto other = Store::open(dir.str());
  ASSERT_FALSE(s->find_by_path("/x/a.txt"));
  other->put_document(mk_doc("v1", "/x/a.txt"), "old", {mk_chunk("v1", 0, "old words here")}, std::nullopt);
  WriteResult wr =
      s->put_document(mk_doc("v2", "/x/a.txt"), "new", {mk_chunk("v2", 0, "new words here")}, std::nullopt);
  EXPECT_EQ(wr.removed_rowids.size(), 1u);
  EXPECT_EQ(s->documents().size(), 1u);
  EXPECT_EQ(s->find_by_path("/x/a.txt")->id, "v2");
  EXPECT_TRUE(fts_match(*s, "old").empty());
  // The same document stored meanwhile: nothing is written twice.
  WriteResult again =
      other->put_document(mk_doc("v2", "/x/a.txt"), "new", {mk_chunk("v2", 0, "new words here")}, std::nullopt);
  EXPECT_TRUE(again.added_rowids.empty());
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunks"), 1);
  s->exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)");
}

TEST(Store, FailedTransactionLeavesNothingBehind) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(mk_doc("d1", "/x/a.txt"), "t", {mk_chunk("d1", 0, "one")}, std::nullopt);
  // Same chunk id twice violates UNIQUE: the whole document must roll back.
  EXPECT_THROW(
      s->put_document(mk_doc("d2", "/x/b.txt"), "t", {mk_chunk("d2", 0, "x"), mk_chunk("d2", 0, "y")}, std::nullopt),
      IOError);
  EXPECT_EQ(s->documents().size(), 1u);
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunks"), 1);
}

TEST(Store, ResolveByNamePathIdAndPrefix) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(mk_doc("abcdef0123456789", "/x/a.txt"), "t", {mk_chunk("abcdef0123456789", 0, "one")}, std::nullopt);
  EXPECT_EQ(s->resolve("a.txt").size(), 1u);
  EXPECT_EQ(s->resolve("/x/a.txt").size(), 1u);
  EXPECT_EQ(s->resolve("abcdef0123456789").size(), 1u);
  EXPECT_EQ(s->resolve("abcdef").size(), 1u);
  EXPECT_TRUE(s->resolve("b.txt").empty());
}

TEST(Store, SchemaVersionIsCheckedOnOpen) {
  testing::TempDir dir;
  { auto s = Store::open(dir.str()); }
  {
    sqlite3* db;
    ASSERT_EQ(sqlite3_open(dir.file("mmkg.db").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  try {
    Store::open(dir.str());
    FAIL() << "a newer schema must be refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("upgrade"), std::string::npos);
  }
}

TEST(Store, RefusesForeignDatabaseAndMissingStore) {
  testing::TempDir dir;
  {
    sqlite3* db;
    ASSERT_EQ(sqlite3_open(dir.file("mmkg.db").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE other(x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  EXPECT_THROW(Store::open(dir.str()), UsageError);
  EXPECT_THROW(Store::open(dir.file("nowhere"), false), UsageError);
}

TEST(Store, StatsCountEverything) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  auto d = mk_doc("d1", "/x/a.txt");
  d.pages = 3;
  s->put_document(d, "text", {mk_chunk("d1", 0, "a"), mk_chunk("d1", 1, "b")}, std::nullopt);
  auto st = s->stats();
  EXPECT_EQ(st.documents, 1);
  EXPECT_EQ(st.chunks, 2);
  EXPECT_EQ(st.pages, 3);
  EXPECT_EQ(st.schema_version, Store::kSchemaVersion);
}

}  // namespace
}  // namespace mmkg

namespace mmkg {
namespace {

// The version-1 schema as it was released (frozen): a store written by that version must open
// and be migrated, keeping its documents searchable.
const char* kFrozenV1 = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, name TEXT NOT NULL, format TEXT NOT NULL,
  title TEXT NOT NULL DEFAULT '', bytes INTEGER NOT NULL, pages INTEGER NOT NULL, chunks INTEGER NOT NULL,
  text TEXT NOT NULL, ingested_at TEXT NOT NULL);
CREATE INDEX documents_name ON documents(name);
CREATE TABLE chunks(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
  page_start INTEGER NOT NULL, page_end INTEGER NOT NULL, heading_path TEXT NOT NULL,
  start_off INTEGER NOT NULL, end_off INTEGER NOT NULL, text TEXT NOT NULL);
CREATE INDEX chunks_doc ON chunks(doc_id, seq);
CREATE VIRTUAL TABLE chunks_fts USING fts5(heading_path, text, content='chunks', content_rowid='rowid',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, heading_path, text) VALUES (new.rowid, new.heading_path, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading_path, text) VALUES ('delete', old.rowid, old.heading_path, old.text);
END;
INSERT INTO meta VALUES ('created_by', 'mmkg 0.1.0');
INSERT INTO documents VALUES ('d1', '/x/capybara_notes.txt', 'capybara_notes.txt', 'text', 'Notes', 10, 0, 1, 't',
  '2026-01-01T00:00:00Z');
INSERT INTO chunks(id, doc_id, seq, page_start, page_end, heading_path, start_off, end_off, text)
  VALUES ('c1', 'd1', 0, 0, 0, 'Rodents', 0, 10, 'The largest living rodent.');
PRAGMA user_version = 1;
)SQL";

TEST(Store, MigratesVersion1Stores) {
  testing::TempDir dir;
  {
    sqlite3* db;
    ASSERT_EQ(sqlite3_open(dir.file("mmkg.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, kFrozenV1, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto s = Store::open(dir.str());
  EXPECT_EQ(s->stats().schema_version, Store::kSchemaVersion);
  EXPECT_EQ(s->figure_count(), 0);
  EXPECT_EQ(fts_match(*s, "rodent").size(), 1u);
  EXPECT_EQ(fts_match(*s, "capybara").size(), 1u) << "document context indexed by the migration";
  auto missing = s->chunks_without_vectors("m");
  ASSERT_EQ(missing.size(), 1u);
  s->put_embeddings("m", {missing[0].second}, {{1.0f, 0.0f}});
  EXPECT_TRUE(s->chunks_without_vectors("m").empty());
  int n = 0;
  s->for_each_vector("m", [&](int64_t, const float* v, size_t d) {
    EXPECT_EQ(d, 2u);
    EXPECT_EQ(v[0], 1.0f);
    ++n;
  });
  EXPECT_EQ(n, 1);
}

TEST(Store, EmbeddingsAreSharedByTextAndCollectedWhenUnused) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  Chunk a = mk_chunk("d1", 0, "same text");
  a.vector = {0.5f, 0.5f};
  int64_t g0 = s->generation();
  s->put_document(mk_doc("d1", "/x/a.txt"), "t", {a}, std::nullopt, "m");
  EXPECT_GT(s->generation(), g0);
  // Another document with the same chunk text reuses the stored vector.
  EXPECT_EQ(s->cached_embeddings("m", {"same text"})[0], (std::vector<float>{0.5f, 0.5f}));
  Chunk b = mk_chunk("d2", 0, "same text");
  s->put_document(mk_doc("d2", "/x/b.txt"), "t", {b}, std::nullopt, "m");
  s->delete_document("d1");
  EXPECT_EQ(s->cached_embeddings("m", {"same text"})[0].size(), 2u) << "still used by d2";
  WriteResult wr;
  s->delete_document("d2", &wr);
  EXPECT_EQ(wr.removed_rowids.size(), 1u);
  EXPECT_TRUE(s->cached_embeddings("m", {"same text"})[0].empty()) << "collected";
}

TEST(Store, ChunkBoxesRoundTripAndGoWithTheirDocument) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  Chunk a = mk_chunk("d1", 0, "alpha on two pages");
  a.boxes = {{1, 72, 100, 300, 180}, {2, 72.5f, 90, 300, 120.25f}};
  Chunk b = mk_chunk("d1", 1, "beta without boxes");
  s->put_document(mk_doc("d1", "/x/a.pdf"), "t", {a, b}, std::nullopt);
  EXPECT_EQ(s->chunk_boxes("d1-0"), a.boxes);
  EXPECT_EQ(s->chunk_boxes(s->chunk("d1-0")->rowid), a.boxes);
  EXPECT_TRUE(s->chunk_boxes("d1-1").empty());
  EXPECT_TRUE(s->chunk_boxes("nope").empty());
  EXPECT_TRUE(s->chunk("d1-0")->chunk.boxes.empty()) << "chunk() leaves them to chunk_boxes()";
  // Replacing the document replaces its boxes; deleting it removes them.
  Chunk a2 = mk_chunk("d2", 0, "alpha again");
  a2.boxes = {{3, 1, 2, 3, 4}};
  s->put_document(mk_doc("d2", "/x/a.pdf"), "t", {a2}, std::string("d1"));
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunk_boxes"), 1);
  EXPECT_EQ(s->chunk_boxes("d2-0"), a2.boxes);
  EXPECT_TRUE(s->delete_document("d2"));
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunk_boxes"), 0);
}

TEST(Store, MigratesVersion3StoresToPageBoxes) {
  testing::TempDir dir;
  {
    auto s = Store::open(dir.str());
    s->put_document(mk_doc("d1", "/x/a.pdf"), "t", {mk_chunk("d1", 0, "stored before boxes existed")}, std::nullopt);
    // What version 3 had: no boxes table, the embeddings WITHOUT ROWID.
    s->exec(
        "DROP TABLE chunk_boxes; DROP TABLE embeddings; CREATE TABLE embeddings(model TEXT NOT NULL, "
        "text_hash TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID; "
        "PRAGMA user_version = 3");
  }
  auto s = Store::open(dir.str());
  EXPECT_EQ(s->stats().schema_version, Store::kSchemaVersion);
  Stmt v(s->db(), "PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.i32(0), Store::kSchemaVersion);
  EXPECT_TRUE(s->chunk_boxes("d1-0").empty()) << "old chunks have none until ingested again";
  EXPECT_EQ(s->chunk("d1-0")->chunk.text, "stored before boxes existed");
  Chunk c = mk_chunk("d2", 0, "ingested after the migration");
  c.boxes = {{1, 10, 20, 30, 40}};
  s->put_document(mk_doc("d2", "/x/b.pdf"), "t", {c}, std::nullopt);
  EXPECT_EQ(s->chunk_boxes("d2-0"), c.boxes);
  EXPECT_TRUE(s->delete_document("d1"));
}

TEST(Store, MigratesVersion4EmbeddingsToARowidTable) {
  testing::TempDir dir;
  const std::vector<float> vec = {0.6f, -0.8f, 0.0f, 1.0f / 3.0f};
  {
    auto s = Store::open(dir.str());
    Chunk a = mk_chunk("d1", 0, "a chunk embedded by version 4");
    s->put_document(mk_doc("d1", "/x/a.txt"), "t", {a}, std::nullopt);
    // What version 4 had: float vectors in a WITHOUT ROWID table.
    s->exec(
        "DROP TABLE embeddings; CREATE TABLE embeddings(model TEXT NOT NULL, text_hash TEXT NOT NULL, "
        "vec BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID; PRAGMA user_version = 4");
    Stmt put(s->db(), "INSERT INTO embeddings(model, text_hash, vec) VALUES ('m', ?, ?)");
    put.bind(1, hash_hex(a.text)).bind_blob(2, vec.data(), vec.size() * sizeof(float)).run();
  }
  auto s = Store::open(dir.str());
  EXPECT_EQ(s->stats().schema_version, Store::kSchemaVersion);
  const auto got = s->cached_embeddings("m", {"a chunk embedded by version 4"})[0];
  ASSERT_EQ(got.size(), vec.size());
  EXPECT_EQ(got, vec) << "bit for bit";
  EXPECT_TRUE(s->chunks_without_vectors("m").empty()) << "the chunk keeps its vector";
  Stmt sql(s->db(), "SELECT sql FROM sqlite_master WHERE name = 'embeddings'");
  ASSERT_TRUE(sql.step());
  EXPECT_EQ(sql.text(0).find("WITHOUT ROWID"), std::string::npos) << sql.text(0);
  EXPECT_EQ(count(*s, "SELECT count(*) FROM sqlite_master WHERE name = 'embeddings_key'"), 1);
}

TEST(Store, NameVectorsAreKeptAsHalvesAndChunkVectorsAsFloats) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  Chunk a = mk_chunk("d1", 0, "a chunk with a float vector");
  s->put_document(mk_doc("d1", "/x/a.txt"), "t", {a}, std::nullopt);
  const std::vector<float> chunk_vec = {0.6f, -0.8f, 1.0f / 3.0f, 0.1f};
  s->put_embeddings("m", {a.text}, {chunk_vec});
  const std::vector<float> name_vec = {0.123456f, -0.654321f, 1.0f / 3.0f, 0.0f};
  s->put_embeddings("m", {"Ada Lovelace"}, {name_vec}, /*chunk_vectors=*/false);

  EXPECT_EQ(s->cached_embeddings("m", {a.text})[0], chunk_vec) << "bit for bit";
  std::vector<float> rounded = name_vec;
  round_to_half(rounded);
  EXPECT_EQ(s->cached_embeddings("m", {"Ada Lovelace"})[0], rounded);
  EXPECT_NE(rounded, name_vec) << "the fixture must lose bits in binary16";
  EXPECT_EQ(count(*s, "SELECT length(vec) FROM embeddings WHERE enc = 1"), 8) << "2 bytes a value";
  EXPECT_EQ(count(*s, "SELECT length(vec) FROM embeddings WHERE enc = 0"), 16);
  // The vector index reads the chunk's floats; a chunk text also stored as a name reads as halves.
  std::vector<float> seen;
  s->for_each_vector("m", [&](int64_t, const float* v, size_t d) { seen.assign(v, v + d); });
  EXPECT_EQ(seen, chunk_vec);
  s->put_embeddings("m", {a.text}, {chunk_vec}, /*chunk_vectors=*/false);
  s->for_each_vector("m", [&](int64_t, const float* v, size_t d) { seen.assign(v, v + d); });
  std::vector<float> chunk_rounded = chunk_vec;
  round_to_half(chunk_rounded);
  EXPECT_EQ(seen, chunk_rounded);
}

TEST(Store, AdjacentRowidsAreTheChunksBeforeAndAfterInTheSameDocument) {
  testing::TempDir dir;
  auto store = Store::open(dir.str());
  testing::put_text_document(*store, "a", "/c/a.txt", {"first", "second", "third"});
  testing::put_text_document(*store, "b", "/c/b.txt", {"other first", "other second"});
  auto rowid = [&](const std::string& id) { return store->chunk(id)->rowid; };
  EXPECT_EQ(store->adjacent_rowids(rowid("a-1")), (std::vector<int64_t>{rowid("a-0"), rowid("a-2")}));
  // The ends have one neighbour; b-0 follows a-2 in row order but is another document's.
  EXPECT_EQ(store->adjacent_rowids(rowid("a-2")), (std::vector<int64_t>{rowid("a-1")}));
  EXPECT_EQ(store->adjacent_rowids(rowid("b-0")), (std::vector<int64_t>{rowid("b-1")}));
  EXPECT_TRUE(store->adjacent_rowids(987654).empty());
}

}  // namespace
}  // namespace mmkg
