#include "store/sqlite_util.h"

namespace mmkg {

void throw_sqlite_error(int rc, const std::string& what) {
  int primary = rc & 0xff;  // extended result codes keep the primary code in the low byte
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw StoreLockedError(what);
  if (primary == SQLITE_FULL) throw StoreFullError("disk full while writing the store; free space and re-run");
  throw IOError(what);
}

Stmt::Stmt(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &st_, nullptr);
  if (rc != SQLITE_OK)
    throw_sqlite_error(rc, "database error: " + std::string(sqlite3_errmsg(db)) + " (in: " +
                               std::string(sql.substr(0, 80)) + ")");
}

void Stmt::check(int rc) {
  if (rc != SQLITE_OK) throw_sqlite_error(rc, "database error: " + std::string(sqlite3_errmsg(db_)));
}

bool Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string msg = sqlite3_errmsg(db_);
  sqlite3_reset(st_);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    throw StoreLockedError("the store is locked by another mmkg process (" + msg + "); wait for it to finish and re-run");
  if (rc == SQLITE_FULL) throw StoreFullError("disk full while writing the store; free space and re-run");
  throw IOError("database error: " + msg);
}

Transaction::Transaction(sqlite3* db) : db_(db) { Stmt(db, "BEGIN IMMEDIATE").run(); }

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  Stmt(db_, "COMMIT").run();
  done_ = true;
}

}  // namespace mmkg
