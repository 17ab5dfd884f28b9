// What every chart of the page shares: a chart with its caption, the most series one chart
// holds, the fonts and axis sizes, and Vega-Lite field references. The charts' Vega-Lite specs are
// built in report/charts/ (not in the page's script) so that what a chart draws is unit-tested:
// which points, which series, which scale, where the limits, models and published figures sit.
// One chart shape per file; an experiment gets the charts its declaration names
// (experiment_charts.hpp).
#pragma once

#include "format.hpp"

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
  /// A residual chart's sentence on its model's miss past the model's bound ("" within it),
  /// repeated under the chart that draws the model.
  std::string miss;
};

/// Fonts and axis sizes shared by every chart of the page.
json chart_config();

/// A Vega-Lite field reference to a nested key, with the characters Vega-Lite treats as
/// path syntax (`.`, `[`, `]`, `\`) escaped: ("params", "a.b") -> "params.a\.b".
std::string vega_lite_field(const std::string& parent, const std::string& key);

} // namespace apod::report
