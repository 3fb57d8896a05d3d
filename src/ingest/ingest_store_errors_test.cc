// A store that cannot take writes (full disk, lock held by another process) stops the batch:
// every later document would fail the same way.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "core/error.h"
#include "ingest/ingest.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

void write_docs(const testing::TempDir& in, int n) {
  for (int i = 0; i < n; ++i) {
    std::string body;
    for (int k = 0; k < 200; ++k) body += "Sentence " + std::to_string(k) + " about the pangolin " + std::to_string(i) + ". ";
    in.write("doc" + std::to_string(i) + ".txt", "Title\n\n" + body + "\n");
  }
}

TEST(IngestStoreErrors, FullDiskStopsTheBatch) {
  testing::TempDir in, st;
  write_docs(in, 4);
  auto store = Store::open(st.str());
  int64_t pages = 0;
  {
    Stmt s(store->db(), "PRAGMA page_count");
    ASSERT_TRUE(s.step());
    pages = s.i64(0);
  }
  // The database may not grow: the first write fails with SQLITE_FULL.
  Stmt(store->db(), "PRAGMA max_page_count = " + std::to_string(pages)).step();
  IngestOptions opt;
  opt.threads = 2;
  try {
    ingest(*store, {in.str()}, opt);
    FAIL() << "ingest into a full store went on";
  } catch (const StoreFullError& e) {
    EXPECT_STREQ(e.what(), "disk full while writing the store; free space and re-run");
  }
  EXPECT_TRUE(store->documents().empty());
}

TEST(IngestStoreErrors, LockedStoreStopsTheBatch) {
  testing::TempDir in, st;
  write_docs(in, 4);
  auto store = Store::open(st.str());
  sqlite3_busy_timeout(store->db(), 0);  // fail at once instead of after the 10 s timeout
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open_v2((st.str() + "/mmkg.db").c_str(), &other, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  IngestOptions opt;
  opt.threads = 2;
  try {
    ingest(*store, {in.str()}, opt);
    ADD_FAILURE() << "ingest into a locked store went on";
  } catch (const StoreLockedError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the store is locked by another mmkg process (", 0), 0u) << e.what();
  }
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_TRUE(store->documents().empty());
}

}  // namespace
}  // namespace mmkg
