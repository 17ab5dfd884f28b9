// The store's writing side: a run as the runner measures it (begin_run, save_experiment,
// save_telemetry) and a whole run from elsewhere (import_run, for import and merge).
#include "core/errors.hpp"
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

} // namespace

// A device keeps the name it was first stored under: a later run (or an import) never renames
// it for the runs stored before; each run keeps its own facts in device_facts.
int64_t Store::device_id(const std::string& uuid, const std::string& name) {
  sqlite::Statement ins(
      *db_, "INSERT INTO device(uuid, name) VALUES (?1, ?2) ON CONFLICT(uuid) DO NOTHING");
  ins.bind(1, uuid).bind(2, name).run();
  sqlite::Statement sel(*db_, "SELECT id FROM device WHERE uuid = ?1");
  sel.bind(1, uuid);
  sel.step();
  return sel.get_int(0);
}

std::string Store::begin_run(const std::string& label, const DeviceInfo& device,
                             const json& environment) try {
  const std::string id = new_run_id();
  json env = environment;
  env["writer"] = current_writer();
  sqlite::Transaction tx(*db_);
  const int64_t dev = device_id(device.uuid, device.name);
  sqlite::Statement st(*db_, "INSERT INTO run(id, label, started_at, status, apod_version, "
                             "device_id, device_facts, environment) "
                             "VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7)");
  st.bind(1, id)
      .bind(2, label)
      .bind(3, now_iso8601())
      .bind(4, std::string(APOD_VERSION))
      .bind(5, dev)
      .bind(6, to_json(device).dump())
      .bind(7, env.dump());
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
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  exp.bind(1, run_id)
      .bind(2, r.name)
      .bind(3, r.version)
      .bind(4, r.status)
      .bind(5, optional_text(r.error))
      .bind(6, r.started_at)
      .bind(7, r.wall_s);
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
  const auto stat = [&](double v) { return s.n ? std::optional<double>(v) : std::nullopt; };
  sqlite::Statement meas(
      *db_,
      "INSERT INTO measurement(experiment_run_id, params, metric, unit, direction, median, min, "
      "max, "
      "mean, stddev, n, verified, status, error, extra, rsd, q1, q3, iqr, ci_low, ci_high, "
      "stop_reason, noisy, dropped, comparability_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
      "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)");
  meas.bind(1, experiment_run_id)
      .bind(2, m.params.dump())
      .bind(3, m.metric)
      .bind(4, m.unit)
      .bind(5, to_string(m.direction))
      .bind(6, stat(s.median))
      .bind(7, stat(s.min))
      .bind(8, stat(s.max))
      .bind(9, stat(s.mean))
      .bind(10, stat(s.stddev))
      .bind(11, static_cast<int64_t>(m.samples.size()))
      .bind(12, m.verified ? 1 : 0)
      .bind(13, status.word())
      .bind(14, optional_text(status.reason))
      .bind(15, m.extra.dump())
      .bind(16, stat(s.rsd))
      .bind(17, stat(s.q1))
      .bind(18, stat(s.q3))
      .bind(19, stat(s.iqr))
      .bind(20, stat(s.ci_low))
      .bind(21, stat(s.ci_high))
      .bind(22, m.stop_reason)
      .bind(23, m.noisy ? 1 : 0)
      .bind(24, static_cast<int64_t>(m.samples.size() - used.size()))
      .bind(25, optional_text(m.comparability_key));
  meas.run();
  const int64_t meas_id = db_->last_insert_rowid();
  sqlite::Statement sample(
      *db_, "INSERT INTO sample(measurement_id, seq, value, excluded) VALUES (?1, ?2, ?3, ?4)");
  for (size_t i = 0; i < m.samples.size(); ++i) {
    sample.reset();
    sample.bind(1, meas_id)
        .bind(2, static_cast<int64_t>(i))
        .bind(3, m.samples[i])
        .bind(4, i < m.excluded.size() ? int64_t(m.excluded[i]) : int64_t(0))
        .run();
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

void Store::insert_run(const RunRecord& r) {
  const int64_t dev = device_id(r.device_uuid(), r.device_name());
  sqlite::Statement run(
      *db_, "INSERT INTO run(id, label, started_at, finished_at, status, apod_version, device_id, "
            "device_facts, environment) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  run.bind(1, r.id)
      .bind(2, r.label)
      .bind(3, r.started_at)
      .bind(4, r.finished_at)
      .bind(5, r.status)
      .bind(6, r.apod_version)
      .bind(7, dev)
      .bind(8, r.device.dump())
      .bind(9, r.environment.dump());
  run.run();
  for (const ExperimentRecord& e : r.experiments)
    insert_experiment(r.id, e);
  sqlite::Statement tel(*db_, "INSERT INTO telemetry(run_id, seq, reading) VALUES (?1, ?2, ?3)");
  int64_t seq = 0;
  for (const json& t : r.telemetry) {
    tel.reset();
    tel.bind(1, r.id).bind(2, seq++).bind(3, t.dump()).run();
  }
}

// Its experiments, measurements, samples and telemetry go with it (ON DELETE CASCADE); the
// device row stays, with the name it was first stored under.
void Store::delete_run(const std::string& run_id) {
  sqlite::Statement del(*db_, "DELETE FROM run WHERE id = ?1");
  del.bind(1, run_id).run();
}

std::optional<RunRecord> Store::stored_copy(const std::string& run_id) {
  sqlite::Statement exists(*db_, "SELECT 1 FROM run WHERE id = ?1");
  exists.bind(1, run_id);
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
  while (next(run, source)) {
    validate(run, fmt::format("run {} of '{}'", run.id, source));
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
