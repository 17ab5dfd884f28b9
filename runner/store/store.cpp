#include "store/store.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/limits.hpp"
#include "core/results_json.hpp"
#include "core/temp_files.hpp"
#include "store/writer.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

namespace apod {

std::string now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
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

// JSON read back from the file: apod wrote it, but a damaged or hostile file may hold anything
// (nesting that would overflow the stack of a later copy or dump, a million keys): parsed under
// the same bounds as an imported document (limits::stored_json).
json Store::parse_stored(const std::string& text) {
  try {
    return parse_bounded_json(text, "a stored value", limits::stored_json);
  } catch (const InputError& e) {
    throw InputError(fmt::format("the database holds {}; it was changed outside apod", e.what()));
  }
}

void check_database_path(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0)
    throw InputError(fmt::format(
        "--db {} would not name a database file (SQLite reads \"\" and \":memory:\" as a "
        "temporary database and \"file:\" as a URI, and stores nothing where you look); name a "
        "file, e.g. ./{}",
        json(path).dump(), path.empty() ? "apod.db" : path));
  // SQLite creates NAME-journal and NAME-wal beside the database: they must be legal names too.
  const std::size_t name_bytes = std::filesystem::path(path).filename().string().size();
  if (name_bytes > max_database_name_bytes)
    throw InputError(fmt::format("the database name '{}' is {} bytes long; SQLite writes its "
                                 "journal beside it under the same name and \"-journal\", so it "
                                 "may be at most {} bytes",
                                 path, name_bytes, max_database_name_bytes));
  // Only a regular file (links followed) can be a database. SQLite would wait forever to open a
  // FIFO, read /dev/null as an empty database and /dev/zero as garbage. stat() opens nothing, so
  // a FIFO cannot block this check.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
    return;
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a named pipe (FIFO)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                                            : "not a regular file";
  throw InputError(fmt::format("'{}' is {}, not a database file", path, kind));
}

namespace {

namespace fs = std::filesystem;

// A file SQLite cannot open read-only in WAL mode because it may not create the -shm beside it:
// a read-only mount, or a folder this user cannot write.
bool on_read_only_media(const std::string& file) {
  const std::string dir =
      fs::path(file).has_parent_path() ? fs::path(file).parent_path().string() : ".";
  struct statvfs vfs {};
  return (statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) ||
         access(dir.c_str(), W_OK) != 0;
}

// "file:" URI of `file` with ?immutable=1 (https://sqlite.org/uri.html): no locks, no -shm.
std::string immutable_uri(const std::string& file) {
  std::string uri = "file:";
  for (const unsigned char c : file) {
    if (std::isalnum(c) || std::strchr("-._~/", c))
      uri += static_cast<char>(c);
    else
      uri += fmt::format("%{:02X}", c);
  }
  return uri + "?immutable=1";
}

bool recently_changed(const std::string& path) {
  std::error_code ec;
  const auto changed = fs::last_write_time(path, ec);
  return !ec && fs::file_time_type::clock::now() - changed < std::chrono::seconds(30);
}

} // namespace

