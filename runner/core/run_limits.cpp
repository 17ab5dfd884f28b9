#include "core/run_limits.hpp"

#include "core/errors.hpp"
#include "core/limits.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>
#include <vector>

namespace apod {

namespace {

constexpr const limits::JsonLimits& document = limits::results_document;

// Where a run's parts sit in an apod-results document ({"runs": [run]}), counted as the
// document's nesting bound counts: the document 1, "runs" 2, the run 3. A value is bounded at
// its depth in the document that `export` would write, so that whatever a database holds and
// apod exports, apod imports again (a value 64 deep on its own is 69 deep in the document).
constexpr int run_depth = 3;
constexpr int part_depth = run_depth + 1;              ///< environment, device
constexpr int reading_depth = run_depth + 2;           ///< a telemetry reading
constexpr int measurement_value_depth = run_depth + 3; ///< a measurement's params and extra

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
  refuse_results(where, what);
}

void check_text(const std::string& text, const std::string& where,
                std::size_t max = document.max_string_bytes) {
  if (text.size() > max)
    refuse(where, fmt::format("{} bytes, more than {}", text.size(), max));
}

// Depth, string length and object size of a JSON value, with an explicit stack: the value may
// come from a database, where no parser bounded it on the way in. `root_depth` is the root's
// depth in an exported document (above).
void check_json(const json& root, const std::string& where, int root_depth) {
  std::vector<std::pair<const json*, int>> pending{{&root, root_depth}};
  while (!pending.empty()) {
    const auto [value, depth] = pending.back();
    pending.pop_back();
    if (value->is_string())
      check_text(value->get_ref<const std::string&>(), where);
    if (!value->is_structured())
      continue;
    if (depth > document.max_depth)
      refuse(where, fmt::format("nested deeper than {} levels", document.max_depth));
    if (value->size() > document.max_members && value->is_object())
      refuse(where, fmt::format("an object of more than {} members", document.max_members));
    for (auto it = value->begin(); it != value->end(); ++it) {
      if (value->is_object())
        check_text(it.key(), where);
      pending.emplace_back(&*it, depth + 1);
    }
  }
}

void check_measurement(const Measurement& m, const std::string& where) {
  if (m.samples.size() > limits::max_samples_per_measurement)
    refuse(where, fmt::format("{} samples in one measurement, more than {}", m.samples.size(),
                              limits::max_samples_per_measurement));
  for (double v : m.samples)
    if (std::abs(v) > limits::max_sample_magnitude)
      refuse(where, fmt::format("a sample of {:g}, beyond +/-{:g}: no measurement is that large, "
                                "and its statistics would overflow",
                                v, limits::max_sample_magnitude));
  if (m.params.is_object() && m.params.size() > limits::max_params_keys)
    refuse(where + ".params",
           fmt::format("{} keys, more than {}", m.params.size(), limits::max_params_keys));
  for (const std::string* text : {&m.metric, &m.unit, &m.error, &m.comparability_key})
    check_text(*text, where);
  check_json(m.params, where + ".params", measurement_value_depth);
  check_json(m.extra, where + ".extra", measurement_value_depth);
}

} // namespace

void check_run_limits(const RunRecord& r, const std::string& where) {
  check_text(r.label, where + ".label", limits::max_label_bytes);
  for (const std::string* text : {&r.started_at, &r.apod_version})
    check_text(*text, where);
  if (r.finished_at)
    check_text(*r.finished_at, where + ".finished_at");
  check_json(to_json(r.environment), where + ".environment", part_depth);
  check_json(to_json(r.device), where + ".device", part_depth);
  if (r.telemetry.size() > limits::max_telemetry_per_run)
    refuse(where + ".telemetry",
           fmt::format("more than {} readings", limits::max_telemetry_per_run));
  for (const TelemetryReading& reading : r.telemetry)
    check_json(to_json(reading), where + ".telemetry", reading_depth);
  std::size_t measurements = 0;
  for (size_t i = 0; i < r.experiments.size(); ++i) {
    const ExperimentRecord& e = r.experiments[i];
    const std::string w = fmt::format("{}.experiments[{}]", where, i);
    check_text(e.name, w + ".name");
    check_text(e.error, w + ".error");
    check_text(e.started_at, w + ".started_at");
    if (e.version < 0 || e.version > 1000000)
      refuse(w + ".version", "expected an integer 0..1000000");
    measurements += e.measurements.size();
    if (measurements > limits::max_measurements_per_run)
      refuse(where, fmt::format("more than {} measurements", limits::max_measurements_per_run));
    for (size_t j = 0; j < e.measurements.size(); ++j)
      check_measurement(e.measurements[j], fmt::format("{}.measurements[{}]", w, j));
  }
}

} // namespace apod
