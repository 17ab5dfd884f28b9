#include "timeline.hpp"

#include "palette.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace apod::report {

std::size_t FigureHistory::point_count() const {
  std::size_t count = 0;
  for (const auto& s : series)
    count += s.points.size();
  return count;
}

const PointView* FigureHistory::newest() const {
  const PointView* newest = nullptr;
  for (const auto& s : series)
    if (!s.points.empty() &&
        (!newest || std::tie(s.points.back()->run->started_at, s.points.back()->run->index) >
                        std::tie(newest->run->started_at, newest->run->index)))
      newest = s.points.back();
  return newest;
}

std::size_t FigureHistory::step_count() const {
  std::size_t count = 0;
  for (const auto& s : series)
    count += s.steps ? s.steps->size() : 0;
  return count;
}

std::vector<const Machine*> Timeline::machines_of(const std::string& model) const {
  std::vector<const Machine*> found;
  for (const auto& machine : machines)
    if (machine.model == model)
      found.push_back(&machine);
  return found;
}

std::size_t RunOrder::ordinal(const RunView* run) const {
  const auto at = ordinals.find(run);
  return at == ordinals.end() ? 0 : at->second;
}

const RunOrder& Timeline::order_of(const std::string& model) const {
  for (const auto& order : orders)
    if (order.model == model)
      return order;
  throw std::out_of_range("no run order for " + model);
}

std::string gap_text(double seconds) {
  const double hours = seconds / 3600;
  return hours < 48 ? fmt::format("{:.0f} h", hours) : fmt::format("{:.0f} d", hours / 24);
}

std::vector<Gap> find_gaps(const std::vector<std::optional<double>>& started_s) {
  std::vector<std::pair<std::size_t, double>> intervals; // (ordinal before, seconds)
  for (std::size_t i = 1; i < started_s.size(); ++i)
    if (started_s[i - 1] && started_s[i])
      intervals.emplace_back(i, *started_s[i] - *started_s[i - 1]);
  if (intervals.size() < 2) // one interval has nothing to be unusual against
    return {};
  std::vector<double> seconds;
  for (const auto& interval : intervals)
    seconds.push_back(interval.second);
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double usual = seconds[seconds.size() / 2];
  std::vector<Gap> gaps;
  for (const auto& [before, length] : intervals)
    if (length > gap_factor * usual && length > gap_min_s)
      gaps.push_back({before, length, gap_text(length)});
  return gaps;
}

std::optional<std::vector<ChangePoint>> change_points(const std::vector<double>& medians,
                                                      const StepDetector& detector) {
  if (medians.size() < static_cast<std::size_t>(detector.min_window + detector.confirm))
    return std::nullopt;
  return apod::detect_steps(medians, detector);
}

