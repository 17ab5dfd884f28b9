#include "charts/comparison.hpp"

#include "charts/chart.hpp"
#include "format.hpp"
#include "palette.hpp"

#include <algorithm>
#include <set>

namespace apod::report {

std::optional<double> measure_of(const ModelFigure& figure, Measure measure) {
  switch (measure) {
  case Measure::pct_of_limit:
    return figure.across.pct_of_limit;
  case Measure::per_kusd:
    return figure.per_kusd;
  case Measure::per_w:
    return figure.per_w;
  }
  return std::nullopt;
}

std::string measure_title(Measure measure, const std::string& family, const std::string& unit) {
  switch (measure) {
  case Measure::pct_of_limit:
    return "% of the device's own " + family_title(family) + " limit";
  case Measure::per_kusd:
    return unit + " per $1000";
  case Measure::per_w:
    return unit + " per W";
  }
  return "";
}

namespace {

// The figures down the side, in the order given, never cut.
json figure_axis() {
  return {{"field", "figure"},
          {"type", "nominal"},
          {"sort", nullptr},
          {"title", nullptr},
          {"axis", {{"labelLimit", 0}}}};
}

// The height of a chart of a bar per model for each distinct figure of `rows`.
std::size_t bars_height(const json& rows, std::size_t models) {
  std::set<std::string> figures;
  for (const auto& row : rows)
    figures.insert(row["figure"].get<std::string>());
  return figures.size() * (models * 14 + 14);
}

// A bar per device model and figure, coloured by the model's page-wide colour, with the
// tooltip's device, figure and point and then `values` (the absolute and the % charts share it).
json device_bars(const json& y, const std::vector<std::string>& models,
                 const std::vector<std::string>& colours, const std::string& title,
                 const json& values) {
  json tooltip = json::array({{{"field", "device"}, {"title", "device"}},
                              {{"field", "figure"}, {"title", "figure"}},
                              {{"field", "point"}, {"title", "at"}}});
  for (const auto& value : values)
    tooltip.push_back(value);
  return {{"mark", {{"type", "bar"}, {"tooltip", true}}},
          {"encoding",
           {{"y", y},
            {"yOffset", {{"field", "device"}, {"sort", models}}},
            {"x", {{"field", "value"}, {"type", "quantitative"}, {"title", title}}},
            {"color",
             {{"field", "device"},
              {"type", "nominal"},
              {"title", "device"},
              {"scale", {{"domain", models}, {"range", colours}}},
              {"legend", {{"orient", "bottom"}, {"labelLimit", 0}}}}},
            {"tooltip", tooltip}}}};
}

} // namespace

json absolute_chart(const std::vector<MatchedFigure>& figures, const std::string& unit,
                    const std::vector<std::string>& models,
                    const std::vector<std::string>& colours) {
  json rows = json::array();
  std::string direction;
  for (const auto& figure : figures) {
    if (figure.metric->unit != unit)
      continue;
    const std::string words = direction_words(*figure.metric);
    direction = direction.empty() || direction == words ? words : "mixed";
    const std::string label =
        short_title(figure.experiment->title) + " · " + display_name(figure.metric->metric) +
        (figure.workload == Workload::compute
             ? " · " + figure.workload_label.substr(figure.workload_label.find(' ') + 1)
             : std::string());
    for (const auto& model : figure.models)
      rows.push_back({{"figure", label},
                      {"device", model.model},
                      {"value", round_significant(model.across.median)},
                      {"low", round_significant(model.across.min)},
                      {"high", round_significant(model.across.max)},
                      {"value_text", format_with_unit(model.across.median, unit)},
                      {"range_text", format_range(model.across.min, model.across.max, unit)},
                      {"runs", model.across.points.size()},
                      {"point", format_params(*model.across.params)}});
  }
  if (rows.empty())
    return nullptr;
  const std::string title = unit + (direction == "mixed" ? "" : " (" + direction + ")");
  const json y = figure_axis();
  const json y_offset = {{"field", "device"}, {"sort", models}};
  json bars = device_bars(y, models, colours, title,
                          {{{"field", "value_text"}, {"title", "median of run medians"}},
                           {{"field", "range_text"}, {"title", "range of run medians"}},
                           {{"field", "runs"}, {"title", "runs"}}});
  // The run spread: a whisker from the lowest to the highest run median.
  json whiskers = {{"mark", {{"type", "rule"}, {"color", "#222"}}},
                   {"encoding",
                    {{"y", y},
                     {"yOffset", y_offset},
                     {"x", {{"field", "low"}, {"type", "quantitative"}}},
                     {"x2", {{"field", "high"}}}}}};
  const std::size_t height = bars_height(rows, models.size());
  return {{"width", "container"},
          {"height", std::max<std::size_t>(height, 60)},
          {"data", {{"values", std::move(rows)}}},
          {"layer", json::array({std::move(bars), std::move(whiskers)})},
          {"config", chart_config()}};
}

json matched_chart(const std::vector<MatchedFigure>& figures, const std::string& family,
                   Measure measure, const std::vector<std::string>& models,
                   const std::vector<std::string>& colours) {
  json rows = json::array();
  std::string unit;
  for (const auto& figure : figures) {
    if (figure.family != family)
      continue;
    std::size_t with_value = 0;
    for (const auto& model : figure.models)
      with_value += measure_of(model, measure).has_value();
    if (with_value < 2)
      continue; // a bar with nothing beside it compares nothing
    unit = figure.metric->unit;
    const std::string label =
        short_title(figure.experiment->title) + " · " + display_name(figure.metric->metric);
    for (const auto& model : figure.models)
      if (const auto value = measure_of(model, measure))
        rows.push_back({{"figure", label},
                        {"device", model.model},
                        {"value", round_significant(*value)},
                        {"value_text", measure == Measure::pct_of_limit ? format_percent(*value)
                                                                        : format_number(*value)},
                        {"point", format_params(figure.params)}});
  }
  if (rows.empty())
    return nullptr;
  const std::string title = measure_title(measure, family, unit);
  const json y = figure_axis();
  json bars = device_bars(y, models, colours, title, {{{"field", "value_text"}, {"title", title}}});
  json layers = json::array({std::move(bars)});
  if (measure == Measure::pct_of_limit)
    layers.push_back({{"mark", {{"type", "rule"}, {"color", alarm_colour}, {"strokeDash", {6, 4}}}},
                      {"encoding", {{"x", {{"datum", 100}}}}}});
  const std::size_t height = bars_height(rows, models.size());
  return {{"width", "container"},
          {"height", std::max<std::size_t>(height, 60)},
          {"data", {{"values", std::move(rows)}}},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

} // namespace apod::report
