#include "plugin/controller/state_store_sql.hpp"

#include "plugin/controller/state_error.hpp"

namespace ibsdn::state_store_sql {

Statement::Statement(sqlite3* db, const std::string& path, const std::string& sql)
    : db_(db), path_(path), sql_(sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    throw StateError(path + ": prepare \"" + sql + "\": " + sqlite3_errmsg(db));
  }
  stmt_.reset(s);
}

void Run::fail(int rc) const {
  const char* msg = sqlite3_errmsg(s_.db());
  throw StateError(s_.path() + ": " + op_ + ": \"" + s_.sql() +
                   "\": " + (msg && sqlite3_errcode(s_.db()) == rc ? msg : sqlite3_errstr(rc)));
}

void exec_sql(sqlite3* db, const std::string& path, std::string_view operation, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw StateError(path + ": " + std::string(operation) + ": " + msg);
  }
}

std::string pragma_value(sqlite3* db, const std::string& path, const char* sql) {
  const Statement s(db, path, sql);
  Run r(s, sql);
  if (!r.step()) throw StateError(path + ": " + sql + ": no result");
  return r.text(0);
}

}  // namespace ibsdn::state_store_sql