namespace {

std::vector<Machine> machines_of_model(const PageModel& page, const std::string& model) {
  std::vector<Machine> machines;
  for (const RunView* run : page.runs_of_model(model)) {
    auto it = std::find_if(machines.begin(), machines.end(),
                           [&](const Machine& m) { return m.key == run->machine_key; });
    if (it == machines.end())
      it = machines.insert(machines.end(),
                           Machine{run->machine_key, run->machine_label, model, "", {}});
    it->runs.push_back(run);
  }
  // Machines of one model are told apart by colour; their names hash to stable colours.
  std::vector<std::string> labels;
  for (const auto& machine : machines)
    labels.push_back(machine.label);
  const auto colours = stable_colours(labels);
  for (std::size_t i = 0; i < machines.size(); ++i)
    machines[i].colour = colours[i];
  return machines;
}

bool is_headline(const std::vector<HeadlineSeries>& headlines, const ExperimentView& experiment,
                 const MetricView& metric, const std::string& model, const PointView& point) {
  return std::any_of(headlines.begin(), headlines.end(), [&](const HeadlineSeries& s) {
    return s.experiment == &experiment && s.metric == &metric && s.device_model == model &&
           s.headline->key == point.key; // interned: one address per point
  });
}

// The figures of one metric on one model: a figure per parameter set, a series per machine.
void add_metric(std::vector<FigureHistory>& figures, const std::vector<const Machine*>& machines,
                const ExperimentView& experiment, const MetricView& metric,
                const std::string& model) {
  std::unordered_map<const PointKey*, std::size_t> figure_of; // interned: one address per point
  const std::size_t first = figures.size();
  for (const auto& point : metric.points) {
    if (!point.ok || point.run->device_model != model)
      continue;
    auto [it, added] = figure_of.try_emplace(point.key, figures.size());
    if (added) {
      FigureHistory figure;
      figure.experiment = &experiment;
      figure.metric = &metric;
      figure.params = &point.measurement->params;
      figure.model = model;
      for (const Machine* machine : machines)
        figure.series.push_back({machine, {}, std::nullopt});
      figures.push_back(std::move(figure));
    }
    auto& series = figures[it->second].series;
    const auto machine = std::find_if(series.begin(), series.end(), [&](const MachineSeries& s) {
      return s.machine->key == point.run->machine_key;
    });
    machine->points.push_back(&point);
  }
  // Figures with a single point have no history; machines that never measured one are dropped.
  figures.erase(std::remove_if(figures.begin() + first, figures.end(),
                               [](const FigureHistory& f) { return f.point_count() < 2; }),
                figures.end());
  for (auto f = figures.begin() + first; f != figures.end(); ++f)
    f->series.erase(std::remove_if(f->series.begin(), f->series.end(),
                                   [](const MachineSeries& s) { return s.points.empty(); }),
                    f->series.end());
}

void order_and_detect(FigureHistory& figure, const StepDetector& detector) {
  for (auto& series : figure.series) {
    std::stable_sort(series.points.begin(), series.points.end(),
                     [](const PointView* a, const PointView* b) {
                       return std::tie(a->run->started_at, a->run->index) <
                              std::tie(b->run->started_at, b->run->index);
                     });
    std::vector<double> medians;
    for (const PointView* point : series.points)
      medians.push_back(point->median);
    series.steps = change_points(medians, detector);
  }
}

} // namespace

Timeline build_timeline(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                        const BaselineVerdict& verdict, const StepDetector& detector) {
  Timeline timeline;
  for (const auto& model : page.device_models)
    if (page.runs_of_model(model).size() >= 2) {
      timeline.models.push_back(model);
      RunOrder order{model, page.runs_of_model(model), {}};
      std::vector<std::optional<double>> started;
      for (const RunView* run : order.runs) {
        started.push_back(run->started_s);
        order.ordinals.emplace(run, started.size());
      }
      order.gaps = find_gaps(started);
      timeline.orders.push_back(std::move(order));
      for (auto& machine : machines_of_model(page, model))
        timeline.machines.push_back(std::move(machine));
    }
  // Pointers into machines are taken only now that the vector is complete.
  for (const auto& model : timeline.models) {
    const std::vector<const Machine*> machines = timeline.machines_of(model);
    std::vector<FigureHistory> figures;
    for (const auto& experiment : page.experiments)
      for (const auto& metric : experiment.metrics)
        add_metric(figures, machines, experiment, metric, model);
    for (auto& figure : figures) {
      const PointView& any = *figure.series.front().points.front();
      figure.headline = is_headline(headlines, *figure.experiment, *figure.metric, model, any);
      if (verdict.baseline && verdict.baseline->device_model == model)
        figure.verdict = verdict.pair_for(*any.key);
      order_and_detect(figure, detector);
    }
    std::stable_partition(figures.begin(), figures.end(),
                          [](const FigureHistory& f) { return f.headline; });
    for (auto& figure : figures)
      timeline.figures.push_back(std::move(figure));
  }
  return timeline;
}

} // namespace apod::report
