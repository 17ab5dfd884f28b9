// Which points a chart draws and how its runs become series: runs apart while a reader can
// tell them apart, else one line per device model (median of the run medians, with their range
// as a band), in panels per model when even that is too many.
#include "charts/series.hpp"

#include "charts/chart.hpp"
#include "format.hpp"
#include "palette.hpp"
#include "summary_table.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace apod::report::charts {

namespace {

std::string colour_value(const std::string& colour, const json& params) {
  return colour.empty() ? "" : format_param_value(colour, member(params, colour.c_str()));
}

std::string joined(const std::string& first, const std::string& second) {
  if (first.empty())
    return second;
  return second.empty() ? first : first + " · " + second;
}

} // namespace

std::vector<const PointView*> kept_points(const MetricView& metric, const Keep& keep) {
  std::vector<const PointView*> points;
  for (const auto& point : metric.points)
    if (point.ok && (!keep || keep(point)))
      points.push_back(&point);
  return points;
}

SeriesPlan plan_series(const PageModel& page, const std::vector<const PointView*>& points,
                       const std::string& colour, const std::string& colour_title) {
  std::set<const RunView*> runs;
  std::set<std::string> models, values;
  for (const PointView* point : points) {
    runs.insert(point->run);
    models.insert(point->run->device_model);
    values.insert(colour_value(colour, point->measurement->params));
  }
  SeriesPlan plan;
  plan.colour = colour;
  const std::size_t per_run = std::max<std::size_t>(1, values.size());
  if (runs.size() > 1 && !page.summarise_runs() && runs.size() * per_run <= max_series) {
    plan.runs_apart = true;
    plan.legend_title = joined("run", colour.empty() ? "" : colour_title);
    return plan;
  }
  plan.legend_title = colour.empty() ? "" : colour_title;
  if (runs.size() <= 1)
    return plan;
  plan.aggregated = true;
  // Several models: one line each where a model is the only split; with a colour parameter too,
  // one panel per model, so a colour means the same value in every panel.
  if (models.size() > 1 && per_run == 1) {
    plan.models_apart = true;
    plan.legend_title = "device";
  } else if (models.size() > 1) {
    plan.facet_by_model = true;
  }
  return plan;
}

std::string series_of(const SeriesPlan& plan, const RunView& run, const json& params) {
  const std::string value = colour_value(plan.colour, params);
  if (plan.runs_apart)
    return joined(run.name, value);
  if (plan.models_apart)
    return joined(run.device_model, value);
  return value;
}

std::string facet_of(const SeriesPlan& plan, const RunView& run) {
  return plan.facet_by_model ? run.device_model : "";
}

std::vector<Plotted> plot_points(const std::vector<const PointView*>& points,
                                 const SeriesPlan& plan) {
  std::vector<Plotted> plotted;
  if (!plan.aggregated) {
    for (const PointView* point : points) {
      const json& params = point->measurement->params;
      plotted.push_back({point->run,
                         point->run->device_model,
                         &params,
                         {point},
                         point->median,
                         point->min,
                         point->max,
                         series_of(plan, *point->run, params),
                         facet_of(plan, *point->run)});
    }
    return plotted;
  }
  // One row per device model and parameter set: the median of the run medians and their range.
  std::map<std::pair<std::string, const PointKey*>, std::size_t> index; // keys are interned
  for (const PointView* point : points) {
    const json& params = point->measurement->params;
    const auto key = std::pair(point->run->device_model, point->key);
    auto [at, added] = index.try_emplace(key, plotted.size());
    if (added)
      plotted.push_back({nullptr,
                         point->run->device_model,
                         &params,
                         {},
                         0,
                         0,
                         0,
                         series_of(plan, *point->run, params),
                         facet_of(plan, *point->run)});
    plotted[at->second].points.push_back(point);
  }
  for (auto& group : plotted) {
    std::vector<double> medians;
    for (const PointView* point : group.points)
      medians.push_back(point->median);
    const Summary stats = apod::summarize(medians);
    group.y = stats.median;
    group.low = stats.min;
    group.high = stats.max;
  }
  return plotted;
}

