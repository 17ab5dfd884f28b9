// Helpers of the reliability tests: start and kill store_writer processes, and check a database
// with SQLite directly (not through the Store under test): integrity, and that every stored
// experiment is whole (store_writer names each "e<k>_m<M>_s<S>": M measurements of S samples).
#pragma once

#include <gtest/gtest.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern char** environ;

namespace reliability {

namespace fs = std::filesystem;

/// The store_writer program; the test's main sets it from its first argument.
inline std::string& writer_program() {
  static std::string path;
  return path;
}

/// The main of a test that drives store_writer: `TEST_BINARY STORE_WRITER [gtest flags]`.
inline int writer_test_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s STORE_WRITER\n", argv[0]);
    return 2;
  }
  writer_program() = argv[1];
  return RUN_ALL_TESTS();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("apod-reliability-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

inline pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    return -1;
  return pid;
}

/// Waits for pid; returns its exit status, or 128 + signal.
inline int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A connection for checking, closed on scope exit.
class CheckDb {
public:
  explicit CheckDb(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
    }
    if (db_)
      sqlite3_busy_timeout(db_, 30000);
  }
  ~CheckDb() { sqlite3_close(db_); }
  bool ok() const { return db_ != nullptr; }
  /// Every row of a query, each column as text ("NULL" for null).
  std::vector<std::vector<std::string>> rows(const std::string& sql,
                                             const std::string& bind1 = "") const {
    std::vector<std::vector<std::string>> out;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot prepare " << sql << ": " << sqlite3_errmsg(db_);
      return out;
    }
    if (!bind1.empty())
      sqlite3_bind_text(st, 1, bind1.c_str(), -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const auto* t = sqlite3_column_text(st, c);
        row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE)
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return out;
  }
  /// Runs statements as another program would: nothing of apod's hardening applies.
  void exec(const std::string& sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
      ADD_FAILURE() << sql << ": " << (err ? err : "?");
    sqlite3_free(err);
  }
  std::string value(const std::string& sql, const std::string& bind1 = "") const {
    const auto r = rows(sql, bind1);
    return r.empty() || r[0].empty() ? "" : r[0][0];
  }

private:
  sqlite3* db_ = nullptr;
};

/// What check_whole_experiments found.
struct Contents {
  int experiments = 0, torn = 0;
  long samples = 0;
};

/// Every experiment in the database has exactly the measurements and samples its name promises.
inline Contents check_whole_experiments(const CheckDb& db) {
  Contents c;
  const auto rows = db.rows(
      "SELECT e.name, e.status, "
      "  (SELECT count(*) FROM measurement m WHERE m.experiment_run_id = e.id), "
      "  (SELECT coalesce(min(n), -1) FROM measurement m WHERE m.experiment_run_id = e.id), "
      "  (SELECT coalesce(max(n), -1) FROM measurement m WHERE m.experiment_run_id = e.id), "
      "  (SELECT count(*) FROM sample s JOIN measurement m ON s.measurement_id = m.id "
      "   WHERE m.experiment_run_id = e.id) "
      "FROM experiment_run e");
  for (const auto& r : rows) {
    int k = 0, m = 0, s = 0;
    ++c.experiments;
    if (std::sscanf(r[0].c_str(), "e%d_m%d_s%d", &k, &m, &s) != 3) {
      ADD_FAILURE() << "unexpected experiment " << r[0];
      ++c.torn;
      continue;
    }
    const bool whole = r[1] == "complete" && std::stoi(r[2]) == m && std::stoi(r[3]) == s &&
                       std::stoi(r[4]) == s && std::stol(r[5]) == long(m) * s;
    if (!whole) {
      ADD_FAILURE() << "torn experiment " << r[0] << ": status " << r[1] << ", " << r[2]
                    << " measurements, n " << r[3] << ".." << r[4] << ", " << r[5] << " samples";
      ++c.torn;
    }
    c.samples += std::stol(r[5]);
  }
  return c;
}

} // namespace reliability
