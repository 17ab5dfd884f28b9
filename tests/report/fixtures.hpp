// Loads the report tests' synthetic fixtures (tests/report/fixtures, made by make_fixtures.py).
#pragma once

#include "charts/chart.hpp"
#include "charts/declared.hpp"
#include "charts/experiment_charts.hpp"
#include "core/point_key.hpp"
#include "core/results_json.hpp"
#include "model.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace apod::report::test {

inline json load_fixture(const std::string& name, const std::string& dir = APOD_REPORT_FIXTURES) {
  const std::string path = dir + "/" + name;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("missing fixture " + path);
  return json::parse(in);
}

/// The current matrix's synthetic results, written at build time (fixtures/make_matrix_fixture.py).
inline json load_matrix_fixture(const std::string& name) {
  return load_fixture(name, APOD_MATRIX_FIXTURES);
}
/// Two H200 runs ("nightly") and one H100 run of every experiment.
inline json matrix() {
  return load_matrix_fixture("synthetic_matrix.json");
}
/// Ten H200 runs and two H100 runs: past runs_drawn_apart.
inline json matrix_many() {
  return load_matrix_fixture("synthetic_matrix_many.json");
}
inline json matrix_catalog() {
  return load_matrix_fixture("synthetic_matrix_catalog.json");
}
/// A committed document of real runs (data/runs/NAME, .json or .json.gz), as apod reads it.
inline json committed_runs(const std::string& name) {
  return read_results_file(std::string(APOD_RUNS_DIR) + "/" + name);
}
/// data/reference/'s documents.
inline json matrix_references() {
  return load_matrix_fixture("matrix_references.json");
}

inline json one_run() {
  return load_fixture("synthetic_one_run.json");
}
inline json three_runs() {
  return load_fixture("synthetic_three_runs.json");
}
inline json catalog() {
  return load_fixture("synthetic_catalog.json");
}
/// Schema 2: 10 H200 runs with a 10 % step from the 7th on and a one-run spike in the 4th, 2 A100
/// runs (the second without peak_copy and telemetry), environments that differ.
inline json history() {
  return load_fixture("synthetic_history.json");
}
/// The fixture with the H200's runs 1-9 made steady: each measurement is run 0's, scaled within
/// 0.1% per run. The fixture's own history (a spike, a 4-run step) moves its figures ~9% run to
/// run, behind which compare's noise model (heavy-tailed, docs/ci.md) finds no planted change
/// short of several-fold; against a steady history a 20% change is a regression.
inline json with_steady_history(json results) {
  // Paired by point (the fixture's points carry no key: apod derives them as it reads).
  const auto point = [](const json& m) {
    return apod::PointKey::of(m["experiment"].get<std::string>(), m["metric"].get<std::string>(),
                              m["params"])
        .text();
  };
  std::map<std::string, json> first;
  for (const json& m : results["runs"][0]["measurements"])
    first[point(m)] = m;
  for (int i = 1; i <= 9; ++i)
    for (json& m : results["runs"][i]["measurements"]) {
      const auto it = first.find(point(m));
      if (it == first.end())
        continue;
      const double f = 1 + 0.001 * std::sin(1.7 * i);
      m = it->second;
      for (const char* key : {"median", "min", "max", "mean", "q1", "q3", "ci_low", "ci_high"})
        if (m.contains(key) && m[key].is_number())
          m[key] = m[key].get<double>() * f;
      for (json& sample : m["samples"])
        sample = sample.get<double>() * f;
    }
  return results;
}

inline json references() {
  return load_fixture("synthetic_references.json");
}

inline const ExperimentView& experiment_in(const PageModel& page, const std::string& name) {
  for (const auto& experiment : page.experiments)
    if (experiment.name == name)
      return experiment;
  throw std::runtime_error("no experiment " + name);
}

inline const MetricView& metric_in(const ExperimentView& experiment, const std::string& metric) {
  for (const auto& view : experiment.metrics)
    if (view.metric == metric)
      return view;
  throw std::runtime_error("no metric " + metric + " in " + experiment.name);
}

/// The `index`-th chart an experiment declares in a catalog document (to change it in a test).
inline json& declared_chart(json& catalog, const std::string& experiment, std::size_t index = 0) {
  for (json& declaration : catalog["experiments"])
    if (declaration["name"] == experiment)
      return declaration["charts"].at(index);
  throw std::runtime_error("no declaration of " + experiment);
}

/// The spec of one metric's chart, as the page would embed it: the first chart the experiment
/// declares of it, else the generic chart.
inline json spec_for(const PageModel& page, const std::string& experiment,
                     const std::string& metric) {
  const ExperimentView& view = experiment_in(page, experiment);
  const std::vector<const json*> none;
  const charts::DesignInput in{page, view, none};
  for (const Chart& chart : view.declaration->charts)
    if (chart.metric == metric)
      if (auto block = charts::chart_block(in, chart))
        return block->spec;
  return build_chart_spec(page, view, metric_in(view, metric));
}

/// Every data row of a chart spec (its own, its panels' in hconcat/vconcat) whose "kind" is
/// `kind` (every row for "").
inline std::vector<json> rows_of(const json& spec, const std::string& kind = "") {
  std::vector<json> rows;
  if (spec.contains("data"))
    for (const auto& row : spec["data"]["values"])
      if (kind.empty() || row.value("kind", "") == kind)
        rows.push_back(row);
  for (const char* key : {"hconcat", "vconcat", "concat"})
    if (spec.contains(key))
      for (const auto& part : spec[key])
        for (auto& row : rows_of(part, kind))
          rows.push_back(std::move(row));
  return rows;
}

/// The layers of a spec, inside a facet's spec too.
inline json layers_in(const json& spec) {
  if (spec.contains("layer"))
    return spec["layer"];
  if (spec.contains("spec"))
    return layers_in(spec["spec"]);
  return json::array();
}

/// The layers whose mark type is `type` (a mark is a string or an object with "type").
inline std::vector<json> layers_with_mark(const json& spec, const std::string& type) {
  std::vector<json> found;
  for (const auto& layer : layers_in(spec)) {
    const json& mark = layer.at("mark");
    if ((mark.is_string() ? mark.get<std::string>() : mark.value("type", "")) == type)
      found.push_back(layer);
  }
  return found;
}

} // namespace apod::report::test
