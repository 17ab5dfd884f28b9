// The store's writing side: a run as the runner measures it (begin_run, save_experiment,
// save_telemetry) and a whole run from elsewhere (import_run, for import and merge).
#include "core/errors.hpp"
#include "core/run_dates.hpp"
#include "store/run_conflict.hpp"
#include "store/store.hpp"
#include "store/writer.hpp"

#include <fmt/format.h>

#include <map>

namespace apod {

namespace {

std::optional<std::string> optional_text(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

// Telemetry readings stored in order from `seq` on.
void insert_telemetry(sqlite::Database& db, const std::string& run_id, int64_t seq,
                      const std::vector<TelemetryReading>& readings) {
  sqlite::Statement st(
      db, "INSERT INTO telemetry(run_id, seq, reading) VALUES (:run_id, :seq, :reading)");
  for (const TelemetryReading& r : readings) {
    st.reset();
    st.bind(":run_id", run_id).bind(":seq", seq++).bind(":reading", to_json(r).dump()).run();
  }
}

} // namespace

// A device keeps the name it was first stored under: a later run (or an import) never renames
// it for the runs stored before; each run keeps its own facts in device_facts.
int64_t Store::device_id(const std::string& uuid, const std::string& name) {
  sqlite::Statement ins(
      *db_, "INSERT INTO device(uuid, name) VALUES (:uuid, :name) ON CONFLICT(uuid) DO NOTHING");
  ins.bind(":uuid", uuid).bind(":name", name).run();
  sqlite::Statement sel(*db_, "SELECT id FROM device WHERE uuid = :uuid");
  sel.bind(":uuid", uuid);
  sel.step();
  return sel.get_int("id");
}

std::string Store::begin_run(const std::string& label, const DeviceInfo& device,
                             const Environment& environment) try {
  const std::string id = new_run_id();
  Environment env = environment;
  env.writer = current_writer();
  sqlite::Transaction tx(*db_);
  const int64_t dev = device_id(device.uuid, device.name);
  sqlite::Statement st(*db_, "INSERT INTO run(id, label, started_at, status, apod_version, "
                             "device_id, device_facts, environment) "
                             "VALUES (:id, :label, :started_at, 'running', :apod_version, "
                             ":device_id, :device_facts, :environment)");
  st.bind(":id", id)
      .bind(":label", label)
      .bind(":started_at", now_iso8601())
      .bind(":apod_version", std::string(APOD_VERSION))
      .bind(":device_id", dev)
      .bind(":device_facts", to_json(device).dump())
      .bind(":environment", to_json(env).dump());
  st.run();
  tx.commit();
  return id;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::save_experiment(const std::string& run_id, const ExperimentRecord& r) try {
  sqlite::Transaction tx(*db_);
  insert_experiment(run_id, r);
  tx.commit();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::insert_experiment(const std::string& run_id, const ExperimentRecord& r) {
  sqlite::Statement exp(
      *db_, "INSERT INTO experiment_run(run_id, name, version, status, error, started_at, wall_s) "
            "VALUES (:run_id, :name, :version, :status, :error, :started_at, :wall_s)");
  exp.bind(":run_id", run_id)
      .bind(":name", r.name)
      .bind(":version", r.version)
      .bind(":status", r.status)
      .bind(":error", optional_text(r.error))
      .bind(":started_at", r.started_at)
      .bind(":wall_s", r.wall_s);
  exp.run();
  const int64_t exp_id = db_->last_insert_rowid();
  for (const Measurement& m : r.measurements)
    insert_measurement(exp_id, m);
}

// The statistics columns are a convenience for SQL readers; the read-out recomputes them from
// the samples (run_record.cpp), so every figure still traces to its samples.
void Store::insert_measurement(int64_t experiment_run_id, const Measurement& m) {
  const std::vector<double> used = m.used_samples();
  const Summary s = summarize(used);
  const PointStatus status = point_status(m);
  sqlite::Statement meas(
      *db_,
      "INSERT INTO measurement(experiment_run_id, params, metric, unit, direction, class, median, "
      "min, max, mean, stddev, n, verified, status, error, extra, rsd, q1, q3, iqr, ci_low, "
      "ci_high, stop_reason, noisy, dropped, comparability_key) "
      "VALUES (:experiment_run_id, :params, :metric, :unit, :direction, :class, :median, :min, "
      ":max, :mean, :stddev, :n, :verified, :status, :error, :extra, :rsd, :q1, :q3, :iqr, "
      ":ci_low, :ci_high, :stop_reason, :noisy, :dropped, :comparability_key)");
  const std::pair<const char*, double> statistics[] = {
      {":median", s.median}, {":min", s.min},       {":max", s.max},        {":mean", s.mean},
      {":stddev", s.stddev}, {":rsd", s.rsd},       {":q1", s.q1},          {":q3", s.q3},
      {":iqr", s.iqr},       {":ci_low", s.ci_low}, {":ci_high", s.ci_high}};
  for (const auto& [name, value] : statistics) // none of a point with no used sample
    meas.bind(name, s.n ? std::optional<double>(value) : std::nullopt);
  meas.bind(":experiment_run_id", experiment_run_id)
      .bind(":params", m.params.dump())
      .bind(":metric", m.metric)
      .bind(":unit", m.unit)
      .bind(":direction", to_string(m.direction))
      .bind(":class", class_name(m.metric_class))
      .bind(":n", static_cast<int64_t>(m.samples.size()))
      .bind(":verified", m.verified ? 1 : 0)
      .bind(":status", status.word())
      .bind(":error", optional_text(status.reason))
      .bind(":extra", m.extra.dump())
      .bind(":stop_reason", m.stop_reason)
      .bind(":noisy", m.noisy ? 1 : 0)
      .bind(":dropped", static_cast<int64_t>(m.samples.size() - used.size()))
      .bind(":comparability_key", optional_text(m.comparability_key));
  meas.run();
  const int64_t meas_id = db_->last_insert_rowid();
  sqlite::Statement sample(*db_, "INSERT INTO sample(measurement_id, seq, value, excluded) "
                                 "VALUES (:measurement_id, :seq, :value, :excluded)");
  for (size_t i = 0; i < m.samples.size(); ++i) {
    sample.reset();
    sample.bind(":measurement_id", meas_id)
        .bind(":seq", static_cast<int64_t>(i))
        .bind(":value", m.samples[i])
        .bind(":excluded", i < m.excluded.size() ? int64_t(m.excluded[i]) : int64_t(0))
        .run();
  }
}

void Store::save_telemetry(const std::string& run_id,
                           const std::vector<TelemetryReading>& readings) try {
  sqlite::Transaction tx(*db_);
  sqlite::Statement next(
      *db_, "SELECT coalesce(max(seq) + 1, 0) AS next_seq FROM telemetry WHERE run_id = :run_id");
  next.bind(":run_id", run_id);
  insert_telemetry(*db_, run_id, next.step() ? next.get_int("next_seq") : 0, readings);
  tx.commit();
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

void Store::insert_run(const RunRecord& r) {
  const int64_t dev = device_id(r.device.uuid, r.device.name);
  sqlite::Statement run(
      *db_, "INSERT INTO run(id, label, started_at, finished_at, status, apod_version, device_id, "
            "device_facts, environment) VALUES (:id, :label, :started_at, :finished_at, "
            ":status, :apod_version, :device_id, :device_facts, :environment)");
  run.bind(":id", r.id)
      .bind(":label", r.label)
      .bind(":started_at", r.started_at)
      .bind(":finished_at", r.finished_at)
      .bind(":status", r.status)
      .bind(":apod_version", r.apod_version)
      .bind(":device_id", dev)
      .bind(":device_facts", to_json(r.device).dump())
      .bind(":environment", to_json(r.environment).dump());
  run.run();
  for (const ExperimentRecord& e : r.experiments)
    insert_experiment(r.id, e);
  insert_telemetry(*db_, r.id, 0, r.telemetry);
}

// Its experiments, measurements, samples and telemetry go with it (ON DELETE CASCADE); the
// device row stays, with the name it was first stored under.
void Store::delete_run(const std::string& run_id) {
  sqlite::Statement del(*db_, "DELETE FROM run WHERE id = :id");
  del.bind(":id", run_id).run();
}

std::optional<RunRecord> Store::stored_copy(const std::string& run_id) {
  sqlite::Statement exists(*db_, "SELECT 1 FROM run WHERE id = :id");
  exists.bind(":id", run_id);
  if (!exists.step())
    return std::nullopt;
  return read_run(run_id);
}

bool Store::import_run(const RunRecord& r) {
  bool given = false;
  const ImportSummary summary = import_runs([&](RunRecord& run, std::string& source) {
    if (given)
      return false;
    given = true;
    run = r;
    source = "the run given";
    return true;
  });
  return summary.added == 1;
}

ImportSummary Store::import_runs(const RunFeed& next, OnConflict on_conflict) try {
  ImportSummary summary;
  std::map<std::string, std::string> added_from; // run id -> source, for runs this call added
  sqlite::Transaction tx(*db_);                  // all runs or none
  RunRecord run;
  std::string source;
  const UtcTime now = utc_now();
  while (next(run, source)) {
    derive_keys(run); // a point without a key gets its own; one with another key is refused
    validate(run, fmt::format("run {} of '{}'", run.id, source));
    if (const auto field = date_from_the_future(run, now))
      throw InputError(fmt::format(
          "run {} of '{}' has {} {}, more than an hour after this machine's clock ({}): a wrong "
          "clock or a changed document, and it would stay the newest run for ever; nothing was "
          "imported",
          run.id, source, *field, *field == "started_at" ? run.started_at : *run.finished_at,
          now_iso8601()));
    const std::optional<RunRecord> stored = stored_copy(run.id);
    if (!stored) {
      insert_run(run);
      ++summary.added;
      added_from[run.id] = source;
      continue;
    }
    const std::string there = added_from.count(run.id)
                                  ? fmt::format("the copy from '{}'", added_from[run.id])
                                  : fmt::format("the copy already in '{}'", db_->path());
    const RunConflict conflict = classify(*stored, run);
    if (conflict.kind == RunConflict::same) {
      ++summary.already_present;
      continue;
    }
    if (conflict.kind == RunConflict::different && on_conflict == OnConflict::refuse)
      throw InputError(fmt::format(
          "run {} from '{}' differs from {} ({}); nothing was imported. Say which copy wins "
          "with --on-conflict keep or --on-conflict replace",
          run.id, source, there, conflict.difference));
    const bool replace =
        conflict.kind == RunConflict::later ||
        (conflict.kind == RunConflict::different && on_conflict == OnConflict::replace);
    if (replace) {
      delete_run(run.id);
      insert_run(run);
      added_from[run.id] = source;
    }
    summary.notes.push_back(conflict_note(run, *stored, conflict, replace, source, there));
  }
  tx.commit();
  return summary;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, true);
}

} // namespace apod