Store::Store(const std::string& path, Mode mode, const std::string& shown) {
  const std::string name = shown.empty() ? path : shown;
  if (path != ":memory:") {
    check_database_path(path);
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (mode != Mode::read_write_create && !exists)
      throw InputError(
          fmt::format("no database at '{}' (create one with `apod run` or `apod import`)", name));
    if (exists && fs::is_directory(path, ec))
      throw InputError(fmt::format("'{}' is a directory, not a database file", name));
  }
  // A reader that comes while another process creates the file finds it empty for a moment
  // (found by tests/reliability/test_readers.sh): it waits for the schema, up to 5 s.
  const auto deadline = std::chrono::steady_clock::now() + creator_wait;
  for (;;) {
    try {
      open(path, mode, name);
      return;
    } catch (const EmptyDatabase&) {
      if (mode != Mode::read_only || std::chrono::steady_clock::now() > deadline ||
          !recently_changed(path))
        throw;
    }
    db_.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void Store::open(const std::string& path, Mode mode, const std::string& shown) {
  const bool in_memory = path == ":memory:";
  const int flags = mode == Mode::read_only    ? SQLITE_OPEN_READONLY
                    : mode == Mode::read_write ? SQLITE_OPEN_READWRITE
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const bool writing = mode != Mode::read_only;
  try {
    db_ = std::make_unique<sqlite::Database>(path, flags, shown);
    sqlite3_busy_timeout(db_->handle(), 30000); // concurrent writers wait instead of failing
    try {
      check_identity(mode == Mode::read_write_create);
    } catch (const sqlite::Error& e) {
      // A cleanly closed WAL database on read-only media: SQLite cannot create its -shm, so it
      // is read as immutable. With a WAL that holds pages, that would hide them: refused.
      const std::string file = db_->file_name();
      if (writing || (e.code() & 0xff) != SQLITE_CANTOPEN || !on_read_only_media(file))
        throw;
      std::error_code ec;
      if (fs::file_size(file + "-wal", ec) > 0 && !ec)
        throw InputError(fmt::format(
            "'{}' is on read-only media and its write-ahead log ({}-wal) holds changes SQLite "
            "cannot read there; copy both files to a writable folder to read them",
            shown, file));
      db_ = std::make_unique<sqlite::Database>(immutable_uri(file), flags | SQLITE_OPEN_URI, shown);
      check_identity(false);
    }
    if (!in_memory)
      check_intact(writing);
    if (writing) {
      // SQLite opens a file it may not write read-only without a word; say so before any work.
      if (sqlite3_db_readonly(db_->handle(), "main") == 1)
        throw InputError(fmt::format("cannot write to '{}': the file is read-only", shown));
      if (!in_memory)
        enable_wal();
      db_->exec("PRAGMA synchronous=FULL");
      migrate();
    }
    db_->exec("PRAGMA foreign_keys=ON");
    settle_dead_writers(writing);
  } catch (const sqlite::Error& e) {
    try {
      storage_failure(shown, e, writing);
    } catch (const sqlite::Error&) { // whatever else fails while opening, the file is to blame
      throw InputError(fmt::format("cannot use '{}' as an apod database: {}", shown, e.what()));
    }
  } catch (const json::exception& e) {
    storage_failure(shown, e, writing);
  }
}

Store::~Store() = default;

namespace {

// Puts the finished file at `to` unless something is there already (false, errno EEXIST): a
// hard link where the file system has them, else renameat2's RENAME_NOREPLACE.
bool place_new_file(const std::string& from, const std::string& to) {
  if (link(from.c_str(), to.c_str()) == 0)
    return true;
  if (errno == EEXIST)
    return false;
  return renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0;
}

} // namespace

void Store::write_into(const std::string& path, const std::function<void(Store&)>& fill) {
  std::error_code ec;
  if (path == ":memory:" || fs::exists(fs::symlink_status(path, ec))) {
    Store store(path, path == ":memory:" ? Mode::read_write_create : Mode::read_write);
    fill(store);
    return;
  }
  // Named to fit NAME_MAX beside any legal target name, and removed with its -wal, -shm and
  // -journal by a signal that ends apod before the file is placed (temp_files.hpp).
  std::string temp = temp_name_beside(path, ".new-XXXXXX", std::strlen("-journal"));
  TempRegistration registered;
  const int fd = registered.create(temp, true);
  if (fd < 0)
    throw InputError(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0644 & ~mask); // what SQLite gives a file it creates
  close(fd);
  const auto discard = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      unlink((temp + suffix).c_str());
  };
  bool placed = false;
  try {
    {
      Store fresh(temp, Mode::read_write_create, path);
      fill(fresh);
    } // closed: the WAL is checkpointed into the file and removed
    placed = place_new_file(temp, path);
    if (!placed && errno != EEXIST)
      throw InputError(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  } catch (...) {
    discard();
    throw;
  }
  discard();
  registered.release(); // after the files are gone: a signal until then still removes them
  if (placed)
    return;
  Store existing(path, Mode::read_write); // another process created it meanwhile
  fill(existing);
}

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
      if ((e.code() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % 20));
  }
}

