// The history as a timeline: every figure (experiment, metric, parameters) of a device model
// followed through its runs, one series per machine (host + GPU uuid: two H200s are two series,
// as issue 11's change points need), with the change points apod::detect_steps finds in each
// series (runner/analysis/history.hpp, docs/history.md) and the baseline compare's verdict.
//
// Issue 25: the history is drawn in run order, not on a wall clock. Each device model's runs are
// numbered 1..N in start order (RunOrder), so a batch of 12 runs in 7 minutes and a run 8 hours
// later are 13 evenly spaced points rather than a tick and a straight line across the night. The
// time the axis no longer shows is marked where it matters: a pause much longer than the model's
// usual interval (Gap) is drawn as a dashed rule with its length, and no line is drawn across it.
#pragma once

#include "headlines.hpp"
#include "verdict.hpp"

#include "analysis/history.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace apod::report {

/// One machine: the runs of one GPU on one host.
struct Machine {
  std::string key, label, model, colour;
  std::vector<const RunView*> runs; ///< oldest first
};

/// A pause between two consecutive runs of a model: more than gap_factor times the model's median
/// interval between consecutive runs and more than gap_min_s. Both, because nightly runs with a
/// missed night (2x the usual interval) are no news, and because runs in batches minutes apart
/// (the committed runs: 73 H200 runs in 2026-11-22..26, a median interval of minutes) would
/// otherwise mark every coffee break; 6 hours is a night or a working day, another sitting.
struct Gap {
  std::size_t after = 0; ///< the 1-based ordinal of the run before the pause
  double seconds = 0;
  std::string text; ///< its length as a chart labels it: "8 h", "3 d"
};
inline constexpr double gap_factor = 6;
inline constexpr double gap_min_s = 6 * 3600;

/// A device model's runs in start order: run k (1-based) is ordinal k on every history chart.
struct RunOrder {
  std::string model;
  std::vector<const RunView*> runs; ///< oldest first (PageModel::runs_of_model)
  std::vector<Gap> gaps;            ///< in run order
  std::unordered_map<const RunView*, std::size_t> ordinals; ///< run -> its ordinal (1..N)
  /// The ordinal of `run` (1..N), or 0 when it is not a run of this model.
  std::size_t ordinal(const RunView* run) const;
};

/// The gaps of runs started at `started_s` (seconds since 1970, oldest first; a run without a
/// start time breaks no interval and makes none).
std::vector<Gap> find_gaps(const std::vector<std::optional<double>>& started_s);

/// A duration as a gap's label: "8 h" up to two days, then "3 d".
std::string gap_text(double seconds);

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
  std::vector<RunOrder> orders;    ///< per model of `models`, in the same order

  std::vector<const Machine*> machines_of(const std::string& model) const;
  const RunOrder& order_of(const std::string& model) const;
};

/// The timeline of every figure measured in two or more runs of its device model.
Timeline build_timeline(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                        const BaselineVerdict& verdict, const StepDetector& detector = {});

/// The change points of a series of medians (oldest first), or nothing when it is too short.
std::optional<std::vector<ChangePoint>> change_points(const std::vector<double>& medians,
                                                      const StepDetector& detector = {});

} // namespace apod::report
