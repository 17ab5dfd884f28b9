// Writes SYNTHETIC results of the whole experiment matrix for the report's chart tests, made from
// the catalog itself: every declared experiment, its planned points (declaration.plan on a
// nominal H100 and H200), its declared metrics and the extra keys its charts read. Nothing here
// is measured and every document says so; real runs live in data/runs/. Because the points come
// from the declarations, a param or metric renamed in an experiment's folder renames it here too,
// and a chart that names what its experiment does not record fails the tests rather than
// vanishing from the page.
//
//   synthetic_matrix.json          3 runs: two H200 runs ("nightly") and one H100 run
//   synthetic_matrix_many.json     12 runs (10 H200, 2 H100): past runs_drawn_apart
//   synthetic_matrix_catalog.json  the catalog (`apod list --json`'s document)
//   matrix_references.json         data/reference/'s documents, as one array
//
// Usage: make_matrix_fixture OUT_DIR REFERENCE_DIR
#include "core/catalog.hpp"
#include "core/results_json.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace apod {
namespace {

constexpr int samples_per_point = 6;
constexpr const char* synthetic =
    "SYNTHETIC report-test fixture made from the catalog "
    "(tests/report/make_matrix_fixture.cpp); nothing here was measured";

DeviceInfo h100() {
  DeviceInfo d = nominal_device();
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-synthetic-h100";
  return d;
}

DeviceInfo h200() {
  DeviceInfo d = nominal_device();
  d.name = "NVIDIA H200";
  d.uuid = "GPU-synthetic-h200";
  d.memory_clock_khz = 3201000;
  d.memory_bus_width_bits = 6144;
  d.l2_bytes = int64_t(60) << 20;
  d.total_memory_bytes = 150110011392;
  return d;
}

// A deterministic share in [0, 1) of a point: the same point gets the same share in every run.
double share_of(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text)
    h = (h ^ c) * 1099511628211ull;
  return double(h % 1000) / 1000.0;
}

// A figure of `metric` at a point: a share of the device's limit for bandwidths, a plausible
// magnitude for other units. Only its being positive and finite matters to the charts.
double figure(const Metric& metric, double share, const DeviceInfo& device) {
  if (metric.unit == "GB/s") {
    const double limit = metric.limit == LimitKind::pcie ? *device.theoretical_pcie_gbs()
                                                         : device.theoretical_bandwidth_gbs();
    return limit * (0.55 + 0.4 * share);
  }
  if (metric.unit == "ns")
    return 30 + 800 * share;
  if (metric.unit == "cycles")
    return (30 + 800 * share) * 1.98;
  if (metric.unit == "1")
    return 0.5 + 0.45 * share;
  return (1 + 9 * share) * (metric.unit == "GFLOP/s" ? 1000 : 1);
}

// The chart-declared value of an x param: the median of its planned values, so a rule placed
// there lands inside the axis.
std::map<std::string, double> x_medians(const Declaration& d,
                                        const std::vector<PlannedPoint>& plan) {
  std::map<std::string, double> medians;
  for (const Chart& c : d.charts) {
    std::vector<double> xs;
    for (const PlannedPoint& p : plan)
      if (p.params.contains(c.x) && p.params[c.x].is_number())
        xs.push_back(p.params[c.x].get<double>());
    if (!xs.empty())
      medians[c.x] = summarize(xs).median;
  }
  return medians;
}

// What the charts read from extra, beside the core's keys: the model, the ideal, rules, notes,
// markers, rows and caption figures, with values the charts can place.
void add_chart_extras(const Declaration& d, const std::vector<PlannedPoint>& plan,
                      const std::string& metric, double value, Measurement& m) {
  const auto xs = x_medians(d, plan);
  for (const Chart& c : d.charts) {
    const double x = xs.count(c.x) ? xs.at(c.x) : 1.0;
    if (c.metric == metric && !c.model_extra.empty())
      m.extra[c.model_extra] = value * 0.97;
    if (c.metric == metric && !c.ideal_extra.empty())
      m.extra[c.ideal_extra] = 1.0 + 3 * share_of(m.params.dump());
    if (c.metric == metric && !c.marker_extra.empty())
      m.extra[c.marker_extra] = share_of(m.params.dump()) < 0.5 ? 1 : 64;
    if (c.metric == metric && !c.y_extra.empty())
      m.extra[c.y_extra] = 16;
    for (const RuleSpec& r : c.rules)
      if (r.metric == metric && r.from == RuleSpec::From::extra)
        m.extra[r.extra] = x / r.scale;
    for (const NoteSpec& n : c.notes)
      if (n.metric == metric && !n.x_extra.empty())
        for (const PlannedPoint& p : plan)
          if (p.params.contains(c.x)) {
            m.extra[n.x_extra] = p.params[c.x];
            break;
          }
    for (const auto& [name, words] : c.caption_figures)
      if (name == metric)
        m.extra["ci95"] = {value * 0.99, value * 1.01};
  }
}