std::optional<std::string> Store::setting(const std::string& name) try {
  sqlite::Statement st(*db_, "SELECT value FROM setting WHERE name = :name");
  st.bind(":name", name);
  if (!st.step())
    return std::nullopt;
  return st.get_text("value");
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

void Store::set_setting(const std::string& name, const std::string& value) try {
  sqlite::Statement st(*db_, "INSERT INTO setting(name, value) VALUES (:name, :value) "
                             "ON CONFLICT(name) DO UPDATE SET value = excluded.value");
  st.bind(":name", name).bind(":value", value).run();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::finish_run(const std::string& run_id, const std::string& status) try {
  sqlite::Statement st(
      *db_, "UPDATE run SET status = :status, finished_at = :finished_at WHERE id = :id");
  st.bind(":id", run_id).bind(":status", status).bind(":finished_at", now_iso8601()).run();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

// A run whose device row is missing (a file edited outside apod) is listed with the device name
// and UUID of its own facts, never dropped from the list (issue 10). Host and batch come from
// the environment; an environment that is not JSON (a file edited outside apod) lists as "".
std::vector<RunSummary> Store::list_runs() try {
  sqlite::Statement st(
      *db_,
      "SELECT r.id, r.label, r.started_at, r.finished_at, r.status, "
      "  coalesce(d.name, json_extract(r.device_facts, '$.name'), '') AS device_name, "
      "  coalesce(d.uuid, json_extract(r.device_facts, '$.uuid'), '') AS device_uuid, "
      "  CASE WHEN json_valid(r.environment) THEN "
      "    coalesce(json_extract(r.environment, '$.host'), '') ELSE '' END AS host, "
      "  CASE WHEN json_valid(r.environment) THEN "
      "    coalesce(json_extract(r.environment, '$.repeat.batch'), '') ELSE '' END AS batch, "
      "  (SELECT count(*) FROM measurement m JOIN experiment_run e ON m.experiment_run_id = e.id "
      "   WHERE e.run_id = r.id) AS measurements "
      "FROM run r LEFT JOIN device d ON r.device_id = d.id ORDER BY r.started_at, r.id");
  std::vector<RunSummary> runs;
  while (st.step()) {
    RunSummary r{st.get_text("id"),          st.get_text("label"),
                 st.get_text("started_at"),  status_shown(st.get_text("id"), st.get_text("status")),
                 st.get_text("device_name"), st.get_optional_text("finished_at"),
                 st.get_int("measurements")};
    r.device_uuid = st.get_text("device_uuid");
    r.host = st.get_text("host");
    r.batch = st.get_text("batch");
    runs.push_back(std::move(r));
  }
  return runs;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

std::vector<std::string> Store::run_ids() try {
  sqlite::Statement st(*db_, "SELECT id FROM run ORDER BY started_at, id");
  std::vector<std::string> ids;
  while (st.step())
    ids.push_back(st.get_text("id"));
  return ids;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

std::string Store::resolve_run_id(const std::string& prefix) try {
  if (prefix.empty())
    throw InputError(fmt::format("an empty run id names no run in '{}'", db_->path()));
  // Every run can be named: its full id is it, even where it is also the prefix of another's.
  constexpr int shown = 8;
  sqlite::Statement st(*db_, "SELECT id FROM run WHERE substr(id, 1, length(:prefix)) = :prefix "
                             "ORDER BY id = :prefix DESC, id LIMIT :limit");
  st.bind(":prefix", prefix).bind(":limit", shown + 1);
  std::vector<std::string> found;
  while (st.step())
    found.push_back(st.get_text("id"));
  if (found.empty())
    throw InputError(fmt::format("no run '{}' in '{}'", prefix, db_->path()));
  if (found.size() == 1 || found.front() == prefix)
    return found.front();
  std::string list;
  for (size_t i = 0; i < found.size() && i < shown; ++i)
    list += (i ? ", " : "") + found[i];
  throw InputError(
      fmt::format("run id prefix '{}' is ambiguous in '{}': it begins the ids {}{}; give more "
                  "digits",
                  prefix, db_->path(), list, found.size() > shown ? ", ..." : ""));
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

} // namespace apod
