#include "core/run_record.hpp"

#include "core/catalog.hpp"
#include "core/errors.hpp"
#include "core/point_key.hpp"
#include "core/run_dates.hpp"
#include "core/run_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace apod {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  refuse_results(where, what); // the one wording of a refused document (errors.hpp)
}

// The JSON types a field may have, with the words a message uses for them.
enum class Kind { string, object, array, boolean, integer, number };

bool is(const json& v, Kind kind) {
  switch (kind) {
  case Kind::string:
    return v.is_string();
  case Kind::object:
    return v.is_object();
  case Kind::array:
    return v.is_array();
  case Kind::boolean:
    return v.is_boolean();
  case Kind::integer:
    return v.is_number_integer();
  case Kind::number:
    return v.is_number() && std::isfinite(v.get<double>());
  }
  return false;
}

const char* words(Kind kind) {
  constexpr const char* names[] = {"string",  "object",  "array",
                                   "boolean", "integer", "finite number"};
  return names[static_cast<int>(kind)];
}

const json& required(const json& obj, const char* key, Kind kind, const std::string& where) {
  if (!obj.contains(key))
    bad(where, fmt::format("missing \"{}\"", key));
  const json& v = obj[key];
  if (!is(v, kind))
    bad(where + "." + key, fmt::format("expected {}, found {}", words(kind), v.type_name()));
  return v;
}

/// The member if present and of `kind`; nullptr if absent or null (when `nullable`).
const json* optional(const json& obj, const char* key, Kind kind, const std::string& where,
                     bool nullable = true) {
  if (!obj.contains(key) || (nullable && obj[key].is_null()))
    return nullptr;
  if (!is(obj[key], kind))
    bad(where + "." + key, fmt::format("expected {}{}", words(kind), nullable ? " or null" : ""));
  return &obj[key];
}

std::string optional_text(const json& obj, const char* key, const std::string& where,
                          const std::string& fallback = "") {
  const json* v = optional(obj, key, Kind::string, where);
  return v ? v->get<std::string>() : fallback;
}

template <size_t N> bool one_of(const std::string& value, const char* const (&allowed)[N]) {
  return std::any_of(std::begin(allowed), std::end(allowed),
                     [&](const char* a) { return value == a; });
}

bool valid_run_id(const std::string& id) {
  return !id.empty() && id.size() <= 64 &&
         id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

json text_or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

constexpr const char* stop_reasons[] = {stop_converged, stop_time_cap, stop_max_samples,
                                        stop_fixed};
constexpr const char* statistics[] = {"median", "min", "max", "mean",   "stddev", "rsd",
                                      "q1",     "q3",  "iqr", "ci_low", "ci_high"};

} // namespace

json to_json(const Measurement& m) {
  const std::vector<double> used = m.used_samples();
  const Summary s = summarize(used);
  const auto stat = [&](double v) { return s.n ? json(v) : json(nullptr); };
  const PointStatus status = point_status(m);
  json excluded = json::array();
  for (size_t i = 0; i < m.samples.size(); ++i)
    excluded.push_back(i < m.excluded.size() ? int(m.excluded[i]) : 0);
  return {{"experiment", m.experiment},
          {"params", m.params},
          {"metric", m.metric},
          {"unit", m.unit},
          {"direction", to_string(m.direction)},
          {"class", class_name(m.metric_class)},
          {"median", stat(s.median)},
          {"min", stat(s.min)},
          {"max", stat(s.max)},
          {"mean", stat(s.mean)},
          {"stddev", stat(s.stddev)},
          {"rsd", stat(s.rsd)},
          {"q1", stat(s.q1)},
          {"q3", stat(s.q3)},
          {"iqr", stat(s.iqr)},
          {"ci_low", stat(s.ci_low)},
          {"ci_high", stat(s.ci_high)},
          {"n", m.samples.size()},
          {"samples", m.samples},
          {"sample_excluded", std::move(excluded)},
          {"dropped", m.samples.size() - used.size()},
          {"stop_reason", m.stop_reason},
          {"noisy", m.noisy},
          {"comparability_key", text_or_null(m.comparability_key)},
          {"verified", m.verified},
          {"status", status.word()},
          {"error", text_or_null(status.reason)},
          {"extra", m.extra}};
}

