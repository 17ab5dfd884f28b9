#include "store/store.hpp"

#include "core/errors.hpp"
#include "core/results_json.hpp"
#include "store/writer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

namespace apod {

std::string now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms));
}

std::string new_run_id() {
  std::random_device rd;
  std::uniform_int_distribution<uint64_t> dist;
  std::mt19937_64 a((uint64_t(rd()) << 32) ^ rd()), b((uint64_t(rd()) << 32) ^ rd());
  return fmt::format("{:016x}{:016x}", dist(a), dist(b));
}

// JSON read back from the file: apod wrote it, but a damaged or hostile file may hold anything,
// and nesting deeper than any document apod writes would overflow the stack of a later copy or dump.
json Store::parse_stored(const std::string& text) {
  return json::parse(text, [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth + 1 > max_results_depth)
      throw InputError("the database holds a JSON value nested deeper than apod writes; it was changed outside apod");
    return true;
  });
}

Store::Store(const std::string& path, Mode mode) {
  const bool in_memory = path == ":memory:";
  if (!in_memory) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (mode != Mode::read_write_create && !exists)
      throw InputError(fmt::format("no database at '{}' (create one with `apod run` or `apod import`)", path));
    if (exists && std::filesystem::is_directory(path, ec))
      throw InputError(fmt::format("'{}' is a directory, not a database file", path));
  }
  const int flags = mode == Mode::read_only    ? SQLITE_OPEN_READONLY
                    : mode == Mode::read_write ? SQLITE_OPEN_READWRITE
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const bool writing = mode != Mode::read_only;
  try {
    db_ = std::make_unique<sqlite::Database>(path, flags);
    sqlite3_busy_timeout(db_->handle(), 30000);  // concurrent writers wait instead of failing
    check_identity(mode == Mode::read_write_create);
    if (!in_memory) check_intact(writing);
    if (writing) {
      // SQLite opens a file it may not write read-only without a word; say so before any work.
      if (sqlite3_db_readonly(db_->handle(), "main") == 1)
        throw InputError(fmt::format("cannot write to '{}': the file is read-only", path));
      if (!in_memory) enable_wal();
      db_->exec("PRAGMA synchronous=FULL");
      migrate();
    }
    db_->exec("PRAGMA foreign_keys=ON");
    settle_dead_writers(writing);
  } catch (const sqlite::Error& e) {
    try {
      storage_failure(path, e, writing);
    } catch (const sqlite::Error&) {  // whatever else fails while opening, the file is to blame
      throw InputError(fmt::format("cannot use '{}' as an apod database: {}", path, e.what()));
    }
  } catch (const json::exception& e) {
    storage_failure(path, e, writing);
  }
}

Store::~Store() = default;

// Switching a file to WAL needs it to itself: while another process is creating the same new
// file, SQLite answers SQLITE_BUSY at once, without waiting in the busy handler (found by
// tests/reliability, eight processes released together). WAL is then recorded in the file, so
// the first process to switch settles it for all; the others retry for up to the busy timeout.
void Store::enable_wal() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::minstd_rand jitter(std::random_device{}());
  for (;;) {
    try {
      db_->exec("PRAGMA journal_mode=WAL");
      return;
    } catch (const sqlite::Error& e) {
      if ((e.code() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % 20));
  }
}

std::optional<std::string> Store::setting(const std::string& name) try {
  sqlite::Statement st(*db_, "SELECT value FROM setting WHERE name = ?1");
  st.bind(1, name);
  if (!st.step()) return std::nullopt;
  return st.get_text(0);
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

void Store::set_setting(const std::string& name, const std::string& value) try {
  sqlite::Statement st(*db_, "INSERT INTO setting(name, value) VALUES (?1, ?2) "
                             "ON CONFLICT(name) DO UPDATE SET value = excluded.value");
  st.bind(1, name).bind(2, value).run();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::finish_run(const std::string& run_id, const std::string& status) try {
  sqlite::Statement st(*db_, "UPDATE run SET status = ?2, finished_at = ?3 WHERE id = ?1");
  st.bind(1, run_id).bind(2, status).bind(3, now_iso8601()).run();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

std::vector<RunSummary> Store::list_runs() try {
  sqlite::Statement st(*db_,
      "SELECT r.id, r.label, r.started_at, r.finished_at, r.status, d.name, "
      "  (SELECT count(*) FROM measurement m JOIN experiment_run e ON m.experiment_run_id = e.id "
      "   WHERE e.run_id = r.id) "
      "FROM run r JOIN device d ON r.device_id = d.id ORDER BY r.started_at, r.id");
  std::vector<RunSummary> runs;
  while (st.step())
    runs.push_back({st.get_text(0), st.get_text(1), st.get_text(2), status_shown(st.get_text(0), st.get_text(4)),
                    st.get_text(5), st.get_optional_text(3), st.get_int(6)});
  return runs;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

std::string Store::resolve_run_id(const std::string& prefix) try {
  sqlite::Statement st(*db_, "SELECT id FROM run WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2");
  st.bind(1, prefix);
  std::vector<std::string> found;
  while (st.step()) found.push_back(st.get_text(0));
  if (found.empty()) throw InputError(fmt::format("no run '{}' in '{}'", prefix, db_->path()));
  if (found.size() > 1) throw InputError(fmt::format("run id prefix '{}' is ambiguous; give more digits", prefix));
  return found.front();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

}  // namespace apod
