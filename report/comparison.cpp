#include "comparison.hpp"

#include "aggregate.hpp"
#include "analysis/power.hpp"
#include "charts.hpp"
#include "format.hpp"
#include "sections.hpp"
#include "telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace apod::report {

namespace {

constexpr const char* published_note = "published";

std::optional<double> price_of(const Prices& prices, const std::string& model) {
  for (const auto& [name, usd] : prices)
    if (name == model)
      return usd;
  return std::nullopt;
}


// A published figure's limit: its experiment's, as the catalog declares it. An experiment this
// build does not know is compared with PCIe when the source gives a PCIe limit, else with DRAM.
LimitKind published_limit(const json& catalog, const json& figure) {
  const json& entry = member(catalog, string_at(figure, "experiment").c_str());
  if (!entry.is_object())
    return has_number(figure, "theoretical_pcie_gbs") ? LimitKind::pcie : LimitKind::dram;
  return find_limit(string_at(member(entry, "chart"), "limit", limit_name(LimitKind::dram)))
      .value_or(LimitKind::none);
}

std::string catalog_title(const json& catalog, const std::string& experiment) {
  return string_at(member(catalog, experiment.c_str()), "title", experiment);
}

// The power drawn during the point's work (analysis/power.hpp); runs recorded before telemetry
// named the experiment in flight have only their median power.
std::optional<double> watts_of(const PointView& point) {
  const json& telemetry = point.run->run->telemetry;
  if (const auto p =
          point_power_w(point.measurement->extra, telemetry, point.measurement->experiment))
    return p->watts;
  return telemetry_names_experiments(telemetry) ? std::nullopt : median_power_w(*point.run);
}

std::optional<double> per_watt(const HeadlineSeries& series) {
  std::vector<double> values;
  for (const PointView* point : series.points)
    if (const auto watts = watts_of(*point); watts && *watts > 0)
      values.push_back(point->median / *watts);
  return median_of(values);
}

// Published figures of the experiments these results measured (the devices table names the rest).
void add_published(std::vector<DeviceFigure>& figures, const std::vector<const json*>& published,
                   const json& catalog, const std::vector<std::string>& measured) {
  std::map<std::string, std::size_t> best; // device + experiment + metric -> index in figures
  for (const json* figure : published) {
    const std::string experiment = string_at(*figure, "experiment");
    if (string_at(*figure, "unit") != "GB/s" || !has_number(*figure, "value") ||
        std::find(measured.begin(), measured.end(), experiment) == measured.end())
      continue;
    const LimitKind limit = published_limit(catalog, *figure);
    if (limit == LimitKind::none)
      continue;
    DeviceFigure row;
    row.figure = catalog_title(catalog, experiment) + ": " +
                 display_name(string_at(*figure, "metric", "value"));
    row.device = string_at(*figure, "device", "unknown device");
    row.source = string_at(*figure, "source", published_note);
    row.point = format_params(member(*figure, "params"));
    row.published = true;
    row.gbs = figure->at("value").get<double>();
    row.limit = limit;
    const char* limit_key =
        limit == LimitKind::pcie ? "theoretical_pcie_gbs" : "theoretical_bandwidth_gbs";
    if (has_number(*figure, limit_key) && figure->at(limit_key).get<double>() > 0)
      row.pct_of_limit = 100.0 * row.gbs / figure->at(limit_key).get<double>();
    const std::string key = row.device + '\n' + row.figure;
    if (const auto it = best.find(key); it == best.end())
      best[key] = figures.size(), figures.push_back(std::move(row));
    else if (row.gbs > figures[it->second].gbs)
      figures[it->second] = std::move(row);
  }
}

std::string or_text(const std::optional<double>& value, const std::string& unit,
                    const std::string& otherwise) {
  return value ? format_with_unit(*value, unit) : otherwise;
}

// Horizontal bars, one group per figure: its names are long, and they read best as row labels.
json bar_chart(json rows, const std::string& x_title, const json& tooltip, bool with_limit_rule) {
  std::vector<std::string> figures, devices;
  for (const auto& row : rows) {
    for (auto [list, key] : {std::pair{&figures, "figure"}, std::pair{&devices, "device"}})
      if (std::find(list->begin(), list->end(), row[key].get<std::string>()) == list->end())
        list->push_back(row[key].get<std::string>());
  }
  const std::size_t height = figures.size() * (devices.size() * 14 + 12);
  const json y = {{"field", "figure"},
                  {"type", "nominal"},
                  {"sort", nullptr},
                  {"title", nullptr},
                  {"axis", {{"labelLimit", 320}}}};
  json bars = {{"data", {{"values", std::move(rows)}}},
               {"mark", {{"type", "bar"}, {"tooltip", true}}},
               {"encoding",
                {{"y", y},
                 {"yOffset", {{"field", "device"}, {"sort", nullptr}}},
                 {"x", {{"field", "value"}, {"type", "quantitative"}, {"title", x_title}}},
                 {"color",
                  {{"field", "device"},
                   {"type", "nominal"},
                   {"sort", nullptr},
                   {"title", "device"},
                   {"legend", {{"orient", "bottom"}, {"columns", 2}, {"labelLimit", 360}}}}},
                 {"opacity",
                  {{"field", "published"},
                   {"type", "nominal"},
                   {"legend", nullptr},
                   {"scale", {{"domain", {false, true}}, {"range", {1.0, 0.45}}}}}},
                 {"tooltip", tooltip}}}};
  json layers = json::array({std::move(bars)});
  if (with_limit_rule)
    layers.push_back({{"mark", {{"type", "rule"}, {"color", "#b3261e"}, {"strokeDash", {6, 4}}}},
                      {"encoding", {{"x", {{"datum", 100}}}}}});
  return {{"width", "container"},
          {"height", std::max<std::size_t>(height, 60)},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

json percent_chart(const std::vector<DeviceFigure>& figures) {
  json rows = json::array();
  for (const auto& f : figures)
    if (f.pct_of_limit)
      rows.push_back({{"figure", f.figure},
                      {"device", f.device + (f.published ? " (published)" : "")},
                      {"source", f.source},
                      {"value", *f.pct_of_limit},
                      {"pct_text", format_percent(*f.pct_of_limit) + " of " + std::string(limit_word(f.limit))},
                      {"value_text", format_with_unit(f.gbs, "GB/s")},
                      {"point", f.point},
                      {"published", f.published}});
  if (rows.empty())
    return nullptr;
  const json tooltip = {{{"field", "device"}, {"title", "device"}},
                        {{"field", "value_text"}, {"title", "figure"}},
                        {{"field", "pct_text"}, {"title", "% of theoretical"}},
                        {{"field", "point"}, {"title", "point"}},
                        {{"field", "source"}, {"title", "source"}}};
  return bar_chart(std::move(rows), "% of the device's own theoretical limit", tooltip, true);
}

json efficiency_chart(const std::vector<DeviceFigure>& figures, bool per_dollar) {
  json rows = json::array();
  for (const auto& f : figures) {
    const auto& value = per_dollar ? f.gbs_per_kusd : f.gbs_per_w;
    if (value)
      rows.push_back({{"figure", f.figure},
                      {"device", f.device},
                      {"value", *value},
                      {"published", false},
                      {"value_text",
                       format_number(*value) + (per_dollar ? " GB/s per $1000" : " GB/s per W")}});
  }
  if (rows.empty())
    return nullptr;
  const json tooltip = {
      {{"field", "device"}, {"title", "device"}},
      {{"field", "figure"}, {"title", "figure"}},
      {{"field", "value_text"}, {"title", per_dollar ? "per dollar" : "per watt"}}};
  return bar_chart(std::move(rows), per_dollar ? "GB/s per $1000" : "GB/s per W", tooltip, false);
}

TableData devices_table(const PageModel& page, const std::vector<const json*>& published,
                        const Prices& prices, bool with_power) {
  std::vector<Column> columns = {{"device", ""},
                                 {"source", ""},
                                 {"theoretical DRAM", numeric},
                                 {"theoretical PCIe", numeric},
                                 {"runs", numeric}};
  if (!prices.empty())
    columns.push_back({"price", numeric});
  if (with_power)
    columns.push_back({"median power", numeric});
  columns.push_back({"figures", ""});
  TableData table(std::move(columns), "compared-devices");
  for (const auto& model : page.device_models) {
    const auto runs = page.runs_of_model(model);
    std::vector<double> watts;
    for (const RunView* run : runs)
      if (const auto w = median_power_w(*run))
        watts.push_back(*w);
    std::vector<Cell> cells = {{model},
                               {"measured"},
                               {or_text(runs.front()->dram_gbs, "GB/s", "unknown"), numeric},
                               {or_text(runs.front()->pcie_gbs, "GB/s", "unknown"), numeric},
                               {std::to_string(runs.size()), numeric}};
    if (!prices.empty()) {
      const auto usd = price_of(prices, model);
      cells.push_back({usd ? fmt::format("${:.0f}", *usd) : "no price given", numeric});
    }
    if (with_power)
      cells.push_back({or_text(median_of(watts), "W", "no power telemetry"), numeric});
    cells.push_back({"this report"});
    table.add_row(cells);
  }
  // The source documents' devices, for context: their limits, and what they published.
  std::vector<std::string> devices;
  std::map<std::string, std::vector<const json*>> figures_of;
  for (const json* figure : published) {
    const std::string device = string_at(*figure, "device", "unknown device");
    if (!figures_of.count(device))
      devices.push_back(device);
    figures_of[device].push_back(figure);
  }
  for (const auto& device : devices) {
    const json& first = *figures_of[device].front();
    std::vector<std::string> kinds;
    bool bandwidth = false;
    for (const json* figure : figures_of[device]) {
      bandwidth = bandwidth || string_at(*figure, "unit") == "GB/s";
      const std::string experiment = string_at(*figure, "experiment");
      if (std::find(kinds.begin(), kinds.end(), experiment) == kinds.end())
        kinds.push_back(experiment);
    }
    std::string what = bandwidth ? "bandwidth: " : "times only, no bandwidth to normalise: ";
    for (std::size_t i = 0; i < kinds.size(); ++i)
      what += (i ? ", " : "") + kinds[i];
    const auto limit = [&](const char* key) {
      return has_number(first, key) ? format_with_unit(first.at(key).get<double>(), "GB/s") : "—";
    };
    std::vector<Cell> cells = {{device},
                               {string_at(first, "source", published_note)},
                               {limit("theoretical_bandwidth_gbs"), numeric},
                               {limit("theoretical_pcie_gbs"), numeric},
                               {"—", numeric}};
    if (!prices.empty())
      cells.push_back({"—", numeric});
    if (with_power)
      cells.push_back({"—", numeric});
    cells.push_back({what});
    table.add_row(cells, "published");
  }
  return table;
}

TableData figures_table(const std::vector<DeviceFigure>& figures, bool with_price,
                        bool with_power) {
  std::vector<Column> columns = {{"figure", ""}, {"device", ""},    {"source", ""},
                                 {"at", ""},     {"GB/s", numeric}, {"% of theoretical", numeric}};
  if (with_price)
    columns.push_back({"GB/s per $1000", numeric});
  if (with_power)
    columns.push_back({"GB/s per W", numeric});
  TableData table(std::move(columns), "comparison");
  for (const auto& f : figures) {
    std::vector<Cell> cells = {
        {f.figure},
        {f.device},
        {f.source},
        {f.point},
        {format_with_unit(f.gbs, "GB/s"), numeric},
        {f.pct_of_limit ? format_percent(*f.pct_of_limit) + " of " + std::string(limit_word(f.limit)) : "—",
         numeric}};
    if (with_price)
      cells.push_back({f.published      ? "—"
                       : f.gbs_per_kusd ? format_number(*f.gbs_per_kusd)
                                        : "no price",
                       numeric});
    if (with_power)
      cells.push_back({f.published   ? "—"
                       : f.gbs_per_w ? format_number(*f.gbs_per_w)
                                     : "no power telemetry",
                       numeric});
    table.add_row(cells, f.published ? "published" : "");
  }
  return table;
}

} // namespace

std::vector<DeviceFigure> device_figures(const PageModel& page,
                                         const std::vector<HeadlineSeries>& headlines,
                                         const std::vector<const json*>& published,
                                         const json& catalog, const Prices& prices) {
  std::vector<DeviceFigure> figures;
  std::vector<std::string> measured;
  for (const auto& experiment : page.experiments)
    measured.push_back(experiment.name);
  for (const auto& series : headlines) {
    const LimitKind limit = series.experiment->chart.limit;
    if (series.metric->unit != "GB/s" || limit == LimitKind::none)
      continue;
    DeviceFigure row;
    row.figure = series.title(false);
    row.device = series.device_model;
    row.source = fmt::format("measured, {} run{}", series.points.size(),
                             series.points.size() == 1 ? "" : "s");
    row.point = format_params(series.headline->measurement->params);
    row.gbs = series.median;
    row.limit = limit;
    row.pct_of_limit = series.pct_of_limit;
    if (const auto usd = price_of(prices, series.device_model))
      row.gbs_per_kusd = series.median / (*usd / 1000.0);
    row.gbs_per_w = per_watt(series);
    figures.push_back(std::move(row));
  }
  add_published(figures, published, catalog, measured);
  // Side by side: each figure's devices together, measured before published, in first-seen order.
  std::vector<std::string> order;
  for (const auto& f : figures)
    if (std::find(order.begin(), order.end(), f.figure) == order.end())
      order.push_back(f.figure);
  std::stable_sort(
      figures.begin(), figures.end(), [&](const DeviceFigure& a, const DeviceFigure& b) {
        const auto rank = [&](const DeviceFigure& f) {
          return std::pair(std::find(order.begin(), order.end(), f.figure) - order.begin(),
                           f.published);
        };
        return rank(a) < rank(b);
      });
  return figures;
}

mustache::data comparison_section(const PageModel& page,
                                  const std::vector<HeadlineSeries>& headlines,
                                  const std::vector<const json*>& published, const json& catalog,
                                  const Prices& prices, int& next_chart) {
  if (page.device_models.size() < 2 && prices.empty())
    return false;
  const std::vector<DeviceFigure> figures =
      device_figures(page, headlines, published, catalog, prices);
  const bool with_power = std::any_of(page.runs.begin(), page.runs.end(), [](const RunView& r) {
    return median_power_w(r).has_value();
  });
  const bool with_price = std::any_of(figures.begin(), figures.end(), [](const DeviceFigure& f) {
    return f.gbs_per_kusd.has_value();
  });

  std::vector<std::string> notes = {
      "Each device's headline figures as a percentage of its own theoretical limit: device-memory "
      "figures of DRAM bandwidth, transfer figures of PCIe bandwidth per direction. Measured "
      "figures are the median over the device model's runs; published ones are the best figure "
      "each source document gives for the experiment, normalised the same way."};
  if (!prices.empty()) {
    std::string unknown;
    for (const auto& [model, usd] : prices)
      if (std::find(page.device_models.begin(), page.device_models.end(), model) ==
          page.device_models.end())
        unknown += (unknown.empty() ? "" : ", ") + model;
    notes.push_back("GB/s per $1000: the figure over the price given with --prices." +
                    (unknown.empty()
                         ? std::string()
                         : " Prices for models not in these results: " + unknown + "."));
  }
  if (with_power)
    notes.push_back("GB/s per W: each run's figure over the power drawn during that point's work "
                    "(energy counter, else readings during it or its experiment; older runs: the "
                    "run's median power), then the median over the runs.");
  else if (!prices.empty())
    notes.push_back("No run has power telemetry, so there is no GB/s per W.");

  mustache::data section;
  mustache::data note_list{mustache::data::type::list};
  for (const auto& note : notes)
    note_list.push_back(note);
  section.set("notes", note_list);
  section.set("compared_devices", devices_table(page, published, prices, with_power).data());
  section.set("figures", figures_table(figures, with_price, with_power).data());
  mustache::data charts{mustache::data::type::list};
  if (const json spec = percent_chart(figures); !spec.is_null())
    charts.push_back(chart_block(spec,
                                 "Headline figures as % of each device's own theoretical limit; "
                                 "pale bars are published figures; dashed line: 100 %",
                                 next_chart));
  if (const json spec = efficiency_chart(figures, true); !spec.is_null())
    charts.push_back(chart_block(spec, "GB/s per $1000 of the device's price", next_chart));
  if (const json spec = efficiency_chart(figures, false); !spec.is_null())
    charts.push_back(chart_block(spec, "GB/s per W of the run's median power", next_chart));
  section.set("charts", charts);
  return section;
}

} // namespace apod::report