Measurement measurement_from_json(const json& j, const std::string& where) {
  if (!j.is_object())
    bad(where, "expected an object");
  Measurement m;
  m.experiment = required(j, "experiment", Kind::string, where).get<std::string>();
  m.params = required(j, "params", Kind::object, where);
  m.metric = required(j, "metric", Kind::string, where).get<std::string>();
  m.unit = required(j, "unit", Kind::string, where).get<std::string>();
  const json& samples = required(j, "samples", Kind::array, where);
  m.samples.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!is(samples[i], Kind::number))
      bad(fmt::format("{}.samples[{}]", where, i), "not a finite number");
    m.samples.push_back(samples[i].get<double>());
  }
  for (const char* key : statistics)
    optional(j, key, Kind::number, where);
  if (const json* ex = optional(j, "sample_excluded", Kind::array, where, false)) {
    if (ex->size() != samples.size())
      bad(where + ".sample_excluded", "length differs from samples");
    for (const json& e : *ex) {
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 255)
        bad(where + ".sample_excluded", "expected integers 0..255");
      m.excluded.push_back(static_cast<uint8_t>(e.get<int64_t>()));
    }
  }
  if (const json* n = optional(j, "n", Kind::integer, where, false);
      n && n->get<int64_t>() != int64_t(samples.size()))
    bad(where + ".n", "does not equal the number of samples");
  const std::string direction = optional_text(j, "direction", where, "higher");
  if (direction != "higher" && direction != "lower")
    bad(where + ".direction", "unexpected value " + j["direction"].dump());
  m.direction = direction_from_string(direction);
  m.stop_reason = optional_text(j, "stop_reason", where, stop_fixed);
  if (!one_of(m.stop_reason, stop_reasons))
    bad(where + ".stop_reason", "unexpected value " + j["stop_reason"].dump());
  if (const json* noisy = optional(j, "noisy", Kind::boolean, where, false))
    m.noisy = noisy->get<bool>();
  m.comparability_key = optional_text(j, "comparability_key", where);
  if (const json* verified = optional(j, "verified", Kind::boolean, where, false))
    m.verified = verified->get<bool>();
  const std::string status = optional_text(j, "status", where, "ok");
  if (status != "ok" && status != "failed")
    bad(where + ".status", "unexpected value " + j["status"].dump());
  if (const json* extra = optional(j, "extra", Kind::object, where, false))
    m.extra = *extra;
  // The class the runner stored from the experiment's declaration; a document of an apod older
  // than the catalog has none, and the point takes the class its experiment declares now.
  const std::string metric_class = optional_text(j, "class", where);
  if (metric_class.empty()) {
    m.metric_class = declared_class(m.experiment, m.metric, m.params, m.extra);
  } else if (const auto c = find_class(metric_class)) {
    m.metric_class = *c;
  } else {
    bad(where + ".class", "unexpected value " + j["class"].dump());
  }
  m.error = optional_text(j, "error", where);
  // A point stored as failed stays failed, with its reason, even if its flags would say ok.
  if (m.error.empty() && status == "failed" && point_status(m).ok())
    m.error = "failed (no reason recorded)";
  return m;
}

json to_json(const ExperimentRecord& e) {
  return {{"name", e.name},
          {"version", e.version},
          {"status", e.status},
          {"error", text_or_null(e.error)},
          {"started_at", e.started_at},
          {"wall_s", e.wall_s ? json(*e.wall_s) : json(nullptr)}};
}

json to_json(const RunRecord& r) {
  json experiments = json::array(), measurements = json::array();
  for (const ExperimentRecord& e : r.experiments) {
    experiments.push_back(to_json(e));
    for (const Measurement& m : e.measurements)
      measurements.push_back(to_json(m));
  }
  return {{"id", r.id},
          {"label", r.label},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at ? json(*r.finished_at) : json(nullptr)},
          {"status", r.status},
          {"apod_version", r.apod_version},
          {"environment", to_json(r.environment)},
          {"device", to_json(r.device)},
          {"experiments", std::move(experiments)},
          {"measurements", std::move(measurements)},
          {"telemetry", to_json(r.telemetry)}};
}

namespace {

ExperimentRecord experiment_from_json(const json& j, const std::string& where,
                                      const std::string& run_started) {
  if (!j.is_object())
    bad(where, "expected an object");
  ExperimentRecord e;
  e.name = required(j, "name", Kind::string, where).get<std::string>();
  if (const json* v = optional(j, "version", Kind::integer, where, false)) {
    if (v->get<int64_t>() < 0 || v->get<int64_t>() > 1000000)
      bad(where + ".version", "expected an integer 0..1000000");
    e.version = static_cast<int>(v->get<int64_t>());
  }
  e.status = optional_text(j, "status", where, "complete");
  e.error = optional_text(j, "error", where);
  e.started_at = optional_text(j, "started_at", where, run_started);
  if (const json* w = optional(j, "wall_s", Kind::number, where))
    e.wall_s = w->get<double>();
  return e;
}

} // namespace

