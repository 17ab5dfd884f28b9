#include "headlines.hpp"

#include "aggregate.hpp"
#include "core/catalog.hpp"
#include "core/measurement.hpp"
#include "format.hpp"

#include <algorithm>
#include <map>

namespace apod::report {

std::optional<double> HeadlineSeries::spread_pct() const {
  if (points.empty() || median == 0)
    return std::nullopt;
  return 100.0 * (max - min) / std::abs(median);
}

const PointView* HeadlineSeries::point_in(const RunView* run) const {
  for (const PointView* point : points)
    if (point->run == run)
      return point;
  return nullptr;
}

std::string HeadlineSeries::title(bool with_model) const {
  std::string text = experiment->title + ": " + display_name(metric->metric);
  return with_model ? text + " · " + device_model : text;
}

namespace {

// The series follows the headline's point (PointKey, interned: one address per point) through
// the runs where it is comparable: the same comparability key (driver branch and experiment
// version too, docs/results-format.md), unless the results store none.
bool same_figure(const PointView& point, const HeadlineSeries& series) {
  return point.key == series.headline->key &&
         (series.key.empty() || point.measurement->comparability_key == series.key);
}

void summarise(HeadlineSeries& series) {
  summarise_across_runs(series);
}

using PointsByRun = std::map<const RunView*, std::vector<const PointView*>>;

// The headline point of the newest run that has one, chosen by the run summary's rule
// (headline_point, core/catalog.hpp) among that run's verified points of the metric.
const PointView* newest_headline(const ExperimentView& experiment,
                                 const std::vector<const RunView*>& runs,
                                 const PointsByRun& ok_points) {
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    const auto found = ok_points.find(*run);
    if (found == ok_points.end())
      continue;
    std::vector<const Measurement*> measured;
    for (const PointView* point : found->second)
      measured.push_back(point->measurement);
    if (const Measurement* chosen = headline_point(*experiment.declaration, measured))
      return found->second[std::find(measured.begin(), measured.end(), chosen) - measured.begin()];
  }
  return nullptr;
}

// The series of one metric on one device model, or nothing when no run of it has a verified point.
std::optional<HeadlineSeries> follow(const PageModel& page, const ExperimentView& experiment,
                                     const MetricView& metric, const std::string& model) {
  const std::vector<const RunView*> runs = page.runs_of_model(model);
  PointsByRun ok_points;
  for (const auto& point : metric.points)
    if (point.ok && point.run->device_model == model)
      ok_points[point.run].push_back(&point);

  HeadlineSeries series;
  series.experiment = &experiment;
  series.metric = &metric;
  series.device_model = model;
  series.model_runs = runs.size();
  series.headline = newest_headline(experiment, runs, ok_points);
  if (!series.headline)
    return std::nullopt;
  series.key = series.headline->measurement->comparability_key;
  for (const RunView* run : runs)
    for (const PointView* point : ok_points[run])
      if (same_figure(*point, series)) {
        series.points.push_back(point);
        break;
      }
  summarise(series);
  return series;
}

} // namespace

std::vector<HeadlineSeries> headline_series(const PageModel& page) {
  std::vector<HeadlineSeries> all;
  for (const auto& experiment : page.experiments)
    for (const auto& model : page.device_models)
      for (const MetricView* metric : experiment.headline_metrics())
        if (auto series = follow(page, experiment, *metric, model))
          all.push_back(std::move(*series));
  return all;
}

} // namespace apod::report
