// A small RAII layer over the SQLite C API (in the manner of SQLiteCpp): one error type that
// carries the result code, every return code through one check(), transactions that roll back
// in their destructor, statements bound and read by name. No SQL lives here; it all lives in
// runner/store's other files. Every connection is opened as SQLite advises for files from
// elsewhere (https://sqlite.org/security.html): defensive mode, untrusted schema, no triggers or
// views run, bounded value sizes, heap and time per step.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace apod::sqlite {

class Error : public std::runtime_error {
public:
  Error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

private:
  int code_;
};

class Database {
public:
  /// Opens `path` with sqlite3_open_v2 flags (SQLITE_OPEN_*), hardened as above. `shown` names
  /// the file in messages when `path` is a URI (default: `path`). Throws Error on failure.
  Database(const std::string& path, int flags, const std::string& shown = "");
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  /// Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  /// Throws Error with the connection's message unless rc is SQLITE_OK, SQLITE_ROW or SQLITE_DONE.
  void check(int rc, const std::string& context) const;
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  /// The file SQLite opened, symbolic links resolved ("" for an in-memory database): its WAL is
  /// this name with "-wal" appended.
  std::string file_name() const;

  /// Each statement step (and exec) is interrupted (SQLITE_INTERRUPT) when it runs longer than
  /// this; 0: no bound. Default limits::max_statement_step_ms.
  void set_step_limit_ms(int ms) { step_limit_ms_ = ms; }
  /// Starts the clock of one step (Statement::step and exec call it).
  void arm_step_clock();

private:
  static int on_progress(void* self);
  sqlite3* db_ = nullptr;
  std::string path_;
  int step_limit_ms_;
  std::chrono::steady_clock::time_point step_deadline_;
};

/// A prepared statement, bound and read by name as SQLiteCpp does: parameters are written
/// `:name` in the SQL and bound with bind(":name", value); a row's columns are read by the name
/// the SQL gives them (give an expression one with AS). A name the statement lacks, or a step
/// with a parameter left unbound, is a bug in apod's SQL: std::logic_error naming it.
class Statement {
public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(const char* name, int64_t value);
  Statement& bind(const char* name, int value) { return bind(name, static_cast<int64_t>(value)); }
  Statement& bind(const char* name, double value);
  Statement& bind(const char* name, const std::string& value);
  Statement& bind(const char* name, const char* value) { return bind(name, std::string(value)); }
  Statement& bind(const char* name, std::nullptr_t);
  Statement& bind(const char* name, const std::optional<double>& value);
  Statement& bind(const char* name, const std::optional<std::string>& value);

  /// Steps once: true while a row is available, false when done.
  bool step();
  /// Steps a statement that returns no rows.
  void run() {
    while (step()) {
    }
  }
  /// Ready to step again, with every parameter unbound.
  void reset();

  bool is_null(const char* column) const;
  int64_t get_int(const char* column) const;
  double get_double(const char* column) const;
  std::string get_text(const char* column) const;
  std::optional<std::string> get_optional_text(const char* column) const;
  std::optional<double> get_optional_double(const char* column) const;

private:
  /// The index of parameter `name` (marked bound), or logic_error.
  int parameter(const char* name);
  /// The index of result column `name`, or logic_error.
  int column(const char* name) const;
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  std::map<std::string, int, std::less<>> columns_; ///< name -> index; -1 where two share it
  std::vector<bool> bound_;                         ///< by parameter index
  int unbound_ = 0;
};

/// A read transaction (BEGIN, ended in the destructor): every statement run while it lives sees
/// one snapshot of the file, even while other processes commit.
class ReadTransaction {
public:
  explicit ReadTransaction(Database& db);
  ~ReadTransaction();
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

private:
  Database& db_;
};

/// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit() ran.
class Transaction {
public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

private:
  Database& db_;
  bool done_ = false;
};

} // namespace apod::sqlite
