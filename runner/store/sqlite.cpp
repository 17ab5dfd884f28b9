#include "store/sqlite.hpp"

#include "core/limits.hpp"

#include <algorithm>
#include <mutex>

namespace apod::sqlite {

namespace {

// What SQLite advises for database files that may come from an attacker
// (https://sqlite.org/security.html, "Untrusted SQLite Database Files"): nothing stored in the
// file may run (triggers, views, functions in the schema), SQL may not corrupt it, and values,
// the heap and the time of a statement are bounded. apod's own schema has no trigger or view.
void harden(sqlite3* db) {
  static std::once_flag heap_limit;
  std::call_once(heap_limit, [] { sqlite3_hard_heap_limit64(limits::max_sqlite_heap_bytes); });
  const std::pair<int, int> settings[] = {{SQLITE_DBCONFIG_DEFENSIVE, 1},
                                          {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
                                          {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
                                          {SQLITE_DBCONFIG_ENABLE_VIEW, 0},
                                          {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0}};
  for (const auto& [option, value] : settings) {
    const int rc = sqlite3_db_config(db, option, value, nullptr);
    if (rc != SQLITE_OK)
      throw Error(
          std::string("this SQLite library cannot harden a connection: ") + sqlite3_errstr(rc), rc);
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, limits::max_stored_value_bytes);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  // Finds a damaged b-tree cell before it is used (security.html, item 7).
  sqlite3_exec(db, "PRAGMA cell_size_check=ON", nullptr, nullptr, nullptr);
}

} // namespace

Database::Database(const std::string& path, int flags, const std::string& shown)
    : path_(shown.empty() ? path : shown), step_limit_ms_(limits::max_statement_step_ms) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open database '" + path_ + "': " + msg, rc);
  }
  sqlite3_extended_result_codes(db_, 1);
  try {
    harden(db_);
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
  sqlite3_progress_handler(db_, 10000, &Database::on_progress, this);
  arm_step_clock();
}

std::string Database::file_name() const {
  const char* name = sqlite3_db_filename(db_, "main");
  return name ? name : "";
}

void Database::arm_step_clock() {
  step_deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(step_limit_ms_);
}

int Database::on_progress(void* self) {
  const auto* db = static_cast<const Database*>(self);
  return db->step_limit_ms_ > 0 && std::chrono::steady_clock::now() > db->step_deadline_;
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::check(int rc, const std::string& context) const {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE)
    return;
  throw Error(context + ": " + sqlite3_errmsg(db_) + " (" + path_ + ")", rc);
}

void Database::exec(const std::string& sql) {
  arm_step_clock();
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(msg + " (" + path_ + ")", rc);
  }
}

Statement::Statement(Database& db, const std::string& sql) : db_(db), sql_(sql) {
  db_.arm_step_clock(); // preparing the first statement reads the schema
  db_.check(sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr), "prepare");
  for (int i = 0; i < sqlite3_column_count(stmt_); ++i)
    if (!columns_.emplace(sqlite3_column_name(stmt_, i), i).second)
      columns_[sqlite3_column_name(stmt_, i)] = -1; // ambiguous: no read by this name
  bound_.assign(sqlite3_bind_parameter_count(stmt_) + 1, false);
  unbound_ = sqlite3_bind_parameter_count(stmt_);
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

int Statement::parameter(const char* name) {
  const int i = sqlite3_bind_parameter_index(stmt_, name);
  if (i == 0)
    throw std::logic_error(std::string("no parameter ") + name + " in the SQL: " + sql_);
  if (!bound_[i]) {
    bound_[i] = true;
    --unbound_;
  }
  return i;
}

int Statement::column(const char* name) const {
  const auto it = columns_.find(std::string_view(name));
  if (it == columns_.end())
    throw std::logic_error(std::string("no column \"") + name + "\" in the result of: " + sql_);
  if (it->second < 0)
    throw std::logic_error(std::string("two columns are named \"") + name +
                           "\" in the result of: " + sql_);
  return it->second;
}

Statement& Statement::bind(const char* name, int64_t v) {
  db_.check(sqlite3_bind_int64(stmt_, parameter(name), v), "bind");
  return *this;
}
Statement& Statement::bind(const char* name, double v) {
  db_.check(sqlite3_bind_double(stmt_, parameter(name), v), "bind");
  return *this;
}
Statement& Statement::bind(const char* name, const std::string& v) {
  db_.check(sqlite3_bind_text(stmt_, parameter(name), v.data(), static_cast<int>(v.size()),
                              SQLITE_TRANSIENT),
            "bind");
  return *this;
}
Statement& Statement::bind(const char* name, std::nullptr_t) {
  db_.check(sqlite3_bind_null(stmt_, parameter(name)), "bind");
  return *this;
}
Statement& Statement::bind(const char* name, const std::optional<double>& v) {
  return v ? bind(name, *v) : bind(name, nullptr);
}
Statement& Statement::bind(const char* name, const std::optional<std::string>& v) {
  return v ? bind(name, *v) : bind(name, nullptr);
}

// SQLite reads a parameter never bound as NULL without a word: a name misspelt in a bind, or
// one left out, would store NULLs.
bool Statement::step() {
  for (int i = 1; unbound_ > 0 && i < static_cast<int>(bound_.size()); ++i)
    if (!bound_[i]) {
      const char* name = sqlite3_bind_parameter_name(stmt_, i);
      throw std::logic_error(std::string("parameter ") + (name ? name : "?") +
                             " is not bound in: " + sql_);
    }
  db_.arm_step_clock();
  const int rc = sqlite3_step(stmt_);
  db_.check(rc, "step");
  return rc == SQLITE_ROW;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  std::fill(bound_.begin(), bound_.end(), false);
  unbound_ = static_cast<int>(bound_.size()) - 1;
}

bool Statement::is_null(const char* name) const {
  return sqlite3_column_type(stmt_, column(name)) == SQLITE_NULL;
}
int64_t Statement::get_int(const char* name) const {
  return sqlite3_column_int64(stmt_, column(name));
}
double Statement::get_double(const char* name) const {
  return sqlite3_column_double(stmt_, column(name));
}
std::string Statement::get_text(const char* name) const {
  const int col = column(name);
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col))
           : std::string();
}
std::optional<std::string> Statement::get_optional_text(const char* name) const {
  if (is_null(name))
    return std::nullopt;
  return get_text(name);
}
std::optional<double> Statement::get_optional_double(const char* name) const {
  if (is_null(name))
    return std::nullopt;
  return get_double(name);
}

ReadTransaction::ReadTransaction(Database& db) : db_(db) {
  db_.exec("BEGIN");
}

ReadTransaction::~ReadTransaction() {
  try {
    db_.exec("COMMIT");
  } catch (...) { // nothing was written; the snapshot is released either way
  }
}

Transaction::Transaction(Database& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) { // a destructor must not throw; the transaction is gone either way
    }
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

} // namespace apod::sqlite
