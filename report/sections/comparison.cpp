// The buyer's comparison (Phoronix's result viewer, made fair): with two or more device models,
// matched points only (same experiment version, parameters and metric) side by side. First one
// line per workload class (memory-bound, compute per precision, host link, GPU-GPU link, latency
// at DRAM): the geometric mean of the class's headline figures, per $ and per W measured during
// the work; then the absolute figures with the run spread; then each figure against its own
// device's limit, labelled as such, with its composite; and published figures beside the same
// measurement only.
#include "sections/comparison.hpp"

#include "charts/comparison.hpp"
#include "class_lines.hpp"
#include "format.hpp"
#include "matched.hpp"
#include "palette.hpp"
#include "watts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace apod::report {

namespace {

// Past this many rows a table starts folded.
constexpr std::size_t open_rows = 40;

std::string or_dash(const std::optional<double>& value, const std::string& unit) {
  return value ? format_with_unit(*value, unit) : "—";
}

// The power each model drew during its headline figures' work (point_watts): the median over
// their runs; nothing where no power was measured during that work.
std::optional<double> power_under_load(const std::vector<MatchedFigure>& figures,
                                       const std::string& model) {
  std::vector<double> watts;
  for (const auto& figure : figures)
    for (const auto& m : figure.models)
      if (m.model == model)
        for (const PointView* point : m.across.points)
          if (const auto w = point_watts(*point).watts)
            watts.push_back(*w);
  return median_of(watts);
}

TableData devices_table(const PageContext& context, const std::vector<MatchedFigure>& headline) {
  const PageModel& page = context.page;
  const Prices& prices = context.options.prices;
  const BoardPowers& boards = context.options.board_power_w;
  std::vector<Column> columns = {{"device", ""},
                                 {"runs", numeric},
                                 {"theoretical DRAM", numeric},
                                 {"theoretical PCIe", numeric},
                                 {"price", numeric},
                                 {"power measured during the work", numeric}};
  if (!boards.empty())
    columns.push_back({"board power (prices file), not measured", numeric});
  TableData table(std::move(columns), "compared-devices");
  for (const auto& model : page.device_models) {
    const auto runs = page.runs_of_model(model);
    const auto usd = price_of(prices, model);
    const auto watts = power_under_load(headline, model);
    std::vector<Cell> cells = {
        {model},
        figure_cell(std::to_string(runs.size()), double(runs.size())),
        figure_cell(or_dash(runs.front()->dram_gbs, "GB/s"), runs.front()->dram_gbs),
        figure_cell(or_dash(runs.front()->pcie_gbs, "GB/s"), runs.front()->pcie_gbs),
        figure_cell(usd ? fmt::format("${:.0f}", *usd) : "no price given", usd),
        figure_cell(watts ? format_with_unit(*watts, "W") : "n/a (not measured during the work)",
                    watts)};
    if (!boards.empty()) {
      const auto board = price_of(boards, model);
      cells.push_back(
          figure_cell(board ? format_with_unit(*board, "W") + " board power" : "—", board));
    }
    table.add_row(cells);
  }
  return table.sortable();
}

// Per family, per model: the geometric mean of % of limit over the headline figures of that
// family that every compared model has a percentage for, so each model is averaged over the
// same figures.
TableData composite_table(const std::vector<MatchedFigure>& headline,
                          const std::vector<std::string>& models) {
  std::vector<Column> columns = {{"family", ""}, {"figures", numeric}};
  for (const auto& model : models)
    columns.push_back({model, numeric});
  TableData table(std::move(columns), "composite");
  std::vector<std::string> families;
  for (const auto& figure : headline)
    if (!figure.family.empty() &&
        std::find(families.begin(), families.end(), figure.family) == families.end())
      families.push_back(figure.family);
  for (const auto& family : families) {
    std::map<std::string, double> log_sum;
    std::size_t count = 0;
    for (const auto& figure : headline) {
      const bool complete =
          figure.family == family && figure.models.size() == models.size() &&
          std::all_of(figure.models.begin(), figure.models.end(), [](const ModelFigure& m) {
            return m.across.pct_of_limit && *m.across.pct_of_limit > 0;
          });
      if (!complete)
        continue;
      ++count;
      for (const auto& m : figure.models)
        log_sum[m.model] += std::log(*m.across.pct_of_limit);
    }
    if (count == 0)
      continue;
    std::vector<Cell> cells = {{family_title(family)},
                               figure_cell(std::to_string(count), double(count))};
    for (const auto& model : models) {
      const double mean = std::exp(log_sum[model] / count);
      cells.push_back(figure_cell(format_percent(mean), mean));
    }
    table.add_row(cells);
  }
  return table;
}

// A table cell's n/a: the reason without the words every row shares ("power not measured
// during this experiment in these runs" -> "n/a: not measured during this experiment").
std::string short_reason(const ModelFigure& m) {
  std::string reason = m.per_w_missing;
  for (const char* shared : {"power ", " in these runs"})
    if (const auto at = reason.find(shared); at != std::string::npos)
      reason.erase(at, std::string(shared).size());
  return "n/a: " + reason;
}

std::string version_text(const MatchedFigure& figure) {
  std::string text = fmt::format("v{}", figure.version);
  if (!figure.other_versions.empty()) {
    std::string others;
    for (const long long v : figure.other_versions)
      others += fmt::format("{}v{}", others.empty() ? "" : ", ", v);
    text += " (" + others + " left out)";
  }
  return text;
}

// Absolute figures first: each model's median of its runs' medians with their range, then the
// relative figure, % of its own limit, per $ and per W (or why there is none).
TableData figures_table(const std::vector<MatchedFigure>& figures, bool headline) {
  const bool prices = std::any_of(figures.begin(), figures.end(), [](const MatchedFigure& f) {
    return std::count_if(f.models.begin(), f.models.end(),
                         [](const ModelFigure& m) { return m.per_kusd.has_value(); }) >= 2;
  });
  std::vector<Column> columns = {{"figure", ""},
                                 {"class", ""},
                                 {"version", ""},
                                 {"device", ""},
                                 {"at", ""},
                                 {"median", numeric},
                                 {"range (min – max)", numeric},
                                 {"runs", numeric},
                                 {"relative", numeric}};
  if (!headline) // the headline table is absolute; % of each card's own limit comes after it
    columns.push_back({"% of its own limit", numeric});
  if (prices)
    columns.push_back({"per $1000", numeric});
  columns.push_back({"per W", numeric});
  TableData table(std::move(columns), headline ? "comparison" : "comparison-all");
  for (const auto& figure : figures) {
    const ModelFigure& best = figure.best();
    const std::string unit = figure.metric->unit;
    for (const auto& m : figure.models) {
      const double relative = 1.0 / figure.advantage(m);
      std::vector<Cell> cells = {
          {short_title(figure.experiment->title) + " · " + display_name(figure.metric->metric) +
               " (" + direction_words(*figure.metric) + ")",
           "", 0, figure.experiment->anchor},
          {figure.workload == Workload::other ? "—" : figure.workload_label},
          {version_text(figure)},
          {m.model},
          {format_params(*m.across.params)},
          figure_cell(format_with_unit(m.across.median, unit), m.across.median),
          figure_cell(format_number(m.across.min) + " – " + format_number(m.across.max),
                      m.across.max - m.across.min),
          figure_cell(std::to_string(m.across.points.size()), double(m.across.points.size())),
          figure_cell(&m == &best ? "best" : format_ratio(relative), relative)};
      if (!headline)
        cells.push_back(
            figure_cell(m.across.pct_of_limit ? format_percent(*m.across.pct_of_limit) : "—",
                        m.across.pct_of_limit));
      if (prices)
        cells.push_back(figure_cell(m.per_kusd ? format_number(*m.per_kusd) : "—", m.per_kusd));
      cells.push_back(figure_cell(m.per_w ? format_number(*m.per_w) : short_reason(m), m.per_w));
      table.add_row(cells, &m == &best ? "best" : "");
    }
  }
  return table.sortable();
}

bool params_contain(const json& params, const json& wanted) {
  if (!wanted.is_object())
    return true;
  for (const auto& [key, value] : wanted.items())
    if (!params.is_object() || !params.contains(key) || params.at(key) != value)
      return false;
  return true;
}

// Published figures beside the same measurement: the same experiment and metric, at a point
// whose parameters include every parameter the publication states.
TableData published_table(const PageContext& context) {
  TableData table({{"figure", ""},
                   {"device", ""},
                   {"at", ""},
                   {"value", numeric},
                   {"% of its limit", numeric},
                   {"source", ""}},
                  "published-matched");
  for (const json* published : context.published) {
    const std::string experiment_name = string_at(*published, "experiment");
    const auto experiment =
        std::find_if(context.page.experiments.begin(), context.page.experiments.end(),
                     [&](const ExperimentView& e) { return e.name == experiment_name; });
    if (experiment == context.page.experiments.end() || !has_number(*published, "value"))
      continue;
    const std::string metric_name = string_at(*published, "metric");
    const std::string unit = string_at(*published, "unit");
    const auto metric = std::find_if(
        experiment->metrics.begin(), experiment->metrics.end(),
        [&](const MetricView& m) { return m.metric == metric_name && m.unit == unit; });
    if (metric == experiment->metrics.end())
      continue;
    std::vector<const PointAcrossRuns*> ours;
    const auto& groups = points_across_runs(*metric);
    for (const auto& model : context.page.device_models) {
      const PointAcrossRuns* best = nullptr;
      for (const auto& group : groups)
        if (group.device_model == model && params_contain(*group.params, (*published)["params"]) &&
            (!best || (metric->higher_is_better ? group.median > best->median
                                                : group.median < best->median)))
          best = &group;
      if (best)
        ours.push_back(best);
    }
    if (ours.empty())
      continue;
    const double value = published->at("value").get<double>();
    const std::optional<double> pct = published_pct_of_limit(*published, metric->limit());
    const std::string figure = experiment->title + ": " + display_name(metric_name);
    table.add_row({{figure, "", 0, experiment->anchor},
                   {string_at(*published, "device", "unknown device") + " (published)"},
                   {format_params(member(*published, "params"))},
                   {format_with_unit(value, unit), numeric},
                   {pct ? format_percent(*pct) : "—", numeric},
                   {string_at(*published, "source", "published")}},
                  "published");
    for (const PointAcrossRuns* group : ours)
      table.add_row({{figure, "", 0, experiment->anchor},
                     {group->device_model},
                     {format_params(*group->params)},
                     {format_with_unit(group->median, unit), numeric},
                     {group->pct_of_limit ? format_percent(*group->pct_of_limit) : "—", numeric},
                     {fmt::format("measured, {} runs", group->points.size())}});
  }
  return table;
}

mustache::data folded(const TableData& table, const std::string& summary) {
  mustache::data block = table.data();
  block.set("open", table.row_count() <= open_rows);
  block.set("summary", summary);
  return block;
}

// One chart per workload class and unit: a host link's GB/s never shares an axis with DRAM's.
mustache::data absolute_charts(const PageContext& context,
                               const std::vector<MatchedFigure>& figures) {
  const auto& models = context.page.device_models;
  const auto colours = stable_colours(models);
  std::vector<std::pair<Workload, std::string>> groups;
  for (const auto& figure : figures)
    if (figure.workload != Workload::other &&
        std::find(groups.begin(), groups.end(), std::pair(figure.workload, figure.metric->unit)) ==
            groups.end())
      groups.emplace_back(figure.workload, figure.metric->unit);
  mustache::data charts{mustache::data::type::list};
  for (const auto& [workload, unit] : groups) {
    std::vector<MatchedFigure> group;
    std::string words;
    for (const auto& figure : figures)
      if (figure.workload == workload && figure.metric->unit == unit) {
        group.push_back(figure);
        if (words.empty())
          words = workload == Workload::compute ? "compute" : figure.workload_label;
      }
    const json spec = absolute_chart(group, unit, models, colours);
    if (!spec.is_null())
      charts.push_back(chart_block(spec,
                                   words + ", " + unit +
                                       ", absolute: each bar the median of a model's run "
                                       "medians, the whisker the range of its run medians (min "
                                       "to max)",
                                   context.charts));
  }
  return charts;
}

mustache::data chart_list(const PageContext& context, const std::vector<MatchedFigure>& figures) {
  const auto& models = context.page.device_models;
  const auto colours = stable_colours(models);
  std::vector<std::string> families;
  for (const auto& figure : figures)
    if (!figure.family.empty() &&
        std::find(families.begin(), families.end(), figure.family) == families.end())
      families.push_back(figure.family);
  mustache::data charts{mustache::data::type::list};
  for (const auto& family : families)
    for (const Measure measure : {Measure::pct_of_limit, Measure::per_kusd, Measure::per_w}) {
      const json spec = matched_chart(figures, family, measure, models, colours);
      if (spec.is_null())
        continue;
      std::string caption = family_title(family) + ": ";
      caption += measure == Measure::pct_of_limit
                     ? "each figure as % of the device's own limit, not of one scale: a card "
                       "that reaches more of a lower limit is not the faster card (dashed "
                       "line: 100 %)"
                 : measure == Measure::per_kusd ? "per $1000 of the price given with --prices"
                                                : "per watt measured during the work";
      charts.push_back(chart_block(spec, caption, context.charts));
    }
  return charts;
}

mustache::data class_list(const PageModel& page, const std::vector<ClassLine>& lines) {
  mustache::data list{mustache::data::type::list};
  auto add = [&](const std::string& label, const std::string& text) {
    mustache::data item;
    item.set("label", label);
    item.set("text", text);
    list.push_back(item);
  };
  for (const auto& line : lines)
    add(line.label, line.text().substr(line.label.size() + 2));
  for (const auto& missing : classes_not_compared(page, lines))
    add(missing.label, missing.why());
  return list;
}

std::vector<std::string> notes(const PageContext& context) {
  std::vector<std::string> texts = {
      "Only matched points are set side by side: the same experiment at the same version, "
      "parameters and metric on every device model, each the median of that model's runs' "
      "medians. Where models measured several versions of an experiment, the newest version "
      "every compared model measured is used and the others are left out (column version).",
      "Per workload class (from each metric's declaration: device-memory bandwidth against DRAM "
      "is memory-bound, on-chip FLOP/s is compute, one class per precision, host-link and "
      "GPU-GPU transfers, a device-memory latency at its largest working set is latency at "
      "DRAM): the geometric mean over the class's headline figures of each model's figure "
      "relative to the other's; per $ and per W are the same two models in the same order, so "
      "below 1× the second model leads on that measure. A throughput is each model's best point "
      "among those every "
      "model measured (a peak, not one intensity).",
      "Per W: each run's figure over the power measured during that work (the point's energy "
      "counter, else the telemetry readings during it or its experiment), then the median over "
      "the runs; n/a, with the reason, where no power was measured during that work. The whole "
      "run's median power, which includes idle gaps and host phases, is never used."};
  if (!context.options.prices.empty()) {
    std::string unknown;
    for (const auto& [model, usd] : context.options.prices)
      if (std::find(context.page.device_models.begin(), context.page.device_models.end(), model) ==
          context.page.device_models.end())
        unknown += (unknown.empty() ? "" : ", ") + model;
    texts.push_back("Per $1000: the figure over the price given with --prices, for throughputs "
                    "only, and only where two or more models have a price." +
                    (unknown.empty()
                         ? std::string()
                         : " Prices for models not in these results: " + unknown + "."));
  }
  if (!context.options.board_power_w.empty())
    texts.push_back("Board power: as the prices file states it, a rated figure and not a "
                    "measurement; no per-W figure is divided by it.");
  return texts;
}

} // namespace

