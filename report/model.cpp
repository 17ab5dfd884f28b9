#include "model.hpp"

#include "aggregate.hpp"
#include "format.hpp"

#include "core/results_json.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace apod::report {

const PointView* MetricView::best() const {
  const PointView* best = nullptr;
  for (const auto& point : points) {
    if (!point.ok)
      continue;
    if (!best || (higher_is_better ? point.median > best->median : point.median < best->median))
      best = &point;
  }
  return best;
}

int MetricView::ok_count() const {
  return static_cast<int>(
      std::count_if(points.begin(), points.end(), [](const PointView& p) { return p.ok; }));
}

std::string MetricView::title() const {
  return declared && !declared->title.empty() ? declared->title : display_name(metric);
}

const MetricView* ExperimentView::headline() const {
  if (declaration->metrics.empty()) // an undeclared experiment that stored no point: it failed
    return nullptr;
  const std::string name = declaration->headline_metric().name; // the runner's rule too
  for (const auto& metric : metrics)
    if (metric.metric == name)
      return &metric;
  // Another version that did not record the declared headline: its first figure in GB/s, else
  // its first.
  for (const auto& metric : metrics)
    if (metric.unit == "GB/s")
      return &metric;
  return metrics.empty() ? nullptr : &metrics.front();
}

std::vector<const MetricView*> ExperimentView::headline_metrics() const {
  std::vector<const MetricView*> figures;
  if (const MetricView* first = headline())
    figures.push_back(first);
  return figures;
}

const Param* ExperimentView::param(const std::string& key) const {
  return declaration ? declaration->find_param(key) : nullptr;
}

std::string ExperimentView::param_text(const std::string& key, const json& value) const {
  const Param* declared = param(key);
  if (!declared)
    return format_param_value(key, value);
  if (value.is_string())
    return declared->label_of(value);
  if (value.is_number() && declared->unit == "bytes")
    return format_bytes(value.get<double>());
  if (value.is_number() && !declared->unit.empty())
    return format_count(value.get<double>(), declared->unit);
  return format_param_value(key, value);
}

std::string ExperimentView::param_title(const std::string& key) const {
  const Param* declared = param(key);
  return declared && !declared->title.empty() ? declared->title : display_name(key);
}

std::vector<const RunView*> PageModel::runs_of_model(const std::string& model) const {
  std::vector<const RunView*> found;
  for (const auto& run : runs)
    if (run.device_model == model)
      found.push_back(&run);
  std::stable_sort(found.begin(), found.end(), [](const RunView* a, const RunView* b) {
    return std::tie(a->started_at, a->index) < std::tie(b->started_at, b->index);
  });
  return found;
}

bool PageModel::any_peak() const {
  return std::any_of(runs.begin(), runs.end(), [](const RunView& r) { return r.peak_gbs; });
}

std::vector<std::string> PageModel::runs_without_peak() const {
  std::vector<std::string> names;
  for (const auto& run : runs)
    if (!run.peak_gbs)
      names.push_back(run.name);
  return names;
}

