// Vega-Lite specs for the report's charts, built here (not in the page's script) so that what a
// chart draws is unit-tested: which points, which series, which scale, where the limits, models
// and published figures sit. One chart shape per file in report/charts/; which experiment gets
// which charts is report/charts/designs.cpp.
#pragma once

#include "model.hpp"

#include <string>
#include <vector>

namespace apod::report {

/// The most series (colours) one chart holds (issue 14: no chart with more series than a reader
/// can tell apart). Past it, runs are summarised per device model, then split into panels.
inline constexpr std::size_t max_series = 10;

/// One chart of an experiment's section: its complete spec (data included) and its caption,
/// which says what is drawn, how runs are combined and what the rules and lines are.
struct ChartBlock {
  json spec;
  std::string caption;
};

/// Every chart of one experiment's section, in order: the designed charts of the experiments
/// apod knows (peak_copy, offset_copy, ...), else one generic chart per charted metric from the
/// catalog's ChartSpec. `published` are the source documents' figures (all of them; each chart
/// draws those of its experiment and metric).
std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published = {});

/// The data rows of one metric's chart: one per ok point (failed points never become numbers),
/// or, past runs_drawn_apart runs (page.summarise_runs()), one per device model and parameter
/// set, summarised across runs (median of the run medians; min and max of them; n = runs).
/// Each row: params (object), run, run_id, series, median, min, max, n, pct_of_theoretical and
/// pct_of_peak (number or null), noisy, and ready-formatted point_text, median_text, range_text,
/// ci_text, pct_text, pct_peak_text.
/// An experiment's own ChartSpec::vega_lite spec is written against these field names.
json chart_rows(const PageModel& page, const ExperimentView& experiment, const MetricView& metric);

/// The generic chart of one metric from the catalog's ChartSpec: the median against chart.x,
/// one series per chart.color value and per run (or per device model past the series limit),
/// whiskers or a band, limits named in words, the model where points carry one. An
/// experiment's own spec (chart.vega_lite) replaces all of that; only its `data` is set.
json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric);

/// Fonts and axis sizes shared by every chart of the page.
json chart_config();

/// A Vega-Lite field reference to a nested key, with the characters Vega-Lite treats as
/// path syntax (`.`, `[`, `]`, `\`) escaped: ("params", "a.b") -> "params.a\.b".
std::string vega_lite_field(const std::string& parent, const std::string& key);

} // namespace apod::report
