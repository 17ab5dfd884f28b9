// The store's recovery side: resource faults turned into clear messages, damaged files refused,
// runs of dead writers marked interrupted, and interrupted runs claimed for `apod run --resume`.
// (The rest of the store's SQL is in store.cpp.)
#include "core/errors.hpp"
#include "core/limits.hpp"
#include "store/store.hpp"
#include "store/writer.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace apod {

// Resource faults and damaged files are the user's to fix, not apod's bugs: they become
// InputError (exit 2) saying what happened. A failed write's transaction rolled back, so the file
// holds what it held before. Anything else (a constraint, a misuse) is a bug and passes through.
void Store::storage_failure(const std::string& path, const std::exception& e, bool writing) {
  std::string reason;
  if (dynamic_cast<const json::exception*>(&e)) {
    reason = "a stored record is not valid JSON (the file was changed outside apod)";
  } else if (const auto* sql = dynamic_cast<const sqlite::Error*>(&e)) {
    switch (sql->code() & 0xff) {
    case SQLITE_FULL:
      reason = "the disk is full or a file-size limit was reached";
      break;
    case SQLITE_IOERR:
      reason = "an I/O error (a full disk, a file-size limit or a failing device)";
      break;
    case SQLITE_READONLY:
      reason = fmt::format(
          "the file or its folder is read-only (SQLite also writes {0}-wal and {0}-shm)", path);
      break;
    case SQLITE_CANTOPEN:
      reason = "it cannot be opened or created (is its folder missing or read-only?)";
      break;
    case SQLITE_PERM:
      reason = "permission denied";
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      reason = "the file is damaged (truncated or overwritten)";
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      reason = "another process kept it locked for longer than 30 s";
      break;
    case SQLITE_TOOBIG:
      reason = "a value is larger than SQLite can store";
      break;
    case SQLITE_NOMEM:
      reason = "reading it needs more memory than apod allows SQLite (core/limits.hpp)";
      break;
    case SQLITE_INTERRUPT:
      reason = fmt::format("one step of reading it took longer than {} s (a file built to stall "
                           "its reader?)",
                           limits::max_statement_step_ms / 1000);
      break;
    default:
      if (writing)
        throw *sql; // apod's own SQL failed a write: a bug, not the user's to fix
      reason = "its contents are not what apod wrote (was it changed by another program?)";
    }
  } else {
    throw InputError(fmt::format("cannot use '{}' as an apod database: {}", path, e.what()));
  }
  throw InputError(fmt::format(
      "cannot {} '{}': {} [{}]{}", writing ? "write to" : "read", path, reason, e.what(),
      writing ? "; the change was rolled back, the database holds what it held before" : ""));
}

// A damaged file (truncated, overwritten) is refused rather than read as if whole or written
// into, which could spread the damage over what still reads. A file whose size is not a whole
// number of pages, or short of the pages its header counts while no WAL holds the rest, was cut
// short; before a write, PRAGMA quick_check also walks every page.
void Store::check_intact(bool before_writing) {
  const std::string& path = db_->path();
  // Sizes are SQLite's own file's, symbolic links resolved: its WAL lies beside the target, not
  // beside the link (a linked database with a live WAL read as cut short: issue 10).
  const std::string file = db_->file_name();
  const auto damaged = [&](const std::string& why) {
    return InputError(
        fmt::format("'{}' is damaged ({}); refusing to {} it. Export what still reads with "
                    "`apod export` and import it into a new database",
                    path, why, before_writing ? "write to" : "read"));
  };
  // Sizes are read inside a read transaction: no other process can then remove the WAL (and
  // with it the pages this snapshot counts) between the header's count and the file's size.
  sqlite::ReadTransaction snapshot(*db_);
  sqlite::Statement size(*db_,
                         "SELECT page_size, page_count FROM pragma_page_size, pragma_page_count");
  size.step();
  const int64_t page = size.get_int("page_size"), pages = size.get_int("page_count");
  std::error_code ec;
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(file, ec));
  if (!ec && bytes > 0) {
    const auto wal_bytes = std::filesystem::file_size(file + "-wal", ec);
    const bool wal_empty = ec || wal_bytes == 0;
    if (page > 0 && bytes % page != 0)
      throw damaged(fmt::format(
          "{} bytes is not a whole number of {}-byte pages: the file was cut short", bytes, page));
    if (page > 0 && wal_empty && bytes < pages * page)
      throw damaged(fmt::format(
          "{} bytes, but its header counts {} pages of {} bytes: the file was cut short", bytes,
          pages, page));
  }
  size.reset();
  if (!before_writing)
    return;
  db_->set_step_limit_ms(10 * 60 * 1000); // walks every page: minutes for a large history
  sqlite::Statement check(*db_, "PRAGMA quick_check(1)");
  const std::string verdict = check.step() ? check.get_text("quick_check") : "no answer";
  db_->set_step_limit_ms(limits::max_statement_step_ms);
  if (verdict != "ok")
    throw damaged(verdict);
}

