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

namespace {

// Migrations in order: migrations[v] takes a database from user_version v to v + 1.
// Never edit a released entry; append a new one.
const char* const migrations[] = {
    R"sql(
CREATE TABLE device (
  id    INTEGER PRIMARY KEY,
  uuid  TEXT NOT NULL UNIQUE,
  name  TEXT NOT NULL
);
CREATE TABLE run (
  id            TEXT PRIMARY KEY,
  label         TEXT NOT NULL DEFAULT '',
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  status        TEXT NOT NULL CHECK (status IN ('running','complete','partial','failed','interrupted')),
  apod_version  TEXT NOT NULL,
  device_id     INTEGER NOT NULL REFERENCES device(id),
  device_facts  TEXT NOT NULL,            -- JSON: the device as it was during this run
  environment   TEXT NOT NULL DEFAULT '{}' -- JSON: provenance
);
CREATE TABLE experiment_run (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  version     INTEGER NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('complete','failed')),
  error       TEXT,
  started_at  TEXT NOT NULL,
  wall_s      REAL,
  UNIQUE (run_id, name)
);
CREATE TABLE measurement (
  id                 INTEGER PRIMARY KEY,
  experiment_run_id  INTEGER NOT NULL REFERENCES experiment_run(id) ON DELETE CASCADE,
  params     TEXT NOT NULL,               -- JSON object: the point's axes
  metric     TEXT NOT NULL,
  unit       TEXT NOT NULL,
  direction  TEXT NOT NULL CHECK (direction IN ('higher','lower')),
  median REAL, min REAL, max REAL, mean REAL, stddev REAL,
  n          INTEGER NOT NULL,
  verified   INTEGER NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('ok','failed')),
  error      TEXT,
  extra      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX measurement_by_experiment ON measurement(experiment_run_id);
CREATE TABLE sample (
  measurement_id  INTEGER NOT NULL REFERENCES measurement(id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  value           REAL NOT NULL,
  PRIMARY KEY (measurement_id, seq)
) WITHOUT ROWID;
)sql",
    // 2: statistics beyond median/min/max, sampling outcome, comparability keys, excluded
    // samples, and telemetry sampled during the run.
    R"sql(
ALTER TABLE measurement ADD COLUMN rsd REAL;
ALTER TABLE measurement ADD COLUMN q1 REAL;
ALTER TABLE measurement ADD COLUMN q3 REAL;
ALTER TABLE measurement ADD COLUMN iqr REAL;
ALTER TABLE measurement ADD COLUMN ci_low REAL;
ALTER TABLE measurement ADD COLUMN ci_high REAL;
ALTER TABLE measurement ADD COLUMN stop_reason TEXT NOT NULL DEFAULT 'fixed';
ALTER TABLE measurement ADD COLUMN noisy INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurement ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurement ADD COLUMN comparability_key TEXT;
CREATE INDEX measurement_by_key ON measurement(comparability_key);
ALTER TABLE sample ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
CREATE TABLE telemetry (
  run_id  TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  reading TEXT NOT NULL,   -- JSON: t_s, clocks, temperature, power, throttle reasons
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE setting (   -- small named values, e.g. the pinned baseline run
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
)sql",
};
constexpr int migration_count = sizeof(migrations) / sizeof(migrations[0]);
static_assert(migration_count == Store::schema_version);

int64_t pragma_int(sqlite::Database& db, const char* pragma) {
  sqlite::Statement st(db, std::string("PRAGMA ") + pragma);
  return st.step() ? st.get_int(0) : 0;
}

std::optional<std::string> optional_text(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

json text_or_null(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json number_or_null(const std::optional<double>& d) { return d ? json(*d) : json(nullptr); }

// Text read back is apod's, but a label given on a command line or a file changed by another
// program may hold bytes that are not UTF-8, which JSON cannot carry: such bytes become U+FFFD,
// so that an export never fails on them. (Depth is bounded by parse_stored.)
void replace_invalid_utf8(json& j) {
  if (j.is_string()) {
    try {
      (void)j.dump();
    } catch (const json::type_error&) {
      j = json::parse(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }
  } else if (j.is_structured()) {
    for (auto& child : j) replace_invalid_utf8(child);
  }
}

}  // namespace

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

void Store::check_identity(bool may_initialise) {
  // One snapshot for all three reads: another process may be creating the schema right now,
  // and tables from after its commit with an application_id from before it look foreign.
  sqlite::ReadTransaction snapshot(*db_);
  int64_t app_id = 0;
  try {
    app_id = pragma_int(*db_, "application_id");
  } catch (const sqlite::Error& e) {
    if ((e.code() & 0xff) == SQLITE_NOTADB)
      throw InputError(fmt::format("'{}' is not a SQLite database (is it truncated or another kind of file?)", db_->path()));
    throw;
  }
  const int64_t version = pragma_int(*db_, "user_version");
  sqlite::Statement tables(*db_, "SELECT count(*) FROM sqlite_master");
  tables.step();
  const int64_t table_count = tables.get_int(0);
  if (app_id == application_id) {
    if (version > schema_version)
      throw InputError(fmt::format(
          "'{}' has schema version {}, newer than this apod understands ({}); upgrade apod to read it",
          db_->path(), version, schema_version));
    return;
  }
  if (app_id == 0 && table_count == 0) {
    if (!may_initialise) throw InputError(fmt::format("'{}' is empty, not an apod database", db_->path()));
    return;
  }
  throw InputError(fmt::format(
      "'{}' is not an apod database (application_id {:#x}, {} schema objects); refusing to change it",
      db_->path(), app_id, table_count));
}

void Store::migrate() {
  int64_t version = pragma_int(*db_, "user_version");
  if (version == schema_version && pragma_int(*db_, "application_id") == application_id) return;
  sqlite::Transaction tx(*db_);
  version = pragma_int(*db_, "user_version");  // again under the lock: another process may have migrated
  for (; version < schema_version; ++version) {
    db_->exec(migrations[version]);
    db_->exec(fmt::format("PRAGMA user_version = {}", version + 1));
  }
  db_->exec(fmt::format("PRAGMA application_id = {}", application_id));
  tx.commit();
}

int64_t Store::device_id(const std::string& uuid, const std::string& name) {
  sqlite::Statement ins(*db_, "INSERT INTO device(uuid, name) VALUES (?1, ?2) ON CONFLICT(uuid) DO UPDATE SET name = excluded.name");
  ins.bind(1, uuid).bind(2, name).run();
  sqlite::Statement sel(*db_, "SELECT id FROM device WHERE uuid = ?1");
  sel.bind(1, uuid);
  sel.step();
  return sel.get_int(0);
}

std::string Store::begin_run(const std::string& label, const DeviceInfo& device, const json& environment) try {
  const std::string id = new_run_id();
  json env = environment;
  env["writer"] = current_writer();
  sqlite::Transaction tx(*db_);
  const int64_t dev = device_id(device.uuid, device.name);
  sqlite::Statement st(*db_,
      "INSERT INTO run(id, label, started_at, status, apod_version, device_id, device_facts, environment) "
      "VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7)");
  st.bind(1, id).bind(2, label).bind(3, now_iso8601()).bind(4, std::string(APOD_VERSION))
      .bind(5, dev).bind(6, to_json(device).dump()).bind(7, env.dump());
  st.run();
  tx.commit();
  return id;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}



void Store::save_experiment(const std::string& run_id, const ExperimentRecord& r) try {
  sqlite::Transaction tx(*db_);
  sqlite::Statement exp(*db_,
      "INSERT INTO experiment_run(run_id, name, version, status, error, started_at, wall_s) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  exp.bind(1, run_id).bind(2, r.name).bind(3, r.version).bind(4, r.status)
      .bind(5, optional_text(r.error)).bind(6, r.started_at).bind(7, r.wall_s);
  exp.run();
  const int64_t exp_id = db_->last_insert_rowid();

  for (const Measurement& m : r.measurements) insert_measurement(exp_id, m);
  tx.commit();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::insert_measurement(int64_t experiment_run_id, const Measurement& m) {
  const std::vector<double> used = m.used_samples();
  const Summary s = summarize(used);
  std::string error = m.error;
  if (error.empty() && !m.verified) error = "output did not match the host reference";
  if (error.empty() && m.samples.empty()) error = "no samples were taken";
  if (error.empty() && used.empty()) error = "every sample was taken under throttled clocks";
  const auto stat = [&](double v) { return s.n ? std::optional<double>(v) : std::nullopt; };
  sqlite::Statement meas(*db_,
      "INSERT INTO measurement(experiment_run_id, params, metric, unit, direction, median, min, max, "
      "mean, stddev, n, verified, status, error, extra, rsd, q1, q3, iqr, ci_low, ci_high, "
      "stop_reason, noisy, dropped, comparability_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
      "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)");
  meas.bind(1, experiment_run_id).bind(2, m.params.dump()).bind(3, m.metric).bind(4, m.unit)
      .bind(5, to_string(m.direction)).bind(6, stat(s.median)).bind(7, stat(s.min))
      .bind(8, stat(s.max)).bind(9, stat(s.mean)).bind(10, stat(s.stddev))
      .bind(11, static_cast<int64_t>(m.samples.size())).bind(12, m.verified ? 1 : 0)
      .bind(13, error.empty() ? "ok" : "failed").bind(14, optional_text(error))
      .bind(15, m.extra.dump()).bind(16, stat(s.rsd)).bind(17, stat(s.q1)).bind(18, stat(s.q3))
      .bind(19, stat(s.iqr)).bind(20, stat(s.ci_low)).bind(21, stat(s.ci_high))
      .bind(22, m.stop_reason).bind(23, m.noisy ? 1 : 0)
      .bind(24, static_cast<int64_t>(m.samples.size() - used.size()))
      .bind(25, optional_text(m.comparability_key));
  meas.run();
  const int64_t meas_id = db_->last_insert_rowid();
  sqlite::Statement sample(*db_, "INSERT INTO sample(measurement_id, seq, value, excluded) VALUES (?1, ?2, ?3, ?4)");
  for (size_t i = 0; i < m.samples.size(); ++i) {
    sample.reset();
    sample.bind(1, meas_id).bind(2, static_cast<int64_t>(i)).bind(3, m.samples[i])
        .bind(4, i < m.excluded.size() ? int64_t(m.excluded[i]) : int64_t(0)).run();
  }
}

void Store::save_telemetry(const std::string& run_id, const json& readings) try {
  sqlite::Transaction tx(*db_);
  sqlite::Statement next(*db_, "SELECT coalesce(max(seq) + 1, 0) FROM telemetry WHERE run_id = ?1");
  next.bind(1, run_id);
  int64_t seq = next.step() ? next.get_int(0) : 0;
  sqlite::Statement st(*db_, "INSERT INTO telemetry(run_id, seq, reading) VALUES (?1, ?2, ?3)");
  for (const json& r : readings) {
    st.reset();
    st.bind(1, run_id).bind(2, seq++).bind(3, r.dump()).run();
  }
  tx.commit();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
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

json Store::export_results(const std::vector<std::string>& run_ids) try {
  std::vector<std::string> ids;
  if (run_ids.empty()) {
    for (const auto& r : list_runs()) ids.push_back(r.id);
  } else {
    for (const auto& id : run_ids) ids.push_back(resolve_run_id(id));
  }
  json doc = {{"format", "apod-results"}, {"schema_version", results_schema_version},
              {"generator", std::string("apod ") + APOD_VERSION}, {"runs", json::array()}};
  for (const auto& id : ids) doc["runs"].push_back(run_to_json(id));
  return doc;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
} catch (const json::exception& e) {
  storage_failure(db_->path(), e, false);
}

json Store::run_to_json(const std::string& run_id) {
  sqlite::Statement run(*db_,
      "SELECT id, label, started_at, finished_at, status, apod_version, device_facts, environment "
      "FROM run WHERE id = ?1");
  run.bind(1, run_id);
  if (!run.step()) throw InputError("no run " + run_id);
  json r = {{"id", run.get_text(0)},
            {"label", run.get_text(1)},
            {"started_at", run.get_text(2)},
            {"finished_at", text_or_null(run.get_optional_text(3))},
            {"status", status_shown(run.get_text(0), run.get_text(4))},
            {"apod_version", run.get_text(5)},
            {"environment", parse_stored(run.get_text(7))},
            {"device", parse_stored(run.get_text(6))},
            {"experiments", json::array()},
            {"measurements", json::array()}};

  sqlite::Statement exps(*db_,
      "SELECT id, name, version, status, error, started_at, wall_s FROM experiment_run "
      "WHERE run_id = ?1 ORDER BY id");
  exps.bind(1, run_id);
  sqlite::Statement meas(*db_,
      "SELECT id, params, metric, unit, direction, median, min, max, n, verified, status, error, extra, "
      "mean, stddev, rsd, q1, q3, iqr, ci_low, ci_high, stop_reason, noisy, dropped, comparability_key "
      "FROM measurement WHERE experiment_run_id = ?1 ORDER BY id");
  sqlite::Statement samples(*db_, "SELECT value, excluded FROM sample WHERE measurement_id = ?1 ORDER BY seq");
  while (exps.step()) {
    const std::string name = exps.get_text(1);
    r["experiments"].push_back({{"name", name},
                                {"version", exps.get_int(2)},
                                {"status", exps.get_text(3)},
                                {"error", text_or_null(exps.get_optional_text(4))},
                                {"started_at", exps.get_text(5)},
                                {"wall_s", number_or_null(exps.get_optional_double(6))}});
    meas.reset();
    meas.bind(1, exps.get_int(0));
    while (meas.step()) {
      json values = json::array(), excluded = json::array();
      samples.reset();
      samples.bind(1, meas.get_int(0));
      while (samples.step()) {
        values.push_back(samples.get_double(0));
        excluded.push_back(samples.get_int(1));
      }
      r["measurements"].push_back({{"experiment", name},
                                   {"params", parse_stored(meas.get_text(1))},
                                   {"metric", meas.get_text(2)},
                                   {"unit", meas.get_text(3)},
                                   {"direction", meas.get_text(4)},
                                   {"median", number_or_null(meas.get_optional_double(5))},
                                   {"min", number_or_null(meas.get_optional_double(6))},
                                   {"max", number_or_null(meas.get_optional_double(7))},
                                   {"mean", number_or_null(meas.get_optional_double(13))},
                                   {"stddev", number_or_null(meas.get_optional_double(14))},
                                   {"rsd", number_or_null(meas.get_optional_double(15))},
                                   {"q1", number_or_null(meas.get_optional_double(16))},
                                   {"q3", number_or_null(meas.get_optional_double(17))},
                                   {"iqr", number_or_null(meas.get_optional_double(18))},
                                   {"ci_low", number_or_null(meas.get_optional_double(19))},
                                   {"ci_high", number_or_null(meas.get_optional_double(20))},
                                   {"n", meas.get_int(8)},
                                   {"samples", std::move(values)},
                                   {"sample_excluded", std::move(excluded)},
                                   {"dropped", meas.get_int(23)},
                                   {"stop_reason", meas.get_text(21)},
                                   {"noisy", meas.get_int(22) != 0},
                                   {"comparability_key", text_or_null(meas.get_optional_text(24))},
                                   {"verified", meas.get_int(9) != 0},
                                   {"status", meas.get_text(10)},
                                   {"error", text_or_null(meas.get_optional_text(11))},
                                   {"extra", parse_stored(meas.get_text(12))}});
    }
  }
  sqlite::Statement tel(*db_, "SELECT reading FROM telemetry WHERE run_id = ?1 ORDER BY seq");
  tel.bind(1, run_id);
  json telemetry = json::array();
  while (tel.step()) telemetry.push_back(parse_stored(tel.get_text(0)));
  r["telemetry"] = std::move(telemetry);
  replace_invalid_utf8(r);
  return r;
}


bool Store::import_run(const json& r) try {
  const std::string id = r.at("id").get<std::string>();
  sqlite::Transaction tx(*db_);
  {
    sqlite::Statement exists(*db_, "SELECT 1 FROM run WHERE id = ?1");
    exists.bind(1, id);
    if (exists.step()) return false;  // idempotent: the transaction rolls back, nothing changes
  }
  const json& device = r.at("device");
  const int64_t dev = device_id(device.value("uuid", ""), device.at("name").get<std::string>());
  const auto opt_text = [](const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? std::optional<std::string>(j[key].get<std::string>())
                                                 : std::nullopt;
  };
  const auto opt_number = [](const json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? std::optional<double>(j[key].get<double>()) : std::nullopt;
  };
  sqlite::Statement run(*db_,
      "INSERT INTO run(id, label, started_at, finished_at, status, apod_version, device_id, "
      "device_facts, environment) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  run.bind(1, id).bind(2, r.value("label", "")).bind(3, r.at("started_at").get<std::string>())
      .bind(4, opt_text(r, "finished_at")).bind(5, r.at("status").get<std::string>())
      .bind(6, r.value("apod_version", "unknown")).bind(7, dev).bind(8, device.dump())
      .bind(9, r.value("environment", json::object()).dump());
  run.run();

  std::map<std::string, int64_t> experiment_ids;
  sqlite::Statement exp(*db_,
      "INSERT INTO experiment_run(run_id, name, version, status, error, started_at, wall_s) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  const auto add_experiment = [&](const json& e) {
    exp.reset();
    exp.bind(1, id).bind(2, e.at("name").get<std::string>()).bind(3, e.value("version", 1))
        .bind(4, e.value("status", "complete")).bind(5, opt_text(e, "error"))
        .bind(6, e.value("started_at", r.at("started_at").get<std::string>()))
        .bind(7, opt_number(e, "wall_s"));
    exp.run();
    experiment_ids[e.at("name").get<std::string>()] = db_->last_insert_rowid();
  };
  for (const json& e : r.value("experiments", json::array())) add_experiment(e);

  for (const json& j : r.value("measurements", json::array())) {
    const std::string name = j.at("experiment").get<std::string>();
    if (!experiment_ids.count(name)) add_experiment({{"name", name}});
    // Statistics are recomputed from the samples by the same code that stored them, so every
    // imported figure still traces to its samples.
    Measurement m;
    m.experiment = name;
    m.params = j.at("params");
    m.metric = j.at("metric").get<std::string>();
    m.unit = j.at("unit").get<std::string>();
    m.direction = direction_from_string(j.value("direction", "higher"));
    m.samples = j.at("samples").get<std::vector<double>>();
    if (j.contains("sample_excluded") && j["sample_excluded"].is_array())
      for (const json& e : j["sample_excluded"]) m.excluded.push_back(static_cast<uint8_t>(e.get<int>()));
    m.verified = j.value("verified", false);
    m.error = opt_text(j, "error").value_or("");
    if (m.error.empty() && j.value("status", "ok") == "failed") m.error = "failed (no reason recorded)";
    m.extra = j.value("extra", json::object());
    m.stop_reason = j.value("stop_reason", std::string(stop_fixed));
    m.noisy = j.value("noisy", false);
    m.comparability_key = opt_text(j, "comparability_key").value_or("");
    insert_measurement(experiment_ids[name], m);
  }
  if (r.contains("telemetry") && r["telemetry"].is_array()) {
    sqlite::Statement tel(*db_, "INSERT INTO telemetry(run_id, seq, reading) VALUES (?1, ?2, ?3)");
    int64_t seq = 0;
    for (const json& t : r["telemetry"]) {
      tel.reset();
      tel.bind(1, id).bind(2, seq++).bind(3, t.dump()).run();
    }
  }
  tx.commit();
  return true;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

}  // namespace apod
