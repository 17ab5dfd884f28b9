// A metric over two parameters as a heatmap (Chart shape heatmap): one panel per value of the
// declared panel param (and device model), the x param across, the y param down (its declared
// labels, after an extra figure such as a vector width), each cell coloured by its share of the
// achievable peak of its access type and labelled with its value.
#include "charts/heatmap.hpp"

#include "charts/series.hpp"
#include "format.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace apod::report::charts {

namespace {

// A row's words: the declared y param's label, after the extra figure the chart names.
std::string row_label(const ExperimentView& experiment, const Chart& chart,
                      const PointView& point) {
  const json& extra = point.measurement->extra;
  std::string label =
      experiment.param_text(chart.y, member(point.measurement->params, chart.y.c_str()));
  if (!chart.y_extra.empty() && has_number(extra, chart.y_extra.c_str()))
    label = plain_number(extra.at(chart.y_extra).get<double>()) + chart.y_extra_unit + ", " + label;
  return label;
}

std::optional<double> median_pct(const Plotted& p) {
  std::vector<double> values;
  for (const PointView* point : p.points)
    if (point->pct_of_peak && !point->peak_access_type.empty())
      values.push_back(*point->pct_of_peak);
  if (values.empty())
    return std::nullopt;
  return apod::summarize(values).median;
}

json cell_rows(const DesignInput& in, const Chart& chart, const std::vector<Plotted>& plotted,
               const std::string& unit, bool& with_pct, std::vector<std::string>& types,
               std::vector<std::string>& launches) {
  json rows = json::array();
  with_pct = true;
  const std::string panel = chart.panels.empty() ? "" : chart.panels.front();
  for (const Plotted& p : plotted) {
    const PointView& first = *p.points.front();
    const std::string type =
        panel.empty() ? "" : in.experiment.param_text(panel, member(*p.params, panel.c_str()));
    const std::string launch = row_label(in.experiment, chart, first);
    if (std::find(types.begin(), types.end(), type) == types.end())
      types.push_back(type);
    if (std::find(launches.begin(), launches.end(), launch) == launches.end())
      launches.push_back(launch);
    const auto pct = median_pct(p);
    with_pct = with_pct && pct.has_value();
    rows.push_back({{"access", type},
                    {"x", member(*p.params, chart.x.c_str())},
                    {"launch", launch},
                    {"facet", p.facet},
                    {"gbs", p.y},
                    {"pct", pct ? json(*pct) : json(nullptr)},
                    {"text", format_number(p.y)},
                    {"who", p.run ? p.run->name : p.device_model},
                    {"median_text", format_with_unit(p.y, unit)},
                    {"range_text", format_range(p.low, p.high, unit)},
                    {"pct_text", pct ? format_percent(*pct) + " of the achievable peak of its "
                                                              "access type"
                                     : "no peak of its access type measured"}});
  }
  return rows;
}

} // namespace

