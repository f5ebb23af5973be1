// The state store's SQLite handles (internal to state_store*.cpp): the database and statement
// owners, and Run, the one way a prepared statement is bound, stepped and reset, with errors
// that name the file, the operation and the SQL.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace ibsdn::state_store_sql {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// A prepared statement kept for the store's lifetime. Use one through a Run, which resets it.
class Statement {
 public:
  Statement() = default;
  /// Throws StateError when SQLite cannot prepare `sql`.
  Statement(sqlite3* db, const std::string& path, const std::string& sql);
  [[nodiscard]] sqlite3_stmt* get() const { return stmt_.get(); }
  [[nodiscard]] sqlite3* db() const { return db_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& sql() const { return sql_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
};

class Run {
 public:
  Run(const Statement& s, std::string operation) : s_(s), op_(std::move(operation)) {}
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() {
    sqlite3_reset(s_.get());
    sqlite3_clear_bindings(s_.get());
  }

  Run& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(s_.get(), i, v)); }
  Run& bind(int i, std::string_view v) {
    if (v.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      fail(SQLITE_TOOBIG);
    }
    return check(
        sqlite3_bind_text(s_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Run& bind_null(int i) { return check(sqlite3_bind_null(s_.get(), i)); }

  /// True while a row is available.
  bool step() {
    const int rc = sqlite3_step(s_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(rc);
  }
  void exec() {
    while (step()) {
    }
  }

  [[nodiscard]] int type(int col) const { return sqlite3_column_type(s_.get(), col); }
  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(s_.get(), col); }
  [[nodiscard]] bool is_null(int col) const { return type(col) == SQLITE_NULL; }
  [[nodiscard]] std::string text(int col) const {
    const auto* p = sqlite3_column_text(s_.get(), col);
    const int n = sqlite3_column_bytes(s_.get(), col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
             : std::string();
  }

 private:
  Run& check(int rc) {
    if (rc != SQLITE_OK) fail(rc);
    return *this;
  }
  [[noreturn]] void fail(int rc) const;

  const Statement& s_;
  std::string op_;
};

void exec_sql(sqlite3* db, const std::string& path, std::string_view operation, const char* sql);

// The single value a PRAGMA returns.
std::string pragma_value(sqlite3* db, const std::string& path, const char* sql);

}  // namespace ibsdn::state_store_sql