// A rule drawn at a metric's own figure along x (a knee, a crossing) is placed inside the axis.
std::optional<double> rule_figure(const Declaration& d, const std::vector<PlannedPoint>& plan,
                                  const std::string& metric) {
  const auto xs = x_medians(d, plan);
  for (const Chart& c : d.charts)
    for (const RuleSpec& r : c.rules)
      if (r.metric == metric && r.from == RuleSpec::From::metric && r.vertical && xs.count(c.x))
        return xs.at(c.x) / r.scale;
  return std::nullopt;
}

Measurement point_of(const Declaration& d, const std::vector<PlannedPoint>& plan,
                     const PlannedPoint& p, const Metric& metric, const DeviceInfo& device,
                     double efficiency, int run) {
  Measurement m;
  m.experiment = d.name;
  m.params = p.params;
  m.metric = metric.name;
  m.unit = metric.unit;
  m.direction = metric.direction;
  m.verified = true;
  const double value =
      rule_figure(d, plan, metric.name)
          .value_or(figure(metric, share_of(p.params.dump() + metric.name), device) *
                    (metric.unit == "GB/s" ? efficiency : 1.0));
  for (int i = 0; i < samples_per_point; ++i)
    m.samples.push_back(value * (1 + 0.004 * std::sin(1.3 * i + 0.7 * run)));
  m.excluded.assign(m.samples.size(), 0);
  if (metric.unit == "GB/s" && metric.limit == LimitKind::dram) {
    // What a launch's Little's-law bound reads.
    m.extra[keys::bytes_moved] = double(size_t(1) << 31);
    m.extra[keys::access_type] = access::copy;
    m.extra[keys::launch] = {{launch_keys::block_size, 256},
                             {launch_keys::grid_size, 1 << 20},
                             {launch_keys::max_active_blocks_per_sm, 8}};
  }
  add_chart_extras(d, plan, metric.name, value, m);
  m.metric_class = metric.class_of(m.params, m.extra);
  return m;
}

RunRecord run_of(const DeviceInfo& device, int index, const std::string& label, double efficiency) {
  RunRecord r;
  char id[33];
  std::snprintf(id, sizeof id, "%032x", 0x5e7000 + index);
  r.id = id;
  r.label = label;
  r.started_at = "2026-11-2" + std::to_string(index % 8 + 1) + "T0" + std::to_string(index % 10) +
                 ":00:00.000Z";
  r.finished_at = r.started_at;
  r.status = "complete";
  r.apod_version = synthetic;
  r.device = device;
  r.environment.host = "synthetic-host";
  PlanInput in;
  in.device = device;
  for (const Declaration& d : declarations()) {
    if (d.hidden || !d.plan)
      continue;
    ExperimentRecord e;
    e.name = d.name;
    e.version = d.version;
    e.started_at = r.started_at;
    const std::vector<PlannedPoint> plan = d.plan(in);
    // Every planned point, conditional ones too (host_transfer's batched series): a run in
    // which every condition held.
    for (const PlannedPoint& p : plan)
      for (const std::string& name : p.metrics)
        e.measurements.push_back(
            point_of(d, plan, p, *d.find_metric(name), device, efficiency, index));
    r.experiments.push_back(std::move(e));
  }
  return r;
}

void write(const std::string& path, const json& document) {
  std::ofstream out(path);
  out << document.dump() << "\n";
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

json references(const std::string& dir) {
  json all = json::array();
  for (const char* name : {"best_practices_guide.json", "stich_slides.json", "fasiha_gist.json",
                           "notes_on_cuda.json", "pascal_tuning_guide.json"}) {
    std::ifstream in(dir + "/" + name);
    if (!in)
      throw std::runtime_error("missing reference document " + dir + "/" + name);
    all.push_back(json::parse(in));
  }
  return all;
}

json document(const std::vector<RunRecord>& runs) {
  json doc = results_document(runs);
  doc["generator"] = synthetic;
  return doc;
}

} // namespace
} // namespace apod

int main(int argc, char** argv) try {
  using namespace apod;
  if (argc != 3) {
    std::cerr << "usage: make_matrix_fixture OUT_DIR REFERENCE_DIR\n";
    return 2;
  }
  const std::string out = argv[1];
  write(out + "/synthetic_matrix.json",
        document({run_of(h200(), 0, "nightly", 0.97), run_of(h200(), 1, "nightly", 0.96),
                  run_of(h100(), 2, "h100", 0.95)}));
  std::vector<RunRecord> many;
  for (int i = 0; i < 12; ++i)
    many.push_back(i < 10 ? run_of(h200(), 10 + i, "", 0.95 + 0.002 * (i % 4))
                          : run_of(h100(), 10 + i, "", 0.94));
  write(out + "/synthetic_matrix_many.json", document(many));
  PlanInput nominal;
  write(out + "/synthetic_matrix_catalog.json",
        {{"format", "apod-catalog"}, {"version", 1}, {"experiments", catalog_json(&nominal)}});
  write(out + "/matrix_references.json", references(argv[2]));
  return 0;
} catch (const std::exception& e) {
  std::cerr << "make_matrix_fixture: " << e.what() << "\n";
  return 1;
}
