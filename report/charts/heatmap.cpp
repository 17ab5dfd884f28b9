#include "charts/heatmap.hpp"

#include "format.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace apod::report::charts {

namespace {

// The launch down the side: vector width (where stored) and grid shape.
std::string launch_label(const PointView& point) {
  const json& extra = point.measurement->extra;
  const std::string grid = string_at(point.measurement->params, "grid");
  std::string label = grid == "wave"   ? "one resident wave"
                      : grid == "full" ? "one block a tile"
                                       : grid;
  if (has_number(extra, "vector_bytes"))
    label = plain_number(extra.at("vector_bytes").get<double>()) + "-byte vectors, " + label;
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

json cell_rows(const std::vector<Plotted>& plotted, const std::string& unit, bool& with_pct,
               std::vector<std::string>& types, std::vector<std::string>& launches) {
  json rows = json::array();
  with_pct = true;
  for (const Plotted& p : plotted) {
    const PointView& first = *p.points.front();
    const std::string type = string_at(*p.params, keys::access_type);
    const std::string launch = launch_label(first);
    if (std::find(types.begin(), types.end(), type) == types.end())
      types.push_back(type);
    if (std::find(launches.begin(), launches.end(), launch) == launches.end())
      launches.push_back(launch);
    const auto pct = median_pct(p);
    with_pct = with_pct && pct.has_value();
    rows.push_back({{"access", type},
                    {"x", member(*p.params, "elements_per_thread")},
                    {"launch", launch},
                    {"facet", p.facet},
                    {"gbs", p.y},
                    {"pct", pct ? json(*pct) : json(nullptr)},
                    {"text", format_number(p.y)},
                    {"who", p.run ? p.run->name : p.device_model},
                    {"median_text", format_with_unit(p.y, unit)},
                    {"range_text", format_range(p.low, p.high, unit)},
                    {"pct_text", pct ? format_percent(*pct) + " of the achievable " + type + " peak"
                                     : "no " + type + " peak measured"}});
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
          {"title", "% of the access type's achievable peak"},
          {"scale",
           {{"scheme", "blues"}, {"domain", {std::max(0.0, std::floor(lowest / 5) * 5 - 5), 100}}}},
          {"legend", legend}};
}

// Cells and their labels: elements per thread across, the launch down.
json cell_layers(const json& rows, const std::vector<std::string>& launches, bool with_pct,
                 bool aggregated) {
  const json x = {{"field", "x"},
                  {"type", "ordinal"},
                  {"title", "elements per thread"},
                  {"axis", {{"labelAngle", 0}}}};
  const json y = {{"field", "launch"}, {"type", "ordinal"}, {"title", nullptr}, {"sort", launches}};
  const json tooltip = json::array(
      {{{"field", "who"}, {"title", aggregated ? "device" : "run"}},
       {{"field", "access"}, {"title", "access type"}},
       {{"field", "x"}, {"title", "elements per thread"}},
       {{"field", "launch"}, {"title", "launch"}},
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

std::optional<ChartBlock> launch_heatmap(const MetricView& bandwidth) {
  const Keep kernels = [](const PointView& p) {
    const json& params = p.measurement->params;
    return params.contains("elements_per_thread") && params.contains("grid") &&
           params.contains(keys::access_type);
  };
  const auto points = kept_points(bandwidth, kernels);
  if (points.empty())
    return std::nullopt;
  // A heatmap cannot draw runs apart: each cell is one run's point or the median across runs.
  const SeriesPlan plan = summarised_plan(points, "", true);
  bool with_pct = true;
  std::vector<std::string> types, launches;
  const json rows = cell_rows(plot_points(points, plan), bandwidth.unit, with_pct, types, launches);

  json facet = {
      {"column",
       {{"field", "access"}, {"type", "nominal"}, {"title", "access type"}, {"sort", types}}}};
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
                       {"layer", cell_layers(rows, launches, with_pct, plan.aggregated)}}},
                     {"config", chart_config()}};
  std::string what = with_pct ? "Every kernel launch shape of each access type: its bandwidth in "
                                "GB/s in the cell, coloured by its share of that access type's "
                                "achievable peak"
                              : "Every kernel launch shape of each access type, its bandwidth in "
                                "GB/s in the cell";
  if (plan.aggregated)
    what += "; each cell the median of the runs' medians per device model (their range in the "
            "tooltip)";
  if (plan.facet_by_model)
    what += ", one row per device model";
  return ChartBlock{spec, what + ". cudaMemcpyAsync is drawn with the access types' peaks."};
}

} // namespace apod::report::charts
