// One point measured in many runs: with more runs than runs_drawn_apart the charts and tables
// show, per device model and parameter set, the median of the run medians and their range, not
// every run's point (docs/report.md). The statistics are apod::summarize's (runner/measurement).
#pragma once

#include "core/measurement.hpp"

#include <optional>
#include <vector>

namespace apod::report {

/// The median of `values` (apod::summarize), or nothing when there are none.
std::optional<double> median_of(const std::vector<double>& values);

/// Sets target's median, min, max, pct_of_limit, pct_of_peak and runs_with_peak from its
/// `points` (one per run): the across-runs figures of a table row or a headline series.
template <class Target> void summarise_across_runs(Target& target);

template <class Target> void summarise_across_runs(Target& target) {
  std::vector<double> medians, pct_limit, pct_peak;
  for (const auto* point : target.points) {
    medians.push_back(point->median);
    if (point->pct_of_limit)
      pct_limit.push_back(*point->pct_of_limit);
    if (point->pct_of_peak)
      pct_peak.push_back(*point->pct_of_peak);
  }
  const Summary stats = apod::summarize(medians);
  target.median = stats.median;
  target.min = stats.min;
  target.max = stats.max;
  target.pct_of_limit = median_of(pct_limit);
  target.pct_of_peak = median_of(pct_peak);
  target.runs_with_peak = pct_peak.size();
}

} // namespace apod::report
