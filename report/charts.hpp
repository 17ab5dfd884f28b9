// Vega-Lite specs for the report's charts, built here (not in the page's script) so that what a
// chart draws is unit-tested: which points, which series, which scale, where the limits, models
// and published figures sit. One chart shape per file in report/charts/; an experiment gets the
// charts its declaration names (report/charts/declared.cpp).
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

/// Every chart of one experiment's section, in order: the charts its declaration names, else one
/// generic chart per metric. `published` are the source documents' figures (all of them; each
/// chart draws those of its experiment and metric).
std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published = {});

/// The generic chart of one metric: its first param across, the first other param that splits
/// a point's series by colour, one series per run (or per device model past the series limit),
/// whiskers or a band, limits named in words, a model its points store beside it.
json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric);

/// Fonts and axis sizes shared by every chart of the page.
json chart_config();

/// A Vega-Lite field reference to a nested key, with the characters Vega-Lite treats as
/// path syntax (`.`, `[`, `]`, `\`) escaped: ("params", "a.b") -> "params.a\.b".
std::string vega_lite_field(const std::string& parent, const std::string& key);

} // namespace apod::report
