// Grouped bars (Chart shape bars): a bar per value of the colour param at each x, one panel per
// combination of the panel params (each on its own scale: they may differ ~100x), with the
// published figures of the same params at the same places. Runs are always combined per device
// model: several bars per x leave no room for a bar per run.
#include "charts/bars.hpp"

#include "charts/series.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"

#include <algorithm>
#include <set>

namespace apod::report::charts {

namespace {

// A panel's title: the panel params' values as the page writes them ("gist, 16 Ki floats").
std::string panel_of(const DesignInput& in, const Chart& chart, const json& params) {
  std::string text;
  for (const auto& key : chart.panels)
    text += (text.empty() ? "" : ", ") + in.experiment.param_text(key, member(params, key.c_str()));
  return text;
}

void add_published(const DesignInput& in, const Chart& chart, json& rows,
                   const std::vector<const json*>& figures, const std::vector<Plotted>& plotted) {
  for (const json* figure : figures) {
    const json& params = member(*figure, "params");
    const auto match = std::find_if(plotted.begin(), plotted.end(), [&](const Plotted& p) {
      return params.is_object() && !params.empty() &&
             std::all_of(params.items().begin(), params.items().end(), [&](const auto& kv) {
               return member(*p.params, kv.key().c_str()) == kv.value();
             });
    });
    if (match == plotted.end())
      continue;
    const double value = figure->at("value").get<double>();
    std::vector<std::string> facets;
    for (const Plotted& p : plotted)
      if (std::find(facets.begin(), facets.end(), p.facet) == facets.end())
        facets.push_back(p.facet);
    for (const auto& facet : facets)
      rows.push_back({{"kind", "published"},
                      {"panel", panel_of(in, chart, *match->params)},
                      {"facet", facet},
                      {"x", member(*match->params, chart.x.c_str())},
                      {"series", match->series},
                      {"y", value},
                      {"published", string_at(*figure, "device", "published")},
                      {"label", string_at(*figure, "device") + ": " +
                                    format_with_unit(value, string_at(*figure, "unit")) + " (" +
                                    string_at(*figure, "source") + ")"}});
  }
}

struct Titles {
  std::string x, y, series, published;
};

json layers_of(const std::vector<std::string>& kernels, const json& configs, bool published,
               const json& tooltip, const Titles& titles) {
  const json x = {{"field", "x"},
                  {"type", "ordinal"},
                  {"title", titles.x},
                  {"scale", {{"domain", configs}}},
                  {"axis", {{"labelAngle", -40}}}};
  const json offset = {{"field", "series"}, {"scale", {{"domain", kernels}}}};
  const json y = {{"field", "y"}, {"type", "quantitative"}, {"title", titles.y}};
  auto only = [](const char* kind) {
    return json::array({{{"filter", std::string("datum.kind === '") + kind + "'"}}});
  };
  // Three panels fill the page's width: the legends go below them.
  json colour = colour_encoding(kernels, titles.series);
  colour["legend"]["orient"] = "bottom";
  json layers = json::array();
  layers.push_back(
      {{"transform", only("measured")},
       {"mark", {{"type", "bar"}, {"tooltip", true}}},
       {"encoding",
        {{"x", x}, {"xOffset", offset}, {"y", y}, {"color", colour}, {"tooltip", tooltip}}}});
  layers.push_back({{"transform", only("measured")},
                    {"mark", {{"type", "rule"}, {"opacity", 0.6}}},
                    {"encoding",
                     {{"x", x},
                      {"xOffset", offset},
                      {"y", {{"field", "low"}, {"type", "quantitative"}}},
                      {"y2", {{"field", "high"}}}}}});
  if (published) // only in a panel that has some: an empty layer has no extent to draw
    layers.push_back(
        {{"transform", only("published")},
         {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"color", "#222222"}}},
         {"encoding",
          {{"x", x},
           {"xOffset", offset},
           {"y", y},
           {"shape",
            {{"field", "published"},
             {"type", "nominal"},
             {"title", titles.published},
             {"legend", {{"orient", "bottom"}}},
             {"scale", {{"range", {"diamond", "triangle-up", "cross"}}}}}},
           {"tooltip", json::array({{{"field", "label"}, {"title", "published"}}})}}}});
  return layers;
}

// One panel per panel value (and device model) in the order measured, each with its own rows
// and y scale.
json panels_spec(const json& rows, const std::vector<std::string>& kernels, const json& configs,
                 const json& tooltip, const Titles& titles) {
  std::vector<std::string> panels;
  std::vector<json> facets;
  for (const auto& row : rows) {
    if (row["kind"] == "measured")
      add_unique(panels, row["panel"].get<std::string>());
    if (std::find(facets.begin(), facets.end(), row["facet"]) == facets.end())
      facets.push_back(row["facet"]);
  }
  json lines = json::array();
  for (const auto& facet : facets) {
    json line = json::array();
    for (const auto& panel : panels) {
      json values = json::array();
      bool published = false;
      for (const auto& row : rows)
        if (row["panel"] == panel && row["facet"] == facet) {
          values.push_back(row);
          published = published || row["kind"] == "published";
        }
      line.push_back({{"title", panel},
                      {"width", 230},
                      {"height", 220},
                      {"data", {{"values", values}}},
                      {"layer", layers_of(kernels, configs, published, tooltip, titles)}});
    }
    json row = {{"hconcat", line}};
    if (!facet.empty())
      row["title"] = facet;
    lines.push_back(std::move(row));
  }
  return lines.size() == 1 ? lines[0] : json{{"vconcat", lines}};
}

} // namespace

std::optional<ChartBlock> bars_chart(const DesignInput& in, const Chart& chart) {
  const MetricView* metric = drawable_metric(in.experiment, chart.metric);
  std::vector<std::string> needed = chart.panels;
  needed.insert(needed.end(), {chart.x, chart.color});
  if (!metric || !has_params(*metric, needed))
    return std::nullopt;
  const auto points = kept_points(*metric, param_is(chart.only.first, chart.only.second));
  const SeriesPlan plan = summarised_plan(points, chart.color, true);
  const std::vector<Plotted> plotted = plot_points(points, plan);

  json rows = json::array(), configs = json::array();
  for (const Plotted& p : plotted) {
    json row = {{"kind", "measured"}, {"panel", panel_of(in, chart, *p.params)},
                {"facet", p.facet},   {"x", member(*p.params, chart.x.c_str())},
                {"series", p.series}, {"y", p.y},
                {"low", p.low},       {"high", p.high}};
    add_tooltip_fields(row, p, in.experiment, *metric);
    if (std::find(configs.begin(), configs.end(), row["x"]) == configs.end())
      configs.push_back(row["x"]);
    rows.push_back(std::move(row));
  }
  const auto figures = published_for(in.published, in.experiment, metric->metric);
  add_published(in, chart, rows, figures, plotted);

  const Titles titles{in.experiment.param_title(chart.x),
                      chart.y_title.empty() ? metric_title(metric->title(), metric->unit)
                                            : chart.y_title,
                      in.experiment.param_title(chart.color), "published"};
  const json tooltip = measured_tooltip(in.experiment, *metric, plan, plotted, false);
  json spec = panels_spec(rows, series_order(plotted), configs, tooltip, titles);
  spec["config"] = chart_config();
  Sweep for_sentence; // only its published figures, for the caption's sentence
  for_sentence.published = figures;
  std::vector<std::string> sentences = chart.sentences;
  sentences.push_back(published_sentence(for_sentence));
  return ChartBlock{spec, caption(chart.caption, in.page, plan, sentences)};
}

} // namespace apod::report::charts
