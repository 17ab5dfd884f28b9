// What a reader sees on hovering a point: the run (or device), the point, its figures with
// units, and what they are read against, in words.
#include "charts/tooltips.hpp"

#include "format.hpp"
#include "summary_table.hpp"

#include <algorithm>

namespace apod::report::charts {

namespace {

std::optional<double> median_over(const Plotted& plotted,
                                  std::optional<double> PointView::*figure) {
  std::vector<double> values;
  for (const PointView* point : plotted.points)
    if (point->*figure)
      values.push_back(*(point->*figure));
  if (values.empty())
    return std::nullopt;
  return apod::summarize(values).median;
}

std::string peak_words(const PointView& point) {
  return point.peak_access_type.empty() ? "achievable peak"
                                        : "achievable " + point.peak_access_type + " peak";
}

} // namespace

std::string params_in_words(const ExperimentView& experiment, const json& params) {
  if (!params.is_object() || params.empty())
    return "—";
  std::string text;
  for (const auto& [key, value] : params.items())
    text += (text.empty() ? "" : ", ") + experiment.param_title(key) + " " +
            experiment.param_text(key, value);
  return text;
}

std::string limit_words_of(const ExperimentView&, const PointView& point) {
  return std::string(point.limit_text); // set with the limit itself (model.cpp, set_limit)
}

void add_tooltip_fields(json& row, const Plotted& plotted, const ExperimentView& experiment,
                        const MetricView& metric) {
  const PointView& first = *plotted.points.front();
  const bool across = plotted.run == nullptr;
  row["who"] = across ? plotted.device_model : plotted.run->name;
  row["point_text"] = params_in_words(experiment, *plotted.params);
  row["median_text"] = format_with_unit(plotted.y, metric.unit);
  row["range_text"] = format_range(plotted.low, plotted.high, metric.unit);
  row["n_text"] = across ? std::to_string(plotted.points.size()) + " runs" : first.samples.text();
  if (!across)
    row["ci_text"] = ci_text(first, metric.unit);
  if (const auto pct = median_over(plotted, &PointView::pct_of_limit))
    row["pct_text"] = format_percent(*pct) + " of " + limit_words_of(experiment, first);
  if (experiment.compares_with_peak(metric)) {
    const auto pct = median_over(plotted, &PointView::pct_of_peak);
    row["pct_peak_text"] = pct ? format_percent(*pct) + " of the " + peak_words(first)
                               : peak_text(std::nullopt, true,
                                           std::any_of(plotted.points.begin(), plotted.points.end(),
                                                       [](const PointView* p) {
                                                         return p->run->peak_gbs.has_value();
                                                       }));
  }
  if (std::any_of(plotted.points.begin(), plotted.points.end(),
                  [](const PointView* p) { return p->noisy; }))
    row["noisy"] = true;
}

json measured_tooltip(const ExperimentView& experiment, const MetricView& metric,
                      const SeriesPlan& plan, const std::vector<Plotted>& plotted,
                      bool with_model) {
  const bool across = plan.aggregated;
  json tooltip = json::array();
  if (plan.runs_apart || across)
    tooltip.push_back({{"field", "who"}, {"title", across ? "device" : "run"}});
  tooltip.push_back({{"field", "point_text"}, {"title", "point"}});
  tooltip.push_back({{"field", "median_text"}, {"title", across ? "median of runs" : "median"}});
  const bool with_ci = !across && std::any_of(plotted.begin(), plotted.end(), [](const Plotted& p) {
    return p.points.front()->ci_low.has_value();
  });
  if (with_ci)
    tooltip.push_back({{"field", "ci_text"}, {"title", "95% CI of median"}});
  tooltip.push_back(
      {{"field", "range_text"}, {"title", across ? "range of run medians" : "min – max"}});
  tooltip.push_back({{"field", "n_text"}, {"title", across ? "runs" : "samples"}});
  if (std::any_of(plotted.begin(), plotted.end(), [](const Plotted& p) {
        return std::any_of(p.points.begin(), p.points.end(),
                           [](const PointView* q) { return q->pct_of_limit.has_value(); });
      }))
    tooltip.push_back({{"field", "pct_text"}, {"title", "% of limit"}});
  if (experiment.compares_with_peak(metric))
    tooltip.push_back({{"field", "pct_peak_text"}, {"title", "% of achievable peak"}});
  if (with_model)
    tooltip.push_back({{"field", "model_text"}, {"title", "model"}});
  return tooltip;
}

std::vector<const json*> published_for(const std::vector<const json*>& figures,
                                       const ExperimentView& experiment,
                                       const std::string& metric) {
  std::vector<const json*> found;
  for (const json* figure : figures)
    if (string_at(*figure, "experiment") == experiment.name &&
        string_at(*figure, "metric") == metric && has_number(*figure, "value"))
      found.push_back(figure);
  return found;
}

} // namespace apod::report::charts
