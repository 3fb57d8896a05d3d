// Thin RAII helpers over the SQLite C API.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace mmkg {

/// Throws the error for SQLite result `rc` with message `what`: StoreLockedError when another
/// connection holds the lock (SQLITE_BUSY, SQLITE_LOCKED), IOError otherwise.
[[noreturn]] void throw_sqlite_error(int rc, const std::string& what);

/// A prepared statement; binds are 1-based like SQLite's.
class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql);
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::string_view v) {
    check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    check(sqlite3_bind_int64(st_, i, v));
    return *this;
  }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v) {
    check(sqlite3_bind_double(st_, i, v));
    return *this;
  }
  Stmt& bind_blob(int i, const void* p, size_t n) {
    check(sqlite3_bind_blob(st_, i, p, static_cast<int>(n), SQLITE_TRANSIENT));
    return *this;
  }
  Stmt& bind_null(int i) {
    check(sqlite3_bind_null(st_, i));
    return *this;
  }
  /// Steps once; true while a row is available. Throws IOError on errors: StoreLockedError when
  /// the store is locked, StoreFullError when the disk is full.
  bool step();
  /// Steps to completion (statements without rows).
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }

  std::string text(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, col))) : std::string();
  }
  int64_t i64(int col) const { return sqlite3_column_int64(st_, col); }
  int i32(int col) const { return sqlite3_column_int(st_, col); }
  double f64(int col) const { return sqlite3_column_double(st_, col); }
  const void* blob(int col) const { return sqlite3_column_blob(st_, col); }
  int bytes(int col) const { return sqlite3_column_bytes(st_, col); }
  std::vector<float> floats(int col) const {
    const float* p = static_cast<const float*>(sqlite3_column_blob(st_, col));
    size_t n = static_cast<size_t>(sqlite3_column_bytes(st_, col)) / sizeof(float);
    return p ? std::vector<float>(p, p + n) : std::vector<float>();
  }
  bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }

 private:
  void check(int rc);
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

/// BEGIN IMMEDIATE ... COMMIT; rolls back if destroyed before commit().
class Transaction {
 public:
  explicit Transaction(sqlite3* db);
  ~Transaction();
  void commit();

 private:
  sqlite3* db_;
  bool done_ = false;
};

}  // namespace mmkg