// Runs still 'running' whose writer process is gone (killed, crashed, power cut) become
// 'interrupted', which `apod run --resume` completes. Opened read-only, they are only shown so.
void Store::settle_dead_writers(bool may_write) {
  const auto find_dead = [&] {
    std::vector<std::string> dead;
    sqlite::Statement st(*db_, "SELECT id, environment FROM run WHERE status = 'running'");
    while (st.step()) {
      std::optional<Writer> writer;
      try {
        writer = environment_from_json(parse_stored(st.get_text("environment"))).writer;
      } catch (const InputError&) { // a run whose writer apod cannot read is never judged
        continue;
      }
      if (writer && writer_state(*writer) == WriterState::gone)
        dead.push_back(st.get_text("id"));
    }
    return dead;
  };
  const std::vector<std::string> dead = find_dead();
  if (dead.empty())
    return;
  if (!may_write) {
    dead_writer_runs_.insert(dead.begin(), dead.end());
    return;
  }
  sqlite::Transaction tx(*db_); // look again under the write lock: a resumer may have claimed one
  sqlite::Statement mark(
      *db_, "UPDATE run SET status = 'interrupted' WHERE id = :id AND status = 'running'");
  for (const auto& id : find_dead()) {
    mark.reset();
    mark.bind(":id", id).run();
  }
  tx.commit();
}

std::string Store::status_shown(const std::string& run_id, const std::string& stored) const {
  return stored == "running" && dead_writer_runs_.count(run_id) ? "interrupted" : stored;
}

ResumableRun Store::claim_run(const std::string& run_id) try {
  sqlite::Transaction tx(*db_);
  sqlite::Statement run(*db_, "SELECT status, device_facts, environment FROM run WHERE id = :id");
  run.bind(":id", run_id);
  if (!run.step())
    throw InputError(fmt::format("no run '{}' in '{}'", run_id, db_->path()));
  const std::string status = run.get_text("status");
  const json environment = parse_stored(run.get_text("environment"));
  ResumableRun r{run_id,
                 device_from_json(parse_stored(run.get_text("device_facts")), "run " + run_id),
                 environment_from_json(environment.is_object() ? environment : json::object()),
                 {}};
  const std::optional<Writer> writer = r.environment.writer;
  const Writer me = current_writer();
  const bool mine = writer && to_json(*writer) == to_json(me);
  if (status == "running" && !mine) {
    const std::string who =
        writer ? fmt::format("pid {} on {}", writer->pid, writer->host.empty() ? "?" : writer->host)
               : std::string("a process apod cannot identify");
    if (!writer || writer_state(*writer) != WriterState::gone)
      throw InputError(
          fmt::format("run {} is still being written ({}): resume it once that process has ended",
                      run_id, who));
  } else if (status != "running" && status != "interrupted") {
    throw InputError(fmt::format("run {} has finished ({}); only an interrupted run can be resumed",
                                 run_id, status));
  }
  if (!mine) {
    r.environment.resumed.push_back({now_iso8601(), writer, std::nullopt});
    r.environment.writer = me;
  }
  sqlite::Statement claim(
      *db_, "UPDATE run SET status = 'running', finished_at = NULL, environment = :environment "
            "WHERE id = :id");
  claim.bind(":id", run_id).bind(":environment", to_json(r.environment).dump()).run();
  sqlite::Statement stored(*db_,
                           "SELECT name FROM experiment_run WHERE run_id = :run_id ORDER BY id");
  stored.bind(":run_id", run_id);
  while (stored.step())
    r.stored.push_back(stored.get_text("name"));
  tx.commit();
  return r;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
} catch (const json::exception& e) {
  storage_failure(db_->path(), e, true);
}

void Store::mark_interrupted(const std::string& run_id) try {
  sqlite::Statement st(
      *db_, "UPDATE run SET status = 'interrupted' WHERE id = :id AND status = 'running'");
  st.bind(":id", run_id).run();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

bool Store::run_has_failures(const std::string& run_id) try {
  sqlite::Statement st(
      *db_,
      "SELECT EXISTS (SELECT 1 FROM experiment_run WHERE run_id = :run_id AND status = 'failed') "
      "    OR EXISTS (SELECT 1 FROM measurement m JOIN experiment_run e "
      "               ON m.experiment_run_id = e.id "
      "               WHERE e.run_id = :run_id AND m.status = 'failed') AS failed");
  st.bind(":run_id", run_id);
  return st.step() && st.get_int("failed") != 0;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

} // namespace apod
