// The schema of an apod database and its migrations, and the identity checks made on opening:
// PRAGMA application_id marks the file as apod's, user_version is the schema version.
#include "store/schema.hpp"

#include "core/errors.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

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
    // 3: an experiment may be 'skipped' (a feature the device lacks), with its reason in error.
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt (foreign keys are
    // off while migrating, so measurement's references to experiment_run(id) stay as they are).
    R"sql(
CREATE TABLE experiment_run_v3 (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  version     INTEGER NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('complete','failed','skipped')),
  error       TEXT,
  started_at  TEXT NOT NULL,
  wall_s      REAL,
  UNIQUE (run_id, name)
);
INSERT INTO experiment_run_v3(id, run_id, name, version, status, error, started_at, wall_s)
  SELECT id, run_id, name, version, status, error, started_at, wall_s FROM experiment_run;
DROP TABLE experiment_run;
ALTER TABLE experiment_run_v3 RENAME TO experiment_run;
)sql",
    // 4: each point's class as its experiment declared it (core/metric_class.hpp), which
    // compare's noise model and gating read. NULL in rows stored before: read as declared now.
    R"sql(
ALTER TABLE measurement ADD COLUMN class TEXT CHECK (class IS NULL OR class IN
  ('device_memory','on_chip','host_link','gpu_link','host_phase','derived'));
)sql",
};
constexpr int migration_count = sizeof(migrations) / sizeof(migrations[0]);
static_assert(migration_count == Store::schema_version);

// A PRAGMA that answers one integer, in a column named after it.
int64_t pragma_int(sqlite::Database& db, const char* pragma) {
  sqlite::Statement st(db, std::string("PRAGMA ") + pragma);
  return st.step() ? st.get_int(pragma) : 0;
}

// A schema object's SQL with the differences that carry no meaning between SQLite versions
// taken out: runs of white space become one space, none beside punctuation, and the quotes that
// ALTER TABLE ... RENAME adds around a name are dropped. Tokens stay apart.
std::string normalised_sql(const std::string& sql) {
  std::string out;
  bool space = false;
  for (const char c : sql) {
    if (c == '"')
      continue;
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    const bool punct = c == '(' || c == ')' || c == ',' || c == ';';
    if (space && !out.empty() && !punct && !std::strchr("(,;", out.back()))
      out += ' ';
    out += c;
    space = false;
  }
  return out;
}

struct SchemaObject {
  std::string type, sql;
};
using Schema = std::map<std::string, SchemaObject>; // by name

// SQLite's own statistics tables (ANALYZE, PRAGMA optimize) steer only the query planner.
bool sqlite_internal(const std::string& name) {
  return name.rfind("sqlite_stat", 0) == 0;
}

Schema read_schema(sqlite::Database& db) {
  Schema schema;
  sqlite::Statement st(db, "SELECT type, name, sql FROM sqlite_master");
  while (st.step())
    if (!sqlite_internal(st.get_text("name")))
      schema[st.get_text("name")] = {st.get_text("type"), normalised_sql(st.get_text("sql"))};
  return schema;
}

// apod's schema at `version`, built by the same migrations in a new in-memory database (once per
// version and process: every open compares against it).
const Schema& reference_schema(int64_t version) {
  static std::mutex lock;
  static std::map<int64_t, Schema> built;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto it = built.find(version); it != built.end())
    return it->second;
  sqlite::Database fresh(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  for (int64_t v = 0; v < version; ++v)
    fresh.exec(migrations[v]);
  return built[version] = read_schema(fresh);
}

std::string quoted(const std::string& name) {
  return json(name).dump();
}

} // namespace

const char* schema_migration(int version) {
  if (version < 0 || version >= migration_count)
    throw std::out_of_range(fmt::format("no schema migration from version {}", version));
  return migrations[version];
}

// A file that carries anything apod did not create (a trigger that rewrites what is stored, a
// view in place of a table, a changed column or CHECK) is refused before any read or write:
// its sqlite_master must equal that of a new database migrated to the same version.
void Store::verify_schema(int64_t version) {
  const Schema found = read_schema(*db_);
  const Schema& want = reference_schema(version);
  const auto refuse = [&](const std::string& what) {
    return InputError(fmt::format("'{}' {}; refusing to use it (was it changed by another "
                                  "program?)",
                                  db_->path(), what));
  };
  for (const auto& [name, object] : found)
    if (!want.count(name))
      throw refuse(
          fmt::format("holds a {} {} that apod did not create", object.type, quoted(name)));
  for (const auto& [name, object] : want) {
    const auto it = found.find(name);
    if (it == found.end())
      throw refuse(fmt::format("lacks the {} {} of apod's schema version {}", object.type,
                               quoted(name), version));
    if (it->second.type != object.type)
      throw refuse(fmt::format("holds a {} {} where apod's schema has a {}", it->second.type,
                               quoted(name), object.type));
    if (it->second.sql != object.sql)
      throw refuse(fmt::format("defines the {} {} differently from apod's schema version {}",
                               object.type, quoted(name), version));
  }
}

void Store::check_identity(bool may_initialise) {
  // One snapshot for all reads: another process may be creating the schema right now, and
  // tables from after its commit with an application_id from before it look foreign.
  sqlite::ReadTransaction snapshot(*db_);
  int64_t app_id = 0;
  try {
    app_id = pragma_int(*db_, "application_id");
  } catch (const sqlite::Error& e) {
    if ((e.code() & 0xff) == SQLITE_NOTADB)
      throw InputError(fmt::format(
          "'{}' is not a SQLite database (is it truncated or another kind of file?)", db_->path()));
    throw;
  }
  const int64_t version = pragma_int(*db_, "user_version");
  sqlite::Statement tables(*db_, "SELECT count(*) AS objects FROM sqlite_master");
  tables.step();
  const int64_t table_count = tables.get_int("objects");
  if (app_id == application_id) {
    if (version > schema_version)
      throw InputError(fmt::format("'{}' has schema version {}, newer than this apod understands "
                                   "({}); upgrade apod to read it",
                                   db_->path(), version, schema_version));
    if (version < 0)
      throw InputError(fmt::format("'{}' has schema version {}, which no apod writes; it was "
                                   "changed outside apod",
                                   db_->path(), version));
    verify_schema(version);
    version_ = version;
    return;
  }
  if (app_id == 0 && table_count == 0 && version == 0) {
    if (!may_initialise)
      throw EmptyDatabase(fmt::format("'{}' is empty, not an apod database", db_->path()));
    return;
  }
  throw InputError(fmt::format("'{}' is not an apod database (application_id {:#x}, {} schema "
                               "objects); refusing to change it",
                               db_->path(), app_id, table_count));
}

void Store::migrate() {
  int64_t version = pragma_int(*db_, "user_version");
  if (version == schema_version && pragma_int(*db_, "application_id") == application_id)
    return;
  sqlite::Transaction tx(*db_);
  version =
      pragma_int(*db_, "user_version"); // again under the lock: another process may have migrated
  const bool fresh = pragma_int(*db_, "application_id") != application_id;
  if (version < 0 || version > schema_version || (fresh && version != 0)) // never index past
    throw InputError(fmt::format("'{}' changed its schema version to {} while apod opened it",
                                 db_->path(), version));
  if (version > 0)
    verify_schema(version);
  for (; version < schema_version; ++version) {
    db_->exec(migrations[version]);
    db_->exec(fmt::format("PRAGMA user_version = {}", version + 1));
  }
  db_->exec(fmt::format("PRAGMA application_id = {}", application_id));
  tx.commit();
  version_ = schema_version;
}

} // namespace apod