namespace {

// The colour: each cell's share of its access type's peak, from the cells' own range up to 100%
// (so a few percent between shapes show), or its GB/s where a run measured no such peak.
json cell_colour(const json& rows, bool with_pct) {
  double lowest = 100;
  for (const auto& row : rows)
    if (row["pct"].is_number())
      lowest = std::min(lowest, row["pct"].get<double>());
  const json legend = {{"orient", "bottom"}, {"direction", "horizontal"}, {"gradientLength", 240}};
  if (!with_pct)
    return {{"field", "gbs"},
            {"type", "quantitative"},
            {"title", "effective bandwidth (GB/s)"},
            {"scale", {{"scheme", "blues"}}},
            {"legend", legend}};
  return {{"field", "pct"},
          {"type", "quantitative"},
          {"title", "% of the achievable peak of its access type"},
          {"scale",
           {{"scheme", "blues"}, {"domain", {std::max(0.0, std::floor(lowest / 5) * 5 - 5), 100}}}},
          {"legend", legend}};
}

// Cells and their labels: elements per thread across, the launch down.
json cell_layers(const json& rows, const std::vector<std::string>& launches, bool with_pct,
                 bool aggregated, const std::string& x_title, const std::string& panel_title) {
  const json x = {
      {"field", "x"}, {"type", "ordinal"}, {"title", x_title}, {"axis", {{"labelAngle", 0}}}};
  const json y = {{"field", "launch"}, {"type", "ordinal"}, {"title", nullptr}, {"sort", launches}};
  const json tooltip = json::array(
      {{{"field", "who"}, {"title", aggregated ? "device" : "run"}},
       {{"field", "access"}, {"title", panel_title}},
       {{"field", "x"}, {"title", x_title}},
       {{"field", "launch"}, {"title", "row"}},
       {{"field", "median_text"}, {"title", "median"}},
       {{"field", "range_text"}, {"title", aggregated ? "range of run medians" : "min – max"}},
       {{"field", "pct_text"}, {"title", "% of peak"}}});
  const json cells = {
      {"mark", {{"type", "rect"}, {"tooltip", true}}},
      {"encoding",
       {{"x", x}, {"y", y}, {"color", cell_colour(rows, with_pct)}, {"tooltip", tooltip}}}};
  const std::string dark = with_pct ? "datum.pct > 80" : "false"; // white on the darkest cells
  const json labels = {
      {"mark", {{"type", "text"}, {"fontSize", 11}}},
      {"encoding",
       {{"x", x},
        {"y", y},
        {"text", {{"field", "text"}}},
        {"color", {{"condition", {{"test", dark}, {"value", "white"}}}, {"value", "#1d232b"}}}}}};
  return json::array({cells, labels});
}

} // namespace

std::optional<ChartBlock> heatmap_chart(const DesignInput& in, const Chart& chart) {
  const MetricView* metric = drawable_metric(in.experiment, chart.metric);
  if (!metric)
    return std::nullopt;
  const std::string panel = chart.panels.empty() ? "" : chart.panels.front();
  const Keep only = param_is(chart.only.first, chart.only.second);
  const Keep cells = [&](const PointView& p) {
    const json& params = p.measurement->params;
    return (!only || only(p)) && params.contains(chart.x) && params.contains(chart.y) &&
           (panel.empty() || params.contains(panel));
  };
  const auto points = kept_points(*metric, cells);
  if (points.empty())
    return std::nullopt;
  // A heatmap cannot draw runs apart: each cell is one run's point or the median across runs.
  const SeriesPlan plan = summarised_plan(points, "", true);
  bool with_pct = true;
  std::vector<std::string> types, launches;
  const json rows =
      cell_rows(in, chart, plot_points(points, plan), metric->unit, with_pct, types, launches);
  const std::string panel_title = in.experiment.param_title(panel);
  json facet = {
      {"column",
       {{"field", "access"}, {"type", "nominal"}, {"title", panel_title}, {"sort", types}}}};
  if (plan.facet_by_model)
    facet["row"] = {{"field", "facet"},
                    {"type", "nominal"},
                    {"title", nullptr},
                    {"header", {{"labelAngle", 0}, {"labelAlign", "left"}}}};
  const json spec = {{"data", {{"values", rows}}},
                     {"facet", facet},
                     {"spec",
                      {{"width", 150},
                       {"height", 36 * launches.size()},
                       {"layer", cell_layers(rows, launches, with_pct, plan.aggregated,
                                             in.experiment.param_title(chart.x), panel_title)}}},
                     {"config", chart_config()}};
  std::string what = chart.caption;
  if (with_pct)
    what += ", coloured by its share of the achievable peak of its access type";
  if (plan.aggregated)
    what += "; each cell the median of the runs' medians per device model (their range in the "
            "tooltip)";
  if (plan.facet_by_model)
    what += ", one row per device model";
  std::string text = what + ".";
  for (const auto& sentence : chart.sentences)
    text += " " + sentence;
  return ChartBlock{spec, text};
}

} // namespace apod::report::charts
