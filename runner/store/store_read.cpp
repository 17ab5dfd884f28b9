// The store's read-out: a stored run as a RunRecord (run_record.hpp), checked by the same rules
// as every run that comes in, and the apod-results document of several.
#include "core/catalog.hpp"
#include "core/errors.hpp"
#include "core/limits.hpp"
#include "core/results_json.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod {

namespace {

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
    for (auto& child : j)
      replace_invalid_utf8(child);
  }
}

std::string valid_utf8(const std::string& text) {
  json j = text;
  replace_invalid_utf8(j);
  return j.get<std::string>();
}

} // namespace

std::vector<RunRecord> Store::read_runs(const std::vector<std::string>& run_ids) {
  std::vector<RunRecord> runs;
  for_each_run(run_ids, [&](const RunRecord& r) { runs.push_back(r); });
  return runs;
}

void Store::for_each_run(const std::vector<std::string>& ids,
                         const std::function<void(const RunRecord&)>& each) try {
  sqlite::ReadTransaction snapshot(*db_);
  std::vector<std::string> resolved; // a run named twice (by its id and a prefix) comes once
  for (const auto& id : ids)
    if (std::string run = resolve_run_id(id);
        std::find(resolved.begin(), resolved.end(), run) == resolved.end())
      resolved.push_back(std::move(run));
  for (const auto& id : ids.empty() ? run_ids() : resolved)
    each(read_run(id));
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
}

json Store::export_results(const std::vector<std::string>& run_ids) try {
  return results_document(read_runs(run_ids));
} catch (const json::exception& e) {
  storage_failure(db_->path(), e, false);
}

namespace {

constexpr int64_t class_since_version = 4; // migration 4 added measurement.class

// The class the runner stored with the point. A row stored before schema 4 has none and takes
// the class its experiment declares now, as a document without "class" does (run_record.cpp).
MetricClass stored_class(const sqlite::Statement& meas, const Measurement& m) {
  const std::optional<std::string> stored = meas.get_optional_text("class");
  if (!stored)
    return declared_class(m.experiment, m.metric, m.params, m.extra);
  if (const auto c = find_class(*stored))
    return *c;
  throw InputError(fmt::format("a measurement of {} has the class {}, which apod does not know",
                               json(m.experiment).dump(),
                               json(*stored).dump(-1, ' ', false, json::error_handler_t::replace)));
}

// The samples of one stored measurement and their flags, in order.
void read_samples(sqlite::Statement& samples, int64_t measurement_id, Measurement& m) {
  samples.reset();
  samples.bind(":measurement_id", measurement_id);
  while (samples.step()) {
    if (m.samples.size() >= limits::max_samples_per_measurement)
      throw InputError(fmt::format("a measurement of {} holds more than {} samples",
                                   json(m.experiment).dump(), limits::max_samples_per_measurement));
    m.samples.push_back(samples.get_double("value"));
    m.excluded.push_back(static_cast<uint8_t>(samples.get_int("excluded")));
  }
}

// The measurements of one stored experiment, their samples and flags in order. A file at a
// schema before 4, read as it is (read-only), has no class column: its points read as NULL.
std::vector<Measurement> read_measurements(sqlite::Database& db, int64_t experiment_run_id,
                                           const std::string& experiment, bool has_class,
                                           json (*parse)(const std::string&)) {
  sqlite::Statement meas(
      db, fmt::format("SELECT id, params, metric, unit, direction, {}, verified, status, error, "
                      "extra, stop_reason, noisy, comparability_key FROM measurement "
                      "WHERE experiment_run_id = :experiment_run_id ORDER BY id",
                      has_class ? "class" : "NULL AS class"));
  sqlite::Statement samples(
      db, "SELECT value, excluded FROM sample WHERE measurement_id = :measurement_id ORDER BY seq");
  meas.bind(":experiment_run_id", experiment_run_id);
  std::vector<Measurement> out;
  while (meas.step()) {
    if (out.size() >= limits::max_measurements_per_run) // before the memory is spent
      throw InputError(fmt::format("experiment {} holds more than {} measurements",
                                   json(experiment).dump(), limits::max_measurements_per_run));
    Measurement m;
    m.experiment = experiment;
    m.params = parse(meas.get_text("params"));
    m.metric = meas.get_text("metric");
    m.unit = meas.get_text("unit");
    m.direction = meas.get_text("direction") == "lower" ? Direction::lower : Direction::higher;
    m.verified = meas.get_int("verified") != 0;
    m.error = meas.get_optional_text("error").value_or("");
    m.extra = parse(meas.get_text("extra"));
    m.stop_reason = meas.get_text("stop_reason");
    m.noisy = meas.get_int("noisy") != 0;
    m.comparability_key = meas.get_optional_text("comparability_key").value_or("");
    m.metric_class = stored_class(meas, m);
    read_samples(samples, meas.get_int("id"), m);
    // A point stored as failed stays failed, with its reason (as measurement_from_json reads it).
    if (m.error.empty() && meas.get_text("status") == "failed" && point_status(m).ok())
      m.error = "failed (no reason recorded)";
    out.push_back(std::move(m));
  }
  return out;
}

} // namespace