mustache::data comparison_section(const PageContext& context) {
  if (context.page.device_models.size() < 2)
    return false;
  const auto headline = matched_figures(context.page, context.options.prices, true);
  const auto every = matched_figures(context.page, context.options.prices, false);
  mustache::data section;
  section.set("notes", text_list(notes(context)));
  const auto lines = class_lines(headline, context.page.device_models);
  mustache::data classes;
  classes.set("lines", class_list(context.page, lines));
  section.set("classes", classes);
  section.set("compared_devices", devices_table(context, headline).data());
  // The classes' figures first, in class order; the rest after.
  std::vector<MatchedFigure> by_class = headline;
  std::stable_sort(
      by_class.begin(), by_class.end(),
      [](const MatchedFigure& a, const MatchedFigure& b) { return a.workload < b.workload; });
  section.set("figures",
              headline.empty() ? mustache::data(false) : figures_table(by_class, true).data());
  section.set("absolute_charts", absolute_charts(context, headline));
  const TableData composite = composite_table(headline, context.page.device_models);
  section.set("composite", composite.row_count() ? composite.data() : mustache::data(false));
  section.set("charts", chart_list(context, headline));
  const TableData published = published_table(context);
  section.set("published", published.row_count()
                               ? folded(published, fmt::format("{} rows: published figures beside "
                                                               "the same measurement",
                                                               published.row_count()))
                               : mustache::data(false));
  const TableData all = figures_table(every, false);
  section.set("every", every.empty() ? mustache::data(false)
                                     : folded(all, fmt::format("Every matched point: {} rows",
                                                               all.row_count())));
  section.set("none_matched", headline.empty());
  return section;
}

} // namespace apod::report
