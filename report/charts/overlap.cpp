// overlap_matrix: the gist's table as grouped bars, one panel per variant and size (their
// scales differ ~100x), a bar per kernel in each row of the table, with the gist's own published
// rows (NVS 5200M, K20c) at the same places. Runs are always combined per device model: three
// kernels per row leave no room for a bar per run.
#include "charts/designs.hpp"

#include "format.hpp"

#include <algorithm>
#include <set>

namespace apod::report::charts {

namespace {

std::string panel_of(const json& params) {
  const std::string variant = string_at(params, "variant", "gist");
  const json& n = member(params, "n");
  if (!n.is_number())
    return variant;
  const double floats = n.get<double>();
  return variant + ", " +
         (floats >= 1048576 ? plain_number(floats / 1048576) + " Mi floats"
                            : plain_number(floats / 1024) + " Ki floats");
}

// The gist first, then the corrected variant by size: the order the experiment measures in.
double panel_order(const json& params) {
  const json& n = member(params, "n");
  return (string_at(params, "variant", "gist") == "gist" ? 0 : 1e12) +
         (n.is_number() ? n.get<double>() : 0);
}

void add_published(json& rows, const std::vector<const json*>& figures,
                   const std::vector<Plotted>& plotted) {
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
                      {"panel", panel_of(*match->params)},
                      {"panel_order", panel_order(*match->params)},
                      {"facet", facet},
                      {"x", member(*match->params, "config")},
                      {"series", match->series},
                      {"y", value},
                      {"published", string_at(*figure, "device", "published")},
                      {"label", string_at(*figure, "device") + ": " +
                                    format_with_unit(value, string_at(*figure, "unit")) + " (" +
                                    string_at(*figure, "source") + ")"}});
  }
}

json layers_of(const std::vector<std::string>& kernels, const json& configs, bool published,
               const json& tooltip) {
  const json x = {{"field", "x"},
                  {"type", "ordinal"},
                  {"title", "host memory / stream"},
                  {"scale", {{"domain", configs}}},
                  {"axis", {{"labelAngle", -40}}}};
  const json offset = {{"field", "series"}, {"scale", {{"domain", kernels}}}};
  const json y = {{"field", "y"}, {"type", "quantitative"}, {"title", "overall time, median (ms)"}};
  auto only = [](const char* kind) {
    return json::array({{{"filter", std::string("datum.kind === '") + kind + "'"}}});
  };
  // Three panels fill the page's width: the legends go below them.
  json colour = colour_encoding(kernels, "kernel");
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
             {"title", "published (the gist)"},
             {"legend", {{"orient", "bottom"}}},
             {"scale", {{"range", {"diamond", "triangle-up", "cross"}}}}}},
           {"tooltip", json::array({{{"field", "label"}, {"title", "published"}}})}}}});
  return layers;
}

// One panel per variant and size (and device model), each with its own rows and y scale.
json panels_spec(const json& rows, const std::vector<std::string>& kernels, const json& configs,
                 const json& tooltip) {
  std::vector<std::pair<double, std::string>> panels;
  std::vector<std::string> facets;
  for (const auto& row : rows) {
    const std::pair<double, std::string> panel{row["panel_order"], row["panel"]};
    if (std::find(panels.begin(), panels.end(), panel) == panels.end())
      panels.push_back(panel);
    if (std::find(facets.begin(), facets.end(), row["facet"]) == facets.end())
      facets.push_back(row["facet"]);
  }
  std::sort(panels.begin(), panels.end());
  json lines = json::array();
  for (const auto& facet : facets) {
    json line = json::array();
    for (const auto& [order, panel] : panels) {
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
                      {"layer", layers_of(kernels, configs, published, tooltip)}});
    }
    json row = {{"hconcat", line}};
    if (!facet.empty())
      row["title"] = facet;
    lines.push_back(std::move(row));
  }
  return lines.size() == 1 ? lines[0] : json{{"vconcat", lines}};
}

} // namespace

std::vector<ChartBlock> overlap_matrix_charts(const DesignInput& in) {
  const MetricView* overall = drawable_metric(in.experiment, "overall_ms");
  if (!overall || !has_params(*overall, {"config", "kernel"}))
    return {};
  const auto points = kept_points(*overall, nullptr);
  const SeriesPlan plan = summarised_plan(points, "kernel", true);
  const std::vector<Plotted> plotted = plot_points(points, plan);

  json rows = json::array(), configs = json::array();
  std::vector<std::string> panels;
  for (const Plotted& p : plotted) {
    json row = {{"kind", "measured"},
                {"panel", panel_of(*p.params)},
                {"panel_order", panel_order(*p.params)},
                {"facet", p.facet},
                {"x", member(*p.params, "config")},
                {"series", p.series},
                {"y", p.y},
                {"low", p.low},
                {"high", p.high}};
    add_tooltip_fields(row, p, in.experiment, *overall);
    if (std::find(configs.begin(), configs.end(), row["x"]) == configs.end())
      configs.push_back(row["x"]);
    rows.push_back(std::move(row));
  }
  const auto figures = published_for(in.published, in.experiment, overall->metric);
  add_published(rows, figures, plotted);

  const json tooltip = measured_tooltip(in.experiment, *overall, plan, plotted, false);
  json spec = panels_spec(rows, series_order(plotted), configs, tooltip);
  spec["config"] = chart_config();
  Sweep for_sentence; // only its published figures, for the caption's sentence
  for_sentence.published = figures;
  return {{spec, caption("Overall time of each of the gist's 18 rows (host memory and stream "
                         "across, a bar per kernel), one panel per variant and size, each on its "
                         "own scale; gist: the gist's O, from before the host writes the input "
                         "to after the copy back; corrected: from the H2D start to the D2H end",
                         in.page, plan, {published_sentence(for_sentence)})}};
}

} // namespace apod::report::charts