RunRecord run_from_json(const json& j, const std::string& where) {
  if (!j.is_object())
    bad(where, "expected an object");
  RunRecord r;
  r.id = required(j, "id", Kind::string, where).get<std::string>();
  if (!valid_run_id(r.id))
    bad(where + ".id", "expected 1 to 64 lowercase hex digits");
  r.started_at = required(j, "started_at", Kind::string, where).get<std::string>();
  if (!j.contains("status"))
    bad(where, "missing \"status\"");
  r.status = required(j, "status", Kind::string, where).get<std::string>();
  r.label = optional_text(j, "label", where);
  r.apod_version = optional_text(j, "apod_version", where, "unknown");
  if (const json* f = optional(j, "finished_at", Kind::string, where))
    r.finished_at = f->get<std::string>();
  // A run without an environment (hand-made documents) is written back with an empty one.
  const json* env = optional(j, "environment", Kind::object, where, false);
  r.environment = environment_from_json(env ? *env : json::object());
  r.device = device_from_json(required(j, "device", Kind::object, where), where + ".device");
  std::map<std::string, size_t> index; // experiment name -> position in r.experiments
  if (const json* exps = optional(j, "experiments", Kind::array, where, false))
    for (size_t i = 0; i < exps->size(); ++i) {
      const std::string w = fmt::format("{}.experiments[{}]", where, i);
      ExperimentRecord e = experiment_from_json((*exps)[i], w, r.started_at);
      if (!index.emplace(e.name, r.experiments.size()).second)
        bad(w + ".name", "the run lists this experiment twice");
      r.experiments.push_back(std::move(e));
    }
  const json& ms = required(j, "measurements", Kind::array, where);
  for (size_t i = 0; i < ms.size(); ++i) {
    Measurement m = measurement_from_json(ms[i], fmt::format("{}.measurements[{}]", where, i));
    // A measurement of an experiment the run does not list: the experiment is added as complete.
    auto [it, added] = index.emplace(m.experiment, r.experiments.size());
    if (added)
      r.experiments.push_back({m.experiment, 1, "complete", "", r.started_at, std::nullopt, {}});
    r.experiments[it->second].measurements.push_back(std::move(m));
  }
  if (const json* tel = optional(j, "telemetry", Kind::array, where, false))
    for (size_t i = 0; i < tel->size(); ++i)
      r.telemetry.push_back(
          telemetry_from_json((*tel)[i], fmt::format("{}.telemetry[{}]", where, i)));
  derive_keys(r);
  validate(r, where);
  return r;
}

void validate(const RunRecord& r, const std::string& where) {
  check_run_limits(r, where); // first: the same bounds however the run came (limits.hpp)
  if (!valid_run_id(r.id))
    bad(where + ".id", "expected 1 to 64 lowercase hex digits");
  if (!one_of(r.status, run_statuses))
    bad(where + ".status", "unexpected value " + json(r.status).dump());
  std::set<std::string> names;
  for (size_t i = 0; i < r.experiments.size(); ++i) {
    const ExperimentRecord& e = r.experiments[i];
    const std::string w = fmt::format("{}.experiments[{}]", where, i);
    if (!names.insert(e.name).second)
      bad(w + ".name", "the run lists this experiment twice");
    if (!one_of(e.status, experiment_statuses))
      bad(w + ".status", "unexpected value " + json(e.status).dump());
    if (e.wall_s && !std::isfinite(*e.wall_s))
      bad(w + ".wall_s", "expected a finite number or null");
    for (const Measurement& m : e.measurements) {
      if (m.experiment != e.name)
        bad(w, "holds a measurement of another experiment");
      if (!m.params.is_object() || !m.extra.is_object())
        bad(w, "a measurement's params or extra is not an object");
      if (!m.excluded.empty() && m.excluded.size() != m.samples.size())
        bad(w, "a measurement has not one exclusion flag per sample");
      for (double v : m.samples)
        if (!std::isfinite(v))
          bad(w, "a measurement holds a sample that is not a finite number");
      if (!one_of(m.stop_reason, stop_reasons))
        bad(w, "a measurement has an unknown stop_reason");
      // Comparability is the content's, never a stored hash's (a run relabelled as another GPU
      // or another experiment version must not pair with the old one's points).
      if (const std::string key = derived_key(r, e.version, m); m.comparability_key != key)
        bad(w, fmt::format("the point {} carries comparability key \"{}\", but its GPU model, "
                           "driver, experiment version, parameters and metric give \"{}\"",
                           PointKey::of(m).text(), m.comparability_key, key));
    }
  }
  check_run_dates(r, where);
}

std::string key_driver(const Environment& environment, const DeviceInfo& device) {
  const std::string branch = environment.driver_branch();
  return branch.empty() ? "cuda-driver-" + std::to_string(device.driver_version) : branch;
}

std::string derived_key(const RunRecord& r, int version, const Measurement& m) {
  return comparability_key(r.device.name, key_driver(r.environment, r.device), m.experiment,
                           version, m.params, m.metric);
}

void derive_keys(RunRecord& r) {
  for (ExperimentRecord& e : r.experiments)
    for (Measurement& m : e.measurements)
      if (m.comparability_key.empty())
        m.comparability_key = derived_key(r, e.version, m);
}

std::vector<const Measurement*> RunRecord::measurements() const {
  std::vector<const Measurement*> all;
  for (const auto& e : experiments)
    for (const auto& m : e.measurements)
      all.push_back(&m);
  return all;
}

} // namespace apod
