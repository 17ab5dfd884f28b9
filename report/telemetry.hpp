// What NVML saw during each run (docs/results-format.md, `telemetry`): a table of every run's
// clocks, power and temperature, and a small chart of the newest runs over time.
#pragma once

#include "context.hpp"
#include "model.hpp"
#include "tables.hpp"

#include <optional>

namespace apod::report {

struct TelemetrySummary {
  std::size_t readings = 0;
  double span_s = 0; ///< last t_s - first t_s
  std::optional<double> sm_clock_median_mhz, sm_clock_min_mhz;
  std::optional<double> power_median_w, power_max_w;
  std::optional<double> temperature_max_c;
  std::size_t throttled = 0; ///< readings with a throttle reason set
};

/// The statistics of a run's telemetry (apod::summarize over each quantity's readings).
TelemetrySummary summarise_telemetry(const RunView& run);

/// A chart of SM clock, power and temperature over the newest `max_runs` runs with telemetry.
/// Readings are thinned to at most `max_points` per run (every k-th), which a chart this small
/// cannot show anyway. Null when no run has telemetry.
json telemetry_chart_spec(const PageModel& page, std::size_t max_runs = 3,
                          std::size_t max_points = 240);

/// The section's data: the table and the chart, or false when no run has telemetry.
mustache::data telemetry_block(const PageModel& page, ChartIds& chart_ids);

} // namespace apod::report