namespace {

std::optional<double> positive_number(const json& object, const char* key) {
  if (!has_number(object, key))
    return std::nullopt;
  const double value = object.at(key).get<double>();
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

std::optional<double> positive(std::optional<double> value) {
  return value && *value > 0 ? value : std::nullopt;
}

std::optional<double> median_power(const std::vector<TelemetryReading>& telemetry) {
  std::vector<double> watts;
  for (const TelemetryReading& reading : telemetry)
    if (reading.power_w)
      watts.push_back(*reading.power_w);
  if (watts.empty())
    return std::nullopt;
  return summarize(watts).median;
}

// A run's name is its series in every chart, so it must be unique: 100 runs all labelled
// "nightly" must stay apart. Shared or empty labels get the shortest id prefix that separates
// them; identical ids (a document that holds one run twice) get a position.
void name_runs(std::vector<RunView>& runs, std::map<std::string, int>& label_uses) {
  for (const std::size_t id_chars : {8, 12, 16, 32}) {
    std::map<std::string, int> name_uses;
    for (auto& view : runs) {
      const std::string& label = view.run->label;
      const std::string id_prefix = view.id.substr(0, id_chars);
      if (label.empty())
        view.name = "run " + id_prefix;
      else if (label_uses[label] > 1)
        view.name = label + " (" + id_prefix + ")";
      else
        view.name = label;
      name_uses[view.name]++;
    }
    if (std::all_of(name_uses.begin(), name_uses.end(),
                    [](const auto& u) { return u.second == 1; }))
      return;
  }
  for (std::size_t i = 0; i < runs.size(); ++i)
    runs[i].name += " #" + std::to_string(i + 1);
}

std::vector<RunView> collect_runs(const std::vector<RunRecord>& stored) {
  std::vector<RunView> runs;
  std::map<std::string, int> label_uses;
  for (const auto& run : stored)
    label_uses[run.label]++;
  for (const auto& run : stored) {
    RunView view;
    view.run = &run;
    view.index = runs.size();
    view.id = run.id;
    view.started_at = run.started_at;
    view.device_model = run.device.name.empty() ? "unknown device" : run.device.name;
    view.device_key = run.device.uuid.empty() ? view.device_model : run.device.uuid;
    view.host = run.environment.host;
    view.commit = run.environment.apod_commit;
    const std::string uuid = run.device.uuid.empty() ? view.device_model : run.device.uuid;
    view.machine_key = view.host + "\n" + uuid;
    const std::string gpu = uuid.rfind("GPU-", 0) == 0 ? std::string(text_prefix(uuid, 12)) : uuid;
    view.machine_label = view.host.empty() ? gpu : view.host + " · " + gpu;
    view.started_s = seconds_since_epoch(run.started_at);
    view.median_power_w = median_power(run.telemetry);
    view.dram_gbs = positive(run.device.theoretical_bandwidth_gbs());
    view.pcie_gbs = positive(run.device.theoretical_pcie_gbs());
    runs.push_back(std::move(view));
  }
  name_runs(runs, label_uses);
  return runs;
}

std::string_view intern(PageModel& page, std::string text) {
  return *page.interned.insert(std::move(text)).first;
}

PointView make_point(const Measurement& measurement, const RunView& run) {
  PointView point;
  point.measurement = &measurement;
  point.run = &run;
  const PointStatus status = point_status(measurement);
  point.ok = status.ok();
  point.failure = status.reason;
  point.samples = sample_counts(measurement);
  if (!point.ok)
    return point;
  const Summary s = summarize(measurement.used_samples());
  point.median = s.median;
  point.min = s.min;
  point.max = s.max;
  point.ci_low = s.ci_low;
  point.ci_high = s.ci_high;
  point.noisy = measurement.noisy;
  return point;
}

// The run's achievable peak: its best verified achievable_peak point in GB/s (peak_copy records
// one), and the best of each access type (achievable_peak_by_access, params[access_type]).
void find_peak(RunView& run) {
  for (const Measurement* measurement : run.run->measurements()) {
    const bool overall = measurement->metric == keys::achievable_peak;
    if ((!overall && measurement->metric != keys::access_peak) || measurement->unit != "GB/s")
      continue;
    const PointView point = make_point(*measurement, run);
    if (!point.ok || point.median <= 0)
      continue;
    if (overall && (!run.peak_gbs || point.median > *run.peak_gbs))
      run.peak_gbs = point.median;
    const std::string type = string_at(measurement->params, keys::access_type);
    if (!overall && !type.empty())
      run.access_peak_gbs[type] = std::max(run.access_peak_gbs[type], point.median);
  }
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// An experiment the catalog lacks (another build's, or one since removed) gets a declaration
// made from its stored points: every param and metric as stored, titled by its name, derived
// and read against no limit, and one generic chart per metric (its first param across).
Declaration undeclared(const ExperimentView& experiment) {
  Declaration d;
  d.name = d.title = experiment.name;
  for (const auto& key : experiment.param_keys)
    d.params.push_back({.key = key, .title = display_name(key)});
  for (const auto& metric : experiment.metrics) {
    d.metrics.push_back(
        {.name = metric.metric,
         .unit = metric.unit,
         .direction = metric.higher_is_better ? Direction::higher : Direction::lower});
  }
  return d;
}

void declare(PageModel& page, ExperimentView& experiment) {
  const auto known = std::find_if(page.catalog.begin(), page.catalog.end(),
                                  [&](const Declaration& d) { return d.name == experiment.name; });
  experiment.in_catalog = known != page.catalog.end();
  experiment.declaration =
      experiment.in_catalog ? &*known : &page.undeclared.emplace_back(undeclared(experiment));
  const Declaration& d = *experiment.declaration;
  experiment.title = d.title;
  experiment.description = d.description;
  experiment.citation = d.citation;
  experiment.order = experiment.in_catalog ? d.order : 0;
  experiment.chapter = d.chapter;
  if (experiment.in_catalog)
    experiment.catalog_version = d.version;
  for (auto& metric : experiment.metrics) {
    metric.declared = d.find_metric(metric.metric);
    // A stored unit other than the declared one (another version): not the declared figure.
    if (metric.declared && metric.declared->unit != metric.unit)
      metric.declared = nullptr;
  }
}

std::string anchor_for(const std::string& name, int index) {
  std::string anchor = "exp-" + std::to_string(index) + "-";
  for (const char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    anchor += safe ? c : '-';
  }
  return anchor;
}

// The access type a DRAM figure is read against: its params' or extra's access_type, when its
// run measured a peak of that type.
std::string access_type_of(const PointView& point) {
  std::string type = string_at(point.measurement->params, keys::access_type);
  if (type.empty())
    type = string_at(point.measurement->extra, keys::access_type);
  return point.run->access_peak_gbs.count(type) ? type : "";
}

// The runner's rule (core/vocabulary.hpp): a point's own limit replaces its device's
// (docs/results-format.md: zero copy uses both directions of the PCIe link); figures in other
// units are read against their own extra.limit where the experiment stored one.
void set_limit(PageModel& page, PointView& point, const MetricView& metric) {
  DeviceInfo limits; // only the stored limits matter here
  const json& extra = point.measurement->extra;
  const bool own = has_number(extra, keys::limit_gbs);
  const LimitKind kind = metric.limit();
  if (own)
    point.limit_gbs = limit_gbs(kind, limits, metric.unit, extra);
  else if (metric.unit == "GB/s")
    point.limit_gbs = kind == LimitKind::dram   ? point.run->dram_gbs
                      : kind == LimitKind::pcie ? point.run->pcie_gbs
                                                : std::nullopt;
  point.own_limit = own && point.limit_gbs;
  point.limit_value = point.limit_gbs;
  if (point.limit_gbs) {
    point.limit_text = intern(page, limit_words(kind, extra));
  } else if (metric.unit != "GB/s" && has_number(extra, keys::limit) &&
             extra.at(keys::limit).get<double>() > 0) {
    point.limit_value = extra.at(keys::limit).get<double>();
    point.unit_limit = point.limit_value;
    point.limit_text = intern(page, string_at(extra, keys::limit_label, own_limit_phrase));
  }
}

void compare_with_limits(PageModel& page, ExperimentView& experiment) {
  for (auto& metric : experiment.metrics) {
    for (auto& point : metric.points) {
      set_limit(page, point, metric);
      if (point.ok)
        point.pct_of_limit = percent_of(point.median, point.limit_value);
      if (point.ok && experiment.compares_with_peak(metric)) {
        point.peak_access_type = access_type_of(point);
        point.pct_of_peak = percent_of(
            point.median,
            point.peak_access_type.empty()
                ? point.run->peak_gbs
                : std::optional<double>(point.run->access_peak_gbs.at(point.peak_access_type)));
      }
    }
  }
}

} // namespace

PageModel build_page_model(const json& results, const json& catalog) {
  std::vector<RunRecord> records = runs_from_document(results);
  PageModel page = build_page_model(records, catalog);
  // The views point into the records' heap storage, which the move hands over intact.
  page.records = std::move(records);
  return page;
}

PageModel build_page_model(const std::vector<RunRecord>& stored, const json& catalog) {
  PageModel page;
  page.runs = collect_runs(stored);
  for (auto& run : page.runs) {
    find_peak(run);
    if (!contains(page.device_models, run.device_model))
      page.device_models.push_back(run.device_model);
  }

  std::map<std::string, std::size_t> index_of;
  auto experiment_named = [&](const std::string& name) -> ExperimentView& {
    auto [it, added] = index_of.try_emplace(name, page.experiments.size());
    if (added)
      page.experiments.emplace_back().name = name;
    return page.experiments[it->second];
  };

  for (const auto& run : page.runs) {
    for (const auto& attempted : run.run->experiments) {
      ExperimentView& experiment = experiment_named(attempted.name);
      if (!std::count(experiment.measured_versions.begin(), experiment.measured_versions.end(),
                      attempted.version))
        experiment.measured_versions.push_back(attempted.version);
      if (attempted.status == "failed")
        experiment.failures.push_back(
            {&run, attempted.error.empty() ? "failed without a message" : attempted.error});
      for (const auto& measurement : attempted.measurements) {
        for (const auto& [key, value] : measurement.params.items())
          if (!contains(experiment.param_keys, key))
            experiment.param_keys.push_back(key);
        auto metric = std::find_if(
            experiment.metrics.begin(), experiment.metrics.end(), [&](const MetricView& m) {
              return m.metric == measurement.metric && m.unit == measurement.unit;
            });
        if (metric == experiment.metrics.end()) {
          metric = experiment.metrics.emplace(experiment.metrics.end());
          metric->metric = measurement.metric;
          metric->unit = measurement.unit;
          metric->higher_is_better = measurement.direction == Direction::higher;
        }
        metric->points.push_back(make_point(measurement, run));
        metric->points.back().key = &*page.point_keys.insert(PointKey::of(measurement)).first;
      }
    }
  }

  page.catalog = catalog_from_json(catalog);
  for (auto& experiment : page.experiments) {
    declare(page, experiment);
    compare_with_limits(page, experiment);
    for (auto& metric : experiment.metrics)
      metric.across = group_across_runs(metric);
  }
  std::stable_sort(page.experiments.begin(), page.experiments.end(),
                   [](const auto& a, const auto& b) {
                     return std::tuple(!a.in_catalog, a.order, a.name) <
                            std::tuple(!b.in_catalog, b.order, b.name);
                   });
  for (std::size_t i = 0; i < page.experiments.size(); ++i)
    page.experiments[i].anchor = anchor_for(page.experiments[i].name, static_cast<int>(i) + 1);
  return page;
}

std::vector<PointAcrossRuns> group_across_runs(const MetricView& metric) {
  std::vector<PointAcrossRuns> groups;
  // The device model beside the point's key, interned: one address per point, so the key
  // compares pointers.
  std::map<std::pair<std::string_view, const PointKey*>, std::size_t> index_of;
  for (const auto& point : metric.points) {
    if (!point.ok)
      continue;
    const json& params = point.measurement->params;
    const auto key = std::pair(std::string_view(point.run->device_model), point.key);
    auto [it, added] = index_of.try_emplace(key, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().device_model = point.run->device_model;
      groups.back().params = &params;
    }
    groups[it->second].points.push_back(&point);
  }
  for (auto& group : groups)
    summarise_across_runs(group);
  return groups;
}

std::optional<double> published_pct_of_limit(const json& figure, LimitKind kind) {
  const char* field = kind == LimitKind::pcie   ? "theoretical_pcie_gbs"
                      : kind == LimitKind::dram ? "theoretical_bandwidth_gbs"
                                                : nullptr;
  if (!field || string_at(figure, "unit") != "GB/s" || !has_number(figure, "value"))
    return std::nullopt;
  return percent_of(figure.at("value").get<double>(), positive_number(figure, field));
}

LimitKind declared_limit(const ExperimentView& experiment, const std::string& metric) {
  const Metric* declared = experiment.declaration->find_metric(metric);
  return declared ? declared->limit : LimitKind::none;
}

std::string ci_text(const PointView& point, const std::string& unit) {
  if (!point.ci_low || !point.ci_high)
    return "—";
  return format_with_unit(*point.ci_low, unit) + " – " + format_with_unit(*point.ci_high, unit);
}

} // namespace apod::report
