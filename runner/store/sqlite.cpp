#include "store/sqlite.hpp"

namespace apod::sqlite {

Database::Database(const std::string& path, int flags) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open database '" + path + "': " + msg, rc);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::check(int rc, const std::string& context) const {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  throw Error(context + ": " + sqlite3_errmsg(db_) + " (" + path_ + ")", rc);
}

void Database::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(msg + " (" + path_ + ")", rc);
  }
}

Statement::Statement(Database& db, const std::string& sql) : db_(db), sql_(sql) {
  db_.check(sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr), "prepare");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, int64_t v) {
  db_.check(sqlite3_bind_int64(stmt_, i, v), "bind");
  return *this;
}
Statement& Statement::bind(int i, double v) {
  db_.check(sqlite3_bind_double(stmt_, i, v), "bind");
  return *this;
}
Statement& Statement::bind(int i, const std::string& v) {
  db_.check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT), "bind");
  return *this;
}
Statement& Statement::bind(int i, std::nullptr_t) {
  db_.check(sqlite3_bind_null(stmt_, i), "bind");
  return *this;
}
Statement& Statement::bind(int i, const std::optional<double>& v) {
  return v ? bind(i, *v) : bind(i, nullptr);
}
Statement& Statement::bind(int i, const std::optional<std::string>& v) {
  return v ? bind(i, *v) : bind(i, nullptr);
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  db_.check(rc, "step");
  return rc == SQLITE_ROW;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::get_text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col)) : std::string();
}
std::optional<std::string> Statement::get_optional_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return get_text(col);
}
std::optional<double> Statement::get_optional_double(int col) const {
  if (is_null(col)) return std::nullopt;
  return get_double(col);
}

ReadTransaction::ReadTransaction(Database& db) : db_(db) { db_.exec("BEGIN"); }

ReadTransaction::~ReadTransaction() {
  try {
    db_.exec("COMMIT");
  } catch (...) {  // nothing was written; the snapshot is released either way
  }
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // a destructor must not throw; the transaction is gone either way
    }
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace apod::sqlite
