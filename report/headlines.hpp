// Headline series: each experiment's headline figure followed through the runs of one device
// model. The summary shows their run-to-run spread, the history section their trend and change
// points, the hardware comparison sets them side by side per device.
#pragma once

#include "model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

struct HeadlineSeries {
  const ExperimentView* experiment = nullptr;
  const MetricView* metric = nullptr;
  std::string device_model;
  /// The point followed: in the newest run of this model that has one, the point the run summary
  /// names too (headline_point, core/catalog.hpp: the marked headline, else the best median).
  const PointView* headline = nullptr;
  /// The headline point's comparability key; empty in results that store none, where points are
  /// matched by metric and parameters instead.
  std::string key;
  std::vector<const PointView*> points; ///< the same point in each run of the model, oldest first
  std::size_t model_runs = 0;           ///< runs of this device model
  double median = 0, min = 0, max = 0;  ///< of the points' medians (apod::summarize)
  std::optional<double> pct_of_limit;   ///< median of the points' % of theoretical
  std::optional<double> pct_of_peak;    ///< median of the points' % of achievable peak
  std::size_t runs_with_peak = 0;       ///< points whose run measured an achievable peak

  /// The series' point in `run`, or nullptr where that run has no verified one.
  const PointView* point_in(const RunView* run) const;
  /// The point of the newest run of the model that has one (the first screen's "newest").
  const PointView* newest() const { return points.empty() ? nullptr : points.back(); }
  /// (max - min) / median x 100: the run-to-run spread.
  std::optional<double> spread_pct() const;
  /// "Misaligned copy: effective bandwidth", with the device model when `with_model`.
  std::string title(bool with_model) const;
};

/// Every headline series of `page`: per experiment (catalog order), per device model (order of
/// first run), per headline metric (ExperimentView::headline_metrics). Series of experiments
/// without any verified headline point are left out.
std::vector<HeadlineSeries> headline_series(const PageModel& page);

} // namespace apod::report
