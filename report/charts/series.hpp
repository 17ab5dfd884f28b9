// Which points a chart draws and how its runs become series: runs apart while a reader can tell
// them apart, else one line per device model, in panels per model when even that is too many;
// and the labels, colours and sentences that name them.
#pragma once

#include "charts/plot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report::charts {

/// The ok points of `metric` that `keep` accepts, in stored order.
std::vector<const PointView*> kept_points(const MetricView& metric, const Keep& keep);

/// Runs apart while runs x colour values fit the series limit (and the page does not summarise
/// runs); else summarised per device model: a line per model where the model is the only split,
/// else one panel per model.
SeriesPlan plan_series(const PageModel& page, const std::vector<const PointView*>& points,
                       const std::string& colour, const std::string& colour_title);

/// The plotted points under `plan`, in first-seen order.
std::vector<Plotted> plot_points(const std::vector<const PointView*>& points,
                                 const SeriesPlan& plan);

/// The ok points of `metric` that `keep` accepts, plotted under another chart's plan, so a rule
/// or note made from them follows that chart's series and panels.
std::vector<Plotted> plotted_as(const MetricView& metric, const Keep& keep, const SeriesPlan& plan);

/// Several runs always summarised per device model (charts that cannot draw runs apart: a
/// heatmap, grouped bars; caption figures), with several models in panels or as the series.
SeriesPlan summarised_plan(const std::vector<const PointView*>& points, const std::string& colour,
                           bool panels);

/// `value` added to `list` unless it is there already (first-seen order).
void add_unique(std::vector<std::string>& list, const std::string& value);

/// The series and panel a run's figure belongs to under `plan` (for rules that follow a series).
std::string series_of(const SeriesPlan& plan, const RunView& run, const json& params);
std::string facet_of(const SeriesPlan& plan, const RunView& run);

/// A number as a label: whole numbers without decimals ("16", "512"), others as format_number.
std::string plain_number(double value);

/// A published figure as a label: "512 threads", "800 cycles", "1.50" (no unit for "1").
std::string number_with_unit(double value, const std::string& unit);

/// Whose figure a plotted point is, where the chart tells runs or devices apart: the run's
/// name (runs apart), the device model (several models summarised), else "".
std::string who_of(const SeriesPlan& plan, const Plotted& plotted);

/// The median over the plotted points of the number at `extra[key]`, or nothing.
std::optional<double> extra_median(const Plotted& plotted, const std::string& key);

/// The parameter's value as a chart value: the number, or its text.
json axis_value(const json& params, const std::string& key);

/// A chart's colour encoding with its domain in series order and a legend that is never cut.
json colour_encoding(const std::vector<std::string>& series, const std::string& title);

/// The distinct series of `plotted`, in first-seen order ("" left out).
std::vector<std::string> series_order(const std::vector<Plotted>& plotted);

/// "…; runs summarised per device model …" etc.: how the runs are drawn, for a caption.
std::string runs_sentence(const PageModel& page, const SeriesPlan& plan);

} // namespace apod::report::charts
