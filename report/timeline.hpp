// The history as a timeline: every figure (experiment, metric, parameters) of a device model
// followed through its runs, one series per machine (host + GPU uuid: two H200s are two series,
// as issue 11's change points need), with the change points apod::detect_steps finds in each
// series (runner/analysis/history.hpp, docs/history.md) and the baseline compare's verdict.
#pragma once

#include "headlines.hpp"
#include "verdict.hpp"

#include "analysis/history.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// One machine: the runs of one GPU on one host.
struct Machine {
  std::string key, label, model, colour;
  std::vector<const RunView*> runs; ///< oldest first
};

struct MachineSeries {
  const Machine* machine = nullptr;
  std::vector<const PointView*> points; ///< the figure in each of the machine's runs that has it
  /// Change points of the points' medians; nothing when the series is too short to decide
  /// (fewer than min_window + confirm runs).
  std::optional<std::vector<ChangePoint>> steps;
};

struct FigureHistory {
  const ExperimentView* experiment = nullptr;
  const MetricView* metric = nullptr;
  const json* params = nullptr;
  std::string model;
  bool headline = false;                 ///< a headline figure of this model (HeadlineSeries)
  std::vector<MachineSeries> series;     ///< per machine that measured it, in machine order
  const PointVerdict* verdict = nullptr; ///< its pair in the baseline compare, if it has one

  std::size_t point_count() const;
  /// The newest point of any machine.
  const PointView* newest() const;
  std::size_t step_count() const;
};

struct Timeline {
  std::vector<Machine> machines; ///< models in page order, each model's machines by first run
  /// Models with two or more runs, in page order; per model its headline figures first, then
  /// every other figure in experiment and metric order.
  std::vector<FigureHistory> figures;
  std::vector<std::string> models; ///< the models that have a history

  std::vector<const Machine*> machines_of(const std::string& model) const;
};

/// The timeline of every figure measured in two or more runs of its device model.
Timeline build_timeline(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                        const BaselineVerdict& verdict, const StepDetector& detector = {});

/// The change points of a series of medians (oldest first), or nothing when it is too short.
std::optional<std::vector<ChangePoint>> change_points(const std::vector<double>& medians,
                                                      const StepDetector& detector = {});

} // namespace apod::report