namespace {

// Every text of a run read back as valid UTF-8 (see replace_invalid_utf8); the environment,
// device and telemetry are made so as they are read (Store::read_run).
void make_valid_utf8(RunRecord& r) {
  for (std::string* text : {&r.label, &r.apod_version, &r.started_at})
    *text = valid_utf8(*text);
  for (auto& e : r.experiments) {
    for (std::string* text : {&e.name, &e.status, &e.error, &e.started_at})
      *text = valid_utf8(*text);
    for (auto& m : e.measurements) {
      replace_invalid_utf8(m.params);
      replace_invalid_utf8(m.extra);
      for (std::string* text : {&m.experiment, &m.metric, &m.unit, &m.error, &m.comparability_key})
        *text = valid_utf8(*text);
    }
  }
}

} // namespace

RunRecord Store::read_run(const std::string& run_id) try {
  sqlite::Statement run(
      *db_,
      "SELECT id, label, started_at, finished_at, status, apod_version, device_facts, environment "
      "FROM run WHERE id = :id");
  run.bind(":id", run_id);
  if (!run.step())
    throw InputError("no run " + run_id);
  const auto parse_valid_utf8 = [](const std::string& text) {
    json j = parse_stored(text);
    replace_invalid_utf8(j);
    return j;
  };
  RunRecord r;
  try { // whatever the file holds is refused as a run apod would not import, never half-read
    r.id = run.get_text("id");
    r.label = run.get_text("label");
    r.started_at = run.get_text("started_at");
    r.finished_at = run.get_optional_text("finished_at");
    r.status = status_shown(r.id, run.get_text("status"));
    r.apod_version = run.get_text("apod_version");
    const std::string where = "run " + r.id;
    const json environment = parse_valid_utf8(run.get_text("environment"));
    if (!environment.is_object())
      refuse_results(where + ".environment", "expected an object");
    r.environment = environment_from_json(environment);
    r.device = device_from_json(parse_valid_utf8(run.get_text("device_facts")), where + ".device");
    sqlite::Statement exps(
        *db_, "SELECT id, name, version, status, error, started_at, wall_s FROM experiment_run "
              "WHERE run_id = :run_id ORDER BY id");
    exps.bind(":run_id", run_id);
    while (exps.step()) {
      const int64_t version = exps.get_int("version");
      ExperimentRecord e{exps.get_text("name"),
                         static_cast<int>(std::clamp<int64_t>(version, -1, 1000001)),
                         exps.get_text("status"),
                         exps.get_optional_text("error").value_or(""),
                         exps.get_text("started_at"),
                         exps.get_optional_double("wall_s"),
                         {}};
      e.measurements = read_measurements(*db_, exps.get_int("id"), e.name,
                                         version_ >= class_since_version, &Store::parse_stored);
      r.experiments.push_back(std::move(e));
    }
    sqlite::Statement tel(*db_,
                          "SELECT reading FROM telemetry WHERE run_id = :run_id ORDER BY seq");
    tel.bind(":run_id", run_id);
    while (tel.step()) {
      if (r.telemetry.size() >= limits::max_telemetry_per_run)
        throw InputError(
            fmt::format("more than {} telemetry readings", limits::max_telemetry_per_run));
      r.telemetry.push_back(
          telemetry_from_json(parse_valid_utf8(tel.get_text("reading")),
                              fmt::format("{}.telemetry[{}]", where, r.telemetry.size())));
    }
    make_valid_utf8(r);
    if (r.finished_at)
      *r.finished_at = valid_utf8(*r.finished_at);
    derive_keys(r);
    validate(r, "run " + r.id);
  } catch (const InputError& e) {
    throw InputError(
        fmt::format("'{}' holds a run that apod would not import ({}); it was changed outside apod",
                    db_->path(), e.what()));
  }
  return r;
} catch (const sqlite::Error& e) {
  storage_failure(db_->path(), e, false);
} catch (const json::exception& e) {
  storage_failure(db_->path(), e, false);
}

} // namespace apod
