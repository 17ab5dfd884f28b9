#include "charts.hpp"

#include "aggregate.hpp"
#include "charts/designs.hpp"
#include "format.hpp"
#include "summary.hpp"

#include <algorithm>
#include <map>

namespace apod::report {

namespace {

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
  // labelLimit and titleLimit 0: Vega draws every label and title whole (its default cuts at 180 px
  // with an ellipsis, which hides which run or configuration a label names).
  return {{"font", "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"},
          {"axis",
           {{"labelFontSize", 11},
            {"titleFontSize", 12},
            {"labelLimit", 0},
            {"titleLimit", 0},
            {"labelSeparation", 4}}}, // hide a tick label rather than let two touch
          {"legend",
           {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 0}, {"titleLimit", 0}}},
          {"header", {{"labelLimit", 0}}},
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
  if (experiment.chart.vega_lite.is_object()) {
    json spec = experiment.chart.vega_lite;
    spec.erase("$schema"); // the page passes mode explicitly; nothing may look a schema up
    spec["data"] = {{"values", chart_rows(page, experiment, metric)}};
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
  const std::vector<const json*> none;
  const charts::DesignInput in{page, experiment, none};
  return charts::sweep_spec(page, experiment, charts::catalog_sweep(in, metric));
}

} // namespace apod::report
