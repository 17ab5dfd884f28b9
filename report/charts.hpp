// Vega-Lite specs for the report's charts, built here (not in the page's script) so that what a
// chart draws is unit-tested: which points, which scale, where the theoretical limit sits.
#pragma once

#include "model.hpp"

namespace apod::report {

/// The data rows of one metric's chart: one per ok point (failed points never become numbers),
/// or, past runs_drawn_apart runs (page.summarise_runs()), one per device model and parameter
/// set, summarised across runs (median of the run medians; min and max of them; n = runs).
/// Each row: params (object), run, run_id, series, median, min, max, n, pct_of_theoretical and
/// pct_of_peak (number or null), noisy, and ready-formatted point_text, median_text, range_text,
/// ci_text, pct_text, pct_peak_text.
/// An experiment's own ChartSpec::vega_lite spec is written against these field names.
json chart_rows(const PageModel& page, const ExperimentView& experiment, const MetricView& metric);

/// The complete Vega-Lite spec (data included) for one metric of an experiment: the median
/// against chart.x, one series per chart.color value (and per run, or per device model when
/// runs are summarised), min-max error bars, and a dashed rule at each device's theoretical limit
/// for GB/s metrics. An experiment's own spec replaces all of that; only its `data` is set.
json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric);

/// Fonts and axis sizes shared by every chart of the page.
json chart_config();

/// A Vega-Lite field reference to a nested key, with the characters Vega-Lite treats as
/// path syntax (`.`, `[`, `]`, `\`) escaped: ("params", "a.b") -> "params.a\.b".
std::string vega_lite_field(const std::string& parent, const std::string& key);

} // namespace apod::report
