// What only the shared Neo4j store has: staged writes no reader sees, the smallest path keeping
// content stored under several, the local copy of another database dropped, a missing store.
// Against a real Neo4j 5.26 (tests/support/neo4j_server.h), each test on an emptied database.
#include "store/neo4j_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/error.h"
#include "net/neo4j_query.h"
#include "support/neo4j_server.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using testing::put_text_document;
using testing::TempDir;

class Neo4jStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MMKG_REQUIRE_NEO4J(url_);
    db_ = std::make_unique<Neo4jClient>(parse_neo4j_url(url_));
    for (;;) {
      auto r = db_->run("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)");
      if (r.rows.empty() || r.rows[0][0].get<int64_t>() == 0) break;
    }
  }
  std::unique_ptr<Store> node(const std::string& cache, bool create = true) {
    return open_neo4j_store({url_, dir_.file(cache), create});
  }
  int64_t count(const std::string& cypher) { return db_->run(cypher).rows[0][0].get<int64_t>(); }

  TempDir dir_;
  std::string url_;
  std::unique_ptr<Neo4jClient> db_;
};

TEST_F(Neo4jStoreTest, AStoreThatIsNotThereIsAUsageErrorWithoutCreate) {
  try {
    node("c", /*create=*/false);
    FAIL() << "opened a store that does not exist";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("mmkg ingest PATH --store"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count("MATCH (s:MmkgStore) RETURN count(s)"), 0) << "nothing was made";
  node("c");
  EXPECT_EQ(count("MATCH (s:MmkgStore) RETURN count(s)"), 1);
  EXPECT_NO_THROW(node("d", false));
}

// Reads are marked read-only (on a cluster they may run on a secondary) and every request
// carries the bookmarks of the answer before it, so a read waits for the client's own writes.
TEST_F(Neo4jStoreTest, ClientReadsAreReadOnlyAndCarryTheLastBookmarks) {
  Neo4jClient c(parse_neo4j_url(url_));
  EXPECT_TRUE(c.bookmarks().empty());
  c.run("CREATE (:ClientProbe {n: 1})");
  const auto after_write = c.bookmarks();
  ASSERT_FALSE(after_write.empty()) << "the Query API answers with bookmarks";
  EXPECT_EQ(c.read("MATCH (p:ClientProbe) RETURN count(p)").rows[0][0].get<int64_t>(), 1);
  try {
    c.read("CREATE (:ClientProbe {n: 2})");
    FAIL() << "a write ran as a read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AccessMode"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count("MATCH (p:ClientProbe) RETURN count(p)"), 1);
  // A bookmark the server cannot parse is sent (the request fails), then forgotten: the read
  // is answered and the client holds the server's bookmark again.
  c.set_bookmarks({"not a bookmark"});
  EXPECT_EQ(c.read("MATCH (p:ClientProbe) RETURN count(p)").rows[0][0].get<int64_t>(), 1);
  ASSERT_FALSE(c.bookmarks().empty());
  EXPECT_NE(c.bookmarks()[0], "not a bookmark");
}

// A writer killed before its publish statement leaves staged nodes: no reader sees them, and the
// document written again by another process is whole.
TEST_F(Neo4jStoreTest, StagedNodesOfAKilledWriterAreInvisible) {
  auto a = node("a");
  db_->run(
      "CREATE (:StagedDocument {id: 'd1', path: '/x/a.txt', name: 'a.txt', format: 'text', title: '', bytes: 1, "
      "pages: 0, chunks: 2, text: 't', ingested_at: '', version: 'dead', staged_at: timestamp()}) "
      "CREATE (:StagedChunk {id: 'd1-0', doc_id: 'd1', seq: 0, text: 'half written', version: 'dead', "
      "staged_at: timestamp()})");
  auto b = node("b");
  EXPECT_FALSE(b->find_by_id("d1"));
  EXPECT_TRUE(b->documents().empty());
  put_text_document(*a, "d1", "/x/a.txt", {"whole one", "whole two"});
  b->sync();
  ASSERT_TRUE(b->find_by_id("d1"));
  EXPECT_EQ(b->chunks_of("d1").size(), 2u);
  EXPECT_EQ(b->chunk("d1-0")->chunk.text, "whole one");
  // The chunks belong to their document (the fixture's chunks leave Chunk::doc_id empty, as the
  // embedded store ignores it).
  EXPECT_EQ(count("MATCH (c:Chunk {doc_id: 'd1'}) RETURN count(c)"), 2);
}

// The same content under two paths is stored once, under the smaller path, whichever process
// writes first (as one ingest's sorted walk keeps the first).
TEST_F(Neo4jStoreTest, TheSmallestPathKeepsContentStoredUnderSeveral) {
  auto a = node("a");
  auto b = node("b");
  put_text_document(*b, "same", "/z/copy.txt", {"words"});
  put_text_document(*a, "same", "/a/orig.txt", {"words"});
  put_text_document(*b, "same", "/m/later.txt", {"words"});
  for (auto* s : {a.get(), b.get()}) {
    s->sync();
    auto docs = s->documents();
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_EQ(docs[0].path, "/a/orig.txt");
    EXPECT_EQ(s->chunks_of("same").size(), 1u);
  }
  EXPECT_EQ(count("MATCH (n:StagedDocument|StagedChunk) RETURN count(n)"), 0) << "the refused copies are gone";
}

// The local copy is a cache of one database: pointed at another (or a wiped and remade one), it
// starts again from that database's documents.
TEST_F(Neo4jStoreTest, TheLocalCopyOfAnotherDatabaseIsDropped) {
  {
    auto a = node("a");
    put_text_document(*a, "old", "/x/old.txt", {"old words"});
  }
  db_->run("MATCH (n) DETACH DELETE n");
  auto writer = node("w");
  put_text_document(*writer, "new", "/x/new.txt", {"new words"});
  auto a = node("a");
  EXPECT_FALSE(a->find_by_id("old"));
  a->sync();
  EXPECT_TRUE(a->find_by_id("new"));
}

// Claims: a live writer's file is left to it; a file another writer has stored since this
// process last synced is reported stored (its local copy does not know yet), and nothing is held.
TEST_F(Neo4jStoreTest, AClaimSeesLiveWritersAndFilesStoredMeanwhile) {
  auto a = node("a");
  auto b = node("b");
  a->join_writers();
  b->join_writers();
  EXPECT_EQ(a->claim("/x/a.txt", "d1"), Store::Claim::Mine);
  EXPECT_EQ(b->claim("/x/a.txt", "d1"), Store::Claim::Elsewhere);
  put_text_document(*a, "d1", "/x/a.txt", {"whole one"});
  a->release("/x/a.txt");
  EXPECT_FALSE(b->find_by_id("d1")) << "b has not synced";
  EXPECT_EQ(b->claim("/x/a.txt", "d1"), Store::Claim::Stored);
  EXPECT_EQ(a->claim("/x/a.txt", "d1"), Store::Claim::Stored) << "b holds nothing after finding it stored";
  EXPECT_EQ(b->claim("/x/a.txt", "d2"), Store::Claim::Mine) << "other content at the path is b's to write";
  a->leave_writers();
  b->leave_writers();
}

// Several processes opening a new store at once all run its CREATE ... IF NOT EXISTS statements;
// the one that loses a race to an equivalent index is not an error.
TEST_F(Neo4jStoreTest, WritersOpeningANewStoreAtOnceAllSucceed) {
  for (const char* kind : {"CONSTRAINTS", "INDEXES"})
    for (const auto& row : db_->run(std::string("SHOW ") + kind + " YIELD name WHERE name STARTS WITH 'mmkg_' "
                                                                   "RETURN name").rows)
      db_->run(std::string("DROP ") + (kind[0] == 'C' ? "CONSTRAINT " : "INDEX ") + row[0].get<std::string>() +
               " IF EXISTS");
  std::vector<std::thread> openers;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i)
    openers.emplace_back([&, i] {
      try {
        node("w" + std::to_string(i));
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  for (auto& t : openers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(count("MATCH (s:MmkgStore) RETURN count(s)"), 1);
}

TEST_F(Neo4jStoreTest, ANewerSchemaIsRefused) {
  node("a");
  db_->run("MATCH (s:MmkgStore {key: 'store'}) SET s.schema_version = 99");
  EXPECT_THROW(node("b"), UsageError);
}

TEST_F(Neo4jStoreTest, TheCacheFolderIsNamedAfterServerAndDatabaseNeverTheCredentials) {
  const std::string d = shared_store_cache_dir("neo4j://neo4j:s3cret@db.example:7474/docs", "/c");
  EXPECT_EQ(d, "/c/db.example_7474_docs");
  EXPECT_EQ(d.find("s3cret"), std::string::npos);
  EXPECT_TRUE(is_shared_store_spec("neo4j://h:1"));
  EXPECT_TRUE(is_shared_store_spec("https://h:1"));
  EXPECT_FALSE(is_shared_store_spec("./neo4j-store"));
}

}  // namespace
}  // namespace mmkg
