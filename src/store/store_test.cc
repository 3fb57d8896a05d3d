#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/error.h"
#include "core/test_util.h"
#include "index/lexical.h"
#include "store/sqlite_util.h"

namespace mmkg {
namespace {

Chunk mk(const std::string& doc, int seq, const std::string& text) {
  Chunk c;
  c.id = doc + "-" + std::to_string(seq);
  c.doc_id = doc;
  c.seq = seq;
  c.text = text;
  c.heading_path = "H";
  c.end = static_cast<int64_t>(text.size());
  return c;
}

DocumentRecord rec(const std::string& id, const std::string& path) {
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

TEST(Store, PutFindDeleteKeepsFtsInSync) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(rec("d1", "/x/a.txt"), "alpha beta", {mk("d1", 0, "alpha beta gamma"), mk("d1", 1, "delta epsilon")},
                  std::nullopt);
  s->put_document(rec("d2", "/x/b.txt"), "zeta", {mk("d2", 0, "zeta alpha")}, std::nullopt);
  EXPECT_EQ(s->documents().size(), 2u);
  EXPECT_EQ(s->find_by_path("/x/a.txt")->chunks, 2);
  EXPECT_EQ(bm25_search(*s, "alpha").size(), 2u);
  EXPECT_TRUE(s->delete_document("d1"));
  EXPECT_FALSE(s->delete_document("d1"));
  EXPECT_EQ(bm25_search(*s, "alpha").size(), 1u);
  EXPECT_EQ(bm25_search(*s, "delta").size(), 0u);
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunks"), 1);
  // The FTS index agrees with its content table.
  s->exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)");
}

TEST(Store, ReplaceSwapsOldVersionAtomically) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(rec("v1", "/x/a.txt"), "old", {mk("v1", 0, "old words here")}, std::nullopt);
  s->put_document(rec("v2", "/x/a.txt"), "new", {mk("v2", 0, "new words here")}, std::string("v1"));
  EXPECT_EQ(s->documents().size(), 1u);
  EXPECT_EQ(s->find_by_path("/x/a.txt")->id, "v2");
  EXPECT_TRUE(bm25_search(*s, "old").empty());
  EXPECT_EQ(bm25_search(*s, "new").size(), 1u);
}

TEST(Store, FailedTransactionLeavesNothingBehind) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(rec("d1", "/x/a.txt"), "t", {mk("d1", 0, "one")}, std::nullopt);
  // Same chunk id twice violates UNIQUE: the whole document must roll back.
  EXPECT_THROW(s->put_document(rec("d2", "/x/b.txt"), "t", {mk("d2", 0, "x"), mk("d2", 0, "y")}, std::nullopt), IOError);
  EXPECT_EQ(s->documents().size(), 1u);
  EXPECT_EQ(count(*s, "SELECT count(*) FROM chunks"), 1);
}

TEST(Store, ResolveByNamePathIdAndPrefix) {
  testing::TempDir dir;
  auto s = Store::open(dir.str());
  s->put_document(rec("abcdef0123456789", "/x/a.txt"), "t", {mk("abcdef0123456789", 0, "one")}, std::nullopt);
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
  auto d = rec("d1", "/x/a.txt");
  d.pages = 3;
  s->put_document(d, "text", {mk("d1", 0, "a"), mk("d1", 1, "b")}, std::nullopt);
  auto st = s->stats();
  EXPECT_EQ(st.documents, 1);
  EXPECT_EQ(st.chunks, 2);
  EXPECT_EQ(st.pages, 3);
  EXPECT_EQ(st.schema_version, Store::kSchemaVersion);
}

}  // namespace
}  // namespace mmkg
