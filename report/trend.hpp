// The history section: each headline series of a device model with several runs drawn over the
// runs (median and its 95% CI), with the change points apod::detect_steps finds (runner/history,
// docs/history.md) marked at the first run of each new level.
#pragma once

#include "headlines.hpp"
#include "tables.hpp"

#include "analysis/history.hpp" // apod::detect_steps, runner/history.hpp

namespace apod::report {

/// The change points of `series` (its medians, oldest first), or nothing when the series is too
/// short for the detector to decide (fewer than min_window + confirm runs).
std::optional<std::vector<ChangePoint>> change_points(const HeadlineSeries& series,
                                                      const StepDetector& detector = {});

/// The trend chart of one series: x = the run's position (oldest first), the median as a line,
/// the CI as a band, a rule at each change point.
json trend_chart_spec(const HeadlineSeries& series, const std::vector<ChangePoint>& steps);

/// The section's mustache data, or false when no device model has more than one run.
mustache::data history_section(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                               int& next_chart);

} // namespace apod::report
