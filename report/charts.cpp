#include "charts.hpp"

#include "aggregate.hpp"
#include "format.hpp"
#include "summary.hpp"

#include <algorithm>
#include <map>

namespace apod::report {

namespace {

constexpr const char* limit_colour = "#b3261e";

const json& param_of(const PointView& point, const std::string& key) {
  return member(point.measurement->params, key.c_str());
}

std::string series_of(const ExperimentView& experiment, const PointView& point, bool several_runs) {
  // The legend's title names the parameter, so its entries are bare values ("pinned").
  const std::string colour_value =
      experiment.chart.color.empty()
          ? ""
          : format_param_value(experiment.chart.color, param_of(point, experiment.chart.color));
  if (!several_runs)
    return colour_value;
  return colour_value.empty() ? point.run->name : point.run->name + " · " + colour_value;
}

bool has_limit(const MetricView& metric) {
  return std::any_of(metric.points.begin(), metric.points.end(),
                     [](const PointView& p) { return p.ok && p.limit_gbs; });
}

bool is_size(const std::string& key) {
  return key == "bytes" || (key.size() > 6 && key.compare(key.size() - 6, 6, "_bytes") == 0);
}

// Byte-sized axes read better as "64 MiB" than as "67,108,864".
constexpr const char* bytes_label_expr =
    "datum.value >= 1073741824 ? format(datum.value / 1073741824, '~g') + ' GiB'"
    " : datum.value >= 1048576 ? format(datum.value / 1048576, '~g') + ' MiB'"
    " : datum.value >= 1024 ? format(datum.value / 1024, '~g') + ' KiB'"
    " : format(datum.value, '~g') + ' B'";

json x_encoding(const ExperimentView& experiment, const MetricView& metric) {
  const ChartSettings& chart = experiment.chart;
  if (chart.x.empty())
    return {{"field", "run"},
            {"type", "nominal"},
            {"title", "run"},
            {"sort", nullptr},
            {"axis", {{"labelAngle", 0}}}};
  const bool numeric =
      std::all_of(metric.points.begin(), metric.points.end(),
                  [&](const PointView& p) { return !p.ok || param_of(p, chart.x).is_number(); });
  json x = {{"field", vega_lite_field("params", chart.x)}, {"title", chart.x_title}};
  if (!numeric || chart.mark == "bar") {
    x["type"] = "ordinal";
    x["sort"] = nullptr; // the order the experiment measured in, not alphabetical
    x["axis"] = {{"labelAngle", 0}};
    return x;
  }
  x["type"] = "quantitative";
  x["scale"] = {{"nice", false}}; // end the axis at the last measured point, not past it
  if (chart.log_x) {
    const bool all_positive =
        std::all_of(metric.points.begin(), metric.points.end(), [&](const PointView& p) {
          return !p.ok || param_of(p, chart.x).get<double>() > 0;
        });
    // A log scale cannot place 0; symlog keeps the shape and still draws such points.
    x["scale"].update(all_positive ? json{{"type", "log"}, {"base", is_size(chart.x) ? 2 : 10}}
                                   : json{{"type", "symlog"}});
  }
  if (is_size(chart.x))
    x["axis"] = {{"labelExpr", bytes_label_expr}};
  else if (std::all_of(metric.points.begin(), metric.points.end(), [&](const PointView& p) {
             return !p.ok || param_of(p, chart.x).is_number_integer();
           }))
    x["axis"] = {{"tickMinStep", 1}}; // no "2.5 words" between whole-number parameters
  return x;
}

json limit_rows(const ExperimentView& experiment, const MetricView& metric) {
  std::map<double, std::vector<std::string>> devices_at; // one rule per distinct limit
  std::map<double, bool> own_limit;                      // a limit some points carry themselves
  for (const auto& point : metric.points) {
    if (!point.ok || !point.limit_gbs)
      continue;
    own_limit[*point.limit_gbs] = own_limit[*point.limit_gbs] || point.own_limit;
    auto& names = devices_at[*point.limit_gbs];
    const std::string device = string_at(point.run->run->device, "name", "device");
    if (std::find(names.begin(), names.end(), device) == names.end())
      names.push_back(device);
  }
  json rows = json::array();
  for (const auto& [limit_gbs, devices] : devices_at) {
    std::string text = (own_limit[limit_gbs] ? "the points' own limit (extra.limit_gbs) "
                                             : std::string("theoretical ") +
                                                   limit_word(experiment.chart.limit) + " ") +
                       format_with_unit(limit_gbs, "GB/s");
    if (devices_at.size() > 1)
      for (std::size_t i = 0; i < devices.size(); ++i)
        text += (i ? ", " : " · ") + devices[i];
    rows.push_back({{"limit_gbs", limit_gbs}, {"limit_text", text}});
  }
  return rows;
}

// One colour per series: the run (with several runs) and/or the catalog's colour parameter.
json colour_encoding(const ChartSettings& chart, const json& rows, const std::string& split_by) {
  std::string title = split_by;
  if (!chart.color.empty())
    title += (title.empty() ? "" : " · ") + chart.color;
  std::vector<std::string> series;
  for (const auto& row : rows)
    if (std::find(series.begin(), series.end(), row["series"]) == series.end())
      series.push_back(row["series"]);
  json legend = {{"labelLimit", 320}};
  if (series.size() > 12) // a long legend beside the plot would squeeze it
    legend.update({{"orient", "bottom"}, {"columns", 3}});
  return {{"field", "series"},
          {"type", "nominal"},
          {"title", title},
          {"sort", nullptr},
          {"legend", legend},
          {"scale", {{"scheme", series.size() > 10 ? "category20" : "tableau10"}}}};
}

// A dashed rule at each distinct theoretical limit, and its label at the right end.
json limit_layers(const ExperimentView& experiment, const MetricView& metric,
                  const std::string& y_title) {
  const json limits = limit_rows(experiment, metric);
  if (limits.empty())
    return json::array();
  const json y = {{"field", "limit_gbs"}, {"type", "quantitative"}, {"title", y_title}};
  const json rule = {
      {"type", "rule"}, {"color", limit_colour}, {"strokeDash", {6, 4}}, {"strokeWidth", 1.5}};
  const json label = {{"type", "text"},
                      {"color", limit_colour},
                      {"align", "right"},
                      {"baseline", "bottom"},
                      {"dy", -3}};
  return {
      {{"data", {{"values", limits}}},
       {"mark", rule},
       {"encoding", {{"y", y}, {"tooltip", {{"field", "limit_text"}}}}}},
      {{"data", {{"values", limits}}},
       {"mark", label},
       {"encoding", {{"x", {{"value", "width"}}}, {"y", y}, {"text", {{"field", "limit_text"}}}}}}};
}

// Series of a summarised chart: the device model (when there are several) and the colour value.
std::string summarised_series(const ExperimentView& experiment, const PointAcrossRuns& group,
                              bool several_models) {
  const std::string colour_value =
      experiment.chart.color.empty()
          ? ""
          : format_param_value(experiment.chart.color,
                               member(*group.params, experiment.chart.color.c_str()));
  if (!several_models)
    return colour_value;
  return colour_value.empty() ? group.device_model : group.device_model + " · " + colour_value;
}

json summarised_rows(const PageModel& page, const ExperimentView& experiment,
                     const MetricView& metric) {
  const bool peak_applies = experiment.compares_with_peak(metric);
  json rows = json::array();
  for (const auto& group : points_across_runs(metric)) {
    const json& params = *group.params;
    rows.push_back({
        {"params", params.is_object() ? params : json::object()},
        {"run", group.device_model},
        {"run_id", ""},
        {"series", summarised_series(experiment, group, page.device_models.size() > 1)},
        {"median", group.median},
        {"min", group.min},
        {"max", group.max},
        {"n", group.points.size()},
        {"pct_of_theoretical", group.pct_of_limit ? json(*group.pct_of_limit) : json(nullptr)},
        {"pct_of_peak", group.pct_of_peak ? json(*group.pct_of_peak) : json(nullptr)},
        {"point_text", format_params(params)},
        {"median_text", format_with_unit(group.median, metric.unit)},
        {"range_text", format_range(group.min, group.max, metric.unit)},
        {"pct_text", group.pct_of_limit ? format_percent(*group.pct_of_limit) : "—"},
        {"pct_peak_text", peak_text(group.pct_of_peak, peak_applies, group.runs_with_peak > 0)},
        {"ci_text", "—"},
        {"noisy", std::any_of(group.points.begin(), group.points.end(),
                              [](const PointView* p) { return p->noisy; })},
    });
  }
  return rows;
}

} // namespace

json chart_config() {
  return {{"font", "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"},
          {"axis", {{"labelFontSize", 11}, {"titleFontSize", 12}}},
          {"legend", {{"labelFontSize", 11}, {"titleFontSize", 12}}},
          {"view", {{"stroke", "#ddd"}}}};
}

std::string vega_lite_field(const std::string& parent, const std::string& key) {
  std::string field = parent + ".";
  for (const char c : key) {
    if (c == '.' || c == '[' || c == ']' || c == '\\')
      field += '\\';
    field += c;
  }
  return field;
}

json chart_rows(const PageModel& page, const ExperimentView& experiment, const MetricView& metric) {
  if (page.summarise_runs())
    return summarised_rows(page, experiment, metric);
  const bool several_runs = page.several_runs();
  const bool peak_applies = experiment.compares_with_peak(metric);
  json rows = json::array();
  for (const auto& point : metric.points) {
    if (!point.ok)
      continue;
    const json& params = point.measurement->params;
    rows.push_back({
        {"params", params.is_object() ? params : json::object()},
        {"run", point.run->name},
        {"run_id", point.run->id},
        {"series", series_of(experiment, point, several_runs)},
        {"median", point.median},
        {"min", point.min},
        {"max", point.max},
        {"n", point.n},
        {"pct_of_theoretical", point.pct_of_limit ? json(*point.pct_of_limit) : json(nullptr)},
        {"pct_of_peak", point.pct_of_peak ? json(*point.pct_of_peak) : json(nullptr)},
        {"point_text", format_params(params)},
        {"median_text", format_with_unit(point.median, metric.unit)},
        {"range_text", format_with_unit(point.min, metric.unit) + " – " +
                           format_with_unit(point.max, metric.unit)},
        {"pct_text", point.pct_of_limit ? format_percent(*point.pct_of_limit) : "—"},
        {"pct_peak_text",
         peak_text(point.pct_of_peak, peak_applies, point.run->peak_gbs.has_value())},
        {"ci_text", ci_text(point, metric.unit)},
        {"noisy", point.noisy},
    });
  }
  return rows;
}

json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric) {
  json rows = chart_rows(page, experiment, metric);
  const bool summarised = page.summarise_runs();
  // Summarised rows are one series per device model, so with a single model the run split is gone.
  const bool several_runs = summarised ? page.device_models.size() > 1 : page.several_runs();
  if (experiment.chart.vega_lite.is_object()) {
    json spec = experiment.chart.vega_lite;
    spec.erase("$schema"); // the page passes mode explicitly; nothing may look a schema up
    spec["data"] = {{"values", std::move(rows)}};
    // Only a single view can take the page's width; facets and concatenations size their cells.
    const bool single_view = !spec.contains("facet") && !spec.contains("repeat") &&
                             !spec.contains("concat") && !spec.contains("hconcat") &&
                             !spec.contains("vconcat");
    if (single_view && !spec.contains("width"))
      spec["width"] = "container";
    if (!spec.contains("config"))
      spec["config"] = chart_config();
    return spec;
  }

  const ChartSettings& chart = experiment.chart;
  const std::string y_title = metric_title(metric.metric, metric.unit);
  const json x = x_encoding(experiment, metric);
  json tooltip = json::array();
  if (several_runs)
    tooltip.push_back({{"field", "run"}, {"title", summarised ? "device" : "run"}});
  tooltip.push_back({{"field", "point_text"}, {"title", "point"}});
  tooltip.push_back(
      {{"field", "median_text"}, {"title", summarised ? "median of runs" : "median"}});
  if (!summarised && std::any_of(metric.points.begin(), metric.points.end(),
                                 [](const PointView& p) { return p.ci_low.has_value(); }))
    tooltip.push_back({{"field", "ci_text"}, {"title", "95% CI of median"}});
  tooltip.push_back(
      {{"field", "range_text"}, {"title", summarised ? "min – max of run medians" : "min – max"}});
  tooltip.push_back({{"field", "n"}, {"title", summarised ? "runs" : "samples"}});
  if (has_limit(metric))
    tooltip.push_back({{"field", "pct_text"},
                       {"title", std::string("% of theoretical ") + limit_word(chart.limit)}});
  if (experiment.compares_with_peak(metric))
    tooltip.push_back({{"field", "pct_peak_text"}, {"title", "% of achievable peak"}});

  json main_encoding = {{"x", x},
                        {"y", {{"field", "median"}, {"type", "quantitative"}, {"title", y_title}}},
                        {"tooltip", tooltip}};
  json error_encoding = {{"x", x},
                         {"y", {{"field", "min"}, {"type", "quantitative"}, {"title", y_title}}},
                         {"y2", {{"field", "max"}}}};
  if (several_runs || !chart.color.empty()) {
    main_encoding["color"] = error_encoding["color"] = colour_encoding(chart, rows,
                                                                       !several_runs ? ""
                                                                       : summarised  ? "device"
                                                                                     : "run");
    if (chart.mark == "bar") // bars of one x stand side by side, one per series
      main_encoding["xOffset"] =
          error_encoding["xOffset"] = {{"field", "series"}, {"sort", nullptr}};
  }

  json main_mark = {{"type", chart.mark}, {"tooltip", true}};
  if (chart.mark == "line")
    main_mark["point"] = true;
  if (chart.mark == "point")
    main_mark.update({{"filled", true}, {"size", 60}});
  json layers = json::array();
  layers.push_back({{"mark", main_mark}, {"encoding", main_encoding}});
  layers.push_back({{"mark", {{"type", "rule"}, {"opacity", 0.6}}}, {"encoding", error_encoding}});

  for (auto& layer : limit_layers(experiment, metric, y_title))
    layers.push_back(std::move(layer));

  return {{"width", "container"},
          {"height", 280},
          {"data", {{"values", std::move(rows)}}},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

} // namespace apod::report
