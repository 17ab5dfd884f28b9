// A small RAII layer over the SQLite C API (in the manner of SQLiteCpp): one error type that
// carries the result code, every return code through one check(), transactions that roll back
// in their destructor. No SQL lives here; it all lives in store.cpp. Every connection is opened
// as SQLite advises for files from elsewhere (https://sqlite.org/security.html): defensive mode,
// untrusted schema, no triggers or views run, bounded value sizes, heap and time per step.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

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

class Statement {
public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
  Statement& bind(int index, std::nullptr_t);
  Statement& bind(int index, const std::optional<double>& value);
  Statement& bind(int index, const std::optional<std::string>& value);

  /// Steps once: true while a row is available, false when done.
  bool step();
  /// Steps a statement that returns no rows.
  void run() {
    while (step()) {
    }
  }
  void reset();

  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t get_int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double get_double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string get_text(int col) const;
  std::optional<std::string> get_optional_text(int col) const;
  std::optional<double> get_optional_double(int col) const;

private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
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
