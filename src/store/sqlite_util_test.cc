#include "store/sqlite_util.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

// A raw connection with no busy timeout: a lock held elsewhere fails at once.
struct Db {
  explicit Db(const std::string& file) {
    EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  }
  ~Db() { sqlite3_close(db); }
  sqlite3* db = nullptr;
};

TEST(SqliteUtil, WriteUnderAnotherConnectionsLockThrowsStoreLockedError) {
  testing::TempDir dir;
  Db a(dir.file("t.db")), b(dir.file("t.db"));
  Stmt(a.db, "CREATE TABLE t(x)").run();
  Transaction tx(a.db);  // a holds the write lock
  Stmt(a.db, "INSERT INTO t VALUES (1)").run();
  try {
    Transaction other(b.db);
    FAIL() << "BEGIN IMMEDIATE succeeded under another connection's write lock";
  } catch (const StoreLockedError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the store is locked by another mmkg process (", 0), 0u) << e.what();
  }
}

TEST(SqliteUtil, OtherDatabaseErrorsAreNotTypedAsLockedOrFull) {
  testing::TempDir dir;
  Db a(dir.file("t.db"));
  Stmt(a.db, "CREATE TABLE t(x UNIQUE)").run();
  Stmt(a.db, "INSERT INTO t VALUES (1)").run();
  Stmt dup(a.db, "INSERT INTO t VALUES (1)");
  try {
    dup.run();
    FAIL() << "duplicate insert succeeded";
  } catch (const StoreLockedError&) {
    FAIL() << "a constraint error typed as a locked store";
  } catch (const StoreFullError&) {
    FAIL() << "a constraint error typed as a full disk";
  } catch (const IOError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("database error: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(Stmt(a.db, "SELECT * FROM missing"), IOError);
}

TEST(SqliteUtil, ThrowSqliteErrorTypesBusyLockedAndFull) {
  EXPECT_THROW(throw_sqlite_error(SQLITE_BUSY, "m"), StoreLockedError);
  EXPECT_THROW(throw_sqlite_error(SQLITE_LOCKED, "m"), StoreLockedError);
  EXPECT_THROW(throw_sqlite_error(SQLITE_BUSY_SNAPSHOT, "m"), StoreLockedError);
  EXPECT_THROW(throw_sqlite_error(SQLITE_FULL, "m"), StoreFullError);
  try {
    throw_sqlite_error(SQLITE_ERROR, "database error: x");
  } catch (const StoreLockedError&) {
    FAIL() << "SQLITE_ERROR typed as a locked store";
  } catch (const IOError& e) {
    EXPECT_STREQ(e.what(), "database error: x");
  }
}

}  // namespace
}  // namespace mmkg