std::string plain_number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return format_number(value);
}

std::string number_with_unit(double value, const std::string& unit) {
  if (value != std::floor(value))
    return format_with_unit(value, unit);
  return unit.empty() || unit == "1" ? plain_number(value) : plain_number(value) + " " + unit;
}

std::string who_of(const SeriesPlan& plan, const Plotted& plotted) {
  if (plan.runs_apart && plotted.run)
    return plotted.run->name;
  if (plan.models_apart || plan.facet_by_model)
    return plotted.device_model;
  return "";
}

std::vector<Plotted> plotted_as(const MetricView& metric, const Keep& keep,
                                const SeriesPlan& plan) {
  return plot_points(kept_points(metric, keep), plan);
}

SeriesPlan summarised_plan(const std::vector<const PointView*>& points, const std::string& colour,
                           bool panels) {
  std::set<const RunView*> runs;
  std::set<std::string> models;
  for (const PointView* p : points) {
    runs.insert(p->run);
    models.insert(p->run->device_model);
  }
  SeriesPlan plan;
  plan.colour = colour;
  plan.aggregated = runs.size() > 1;
  plan.facet_by_model = panels && models.size() > 1;
  plan.models_apart = !panels && models.size() > 1;
  return plan;
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(value);
}

std::optional<double> extra_median(const Plotted& plotted, const std::string& key) {
  std::vector<double> values;
  for (const PointView* point : plotted.points)
    if (has_number(point->measurement->extra, key.c_str()))
      values.push_back(point->measurement->extra.at(key).get<double>());
  if (values.empty())
    return std::nullopt;
  return apod::summarize(values).median;
}

json axis_value(const json& params, const std::string& key) {
  const json& value = member(params, key.c_str());
  if (value.is_number() || value.is_null())
    return value;
  return value.is_string() ? value : json(value.dump());
}

std::vector<std::string> series_order(const std::vector<Plotted>& plotted) {
  std::vector<std::string> order;
  for (const auto& p : plotted)
    if (!p.series.empty() && std::find(order.begin(), order.end(), p.series) == order.end())
      order.push_back(p.series);
  return order;
}

json colour_encoding(const std::vector<std::string>& series, const std::string& title) {
  // The page's colour of each name (palette.hpp's SeriesColours): a device model, a precision
  // or a kernel is drawn in one colour in every chart; the domain and range are explicit so that
  // every layer of the chart draws a series in it.
  SeriesColours own;
  SeriesColours* page = current_series_colours();
  const json range = (page ? *page : own).colours_of(series);
  std::size_t longest = 0;
  for (const auto& name : series)
    longest = std::max(longest, name.size());
  // A legend beside the plot takes its width; long or many entries go below it, whole. Its
  // symbols are solid whichever layer (a faint band) Vega-Lite takes them from.
  json legend = {{"labelLimit", 1000}, {"symbolOpacity", 1}, {"symbolType", "circle"}};
  if (series.size() > 6 || longest > 24)
    legend.update({{"orient", "bottom"}, {"columns", longest > 40 ? 1 : 2}});
  return {{"field", "series"}, {"type", "nominal"},
          {"title", title},    {"sort", series},
          {"legend", legend},  {"scale", {{"domain", series}, {"range", range}}}};
}

std::string runs_sentence(const PageModel& page, const SeriesPlan& plan) {
  if (plan.runs_apart)
    return "each run is its own series; whiskers span each point's samples";
  if (!plan.aggregated)
    return page.runs.size() > 1 ? "" : "whiskers span each point's samples";
  std::string text = std::to_string(page.runs.size()) + " runs";
  text += " summarised per device model: the median of the runs' medians; whiskers (a band along "
          "a line) span the lowest to the highest run median";
  if (plan.facet_by_model)
    text += "; one panel per device model";
  return text;
}

} // namespace apod::report::charts
