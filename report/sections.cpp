#include "sections.hpp"

#include "charts.hpp"
#include "format.hpp"
#include "html.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// Past this many rows a values table starts folded, so a page of 100 runs stays readable.
constexpr std::size_t open_table_rows = 40;

std::string ci_text(const PointView& point, const std::string& unit) {
  if (!point.ci_low || !point.ci_high)
    return "—";
  return format_with_unit(*point.ci_low, unit) + " – " + format_with_unit(*point.ci_high, unit);
}

std::string limit_phrase(Limit limit) {
  return limit == Limit::pcie ? "theoretical PCIe bandwidth (per direction)"
                              : "theoretical DRAM bandwidth";
}

std::string pct_text(const PointView& point) {
  return point.pct_of_limit ? format_percent(*point.pct_of_limit) : "—";
}

std::vector<std::string> section_notes(const ExperimentView& experiment) {
  std::vector<std::string> notes;
  if (!experiment.in_catalog)
    notes.push_back("Not in this build's experiment catalog: drawn with generic settings (first "
                    "parameter on the x axis) and compared with no theoretical limit.");
  for (const auto version : experiment.measured_versions)
    if (experiment.catalog_version && version != *experiment.catalog_version)
      notes.push_back(fmt::format("Measured with version {} of this experiment; this build "
                                  "describes version {}, so the text above may not match.",
                                  version, *experiment.catalog_version));
  return notes;
}

mustache::data chart_list(const PageModel& page, const ExperimentView& experiment,
                          int& next_chart) {
  mustache::data charts{mustache::data::type::list};
  for (const auto& metric : experiment.metrics) {
    // Nothing verified to draw (the table says why), or not the metric the experiment charts.
    if (metric.ok_count() == 0 || !experiment.charts_metric(metric))
      continue;
    std::string caption =
        display_name(metric.metric) + (metric.unit.empty() ? "" : " (" + metric.unit + ")");
    if (experiment.chart.vega_lite.is_object()) {
      caption += ": drawn with the experiment's own Vega-Lite spec";
    } else {
      caption += ": median of each point's samples; whiskers span min to max";
      if (std::any_of(metric.points.begin(), metric.points.end(),
                      [](const PointView& p) { return p.ok && p.limit_gbs; }))
        caption += "; dashed line: the device's " + limit_phrase(experiment.chart.limit);
    }
    mustache::data chart;
    chart.set("chart_id", "chart-" + std::to_string(next_chart++));
    chart.set("caption", caption);
    chart.set("spec_json",
              json_for_script(build_chart_spec(experiment, metric, page.several_runs())));
    charts.push_back(chart);
  }
  return charts;
}

TableData values_table(const PageModel& page, const ExperimentView& experiment) {
  const bool several_metrics = experiment.metrics.size() > 1;
  // A column of dashes says nothing: show "% of theoretical" only where a limit applies.
  bool compared = false, with_ci = false;
  for (const auto& metric : experiment.metrics)
    for (const auto& point : metric.points) {
      compared = compared || point.limit_gbs.has_value();
      with_ci = with_ci || point.ci_low.has_value();
    }
  std::vector<Column> columns;
  if (page.several_runs())
    columns.push_back({"run", ""});
  for (const auto& key : experiment.param_keys)
    columns.push_back({key, ""});
  if (several_metrics)
    columns.push_back({"metric", ""});
  columns.push_back({"median", numeric});
  if (with_ci)
    columns.push_back({"95% CI of median", numeric});
  for (const char* figure : {"min", "max", "n"})
    columns.push_back({figure, numeric});
  if (compared)
    columns.push_back({"% of theoretical", numeric});
  const int figure_columns = 4 + (with_ci ? 1 : 0) + (compared ? 1 : 0);
  columns.push_back({"verified", ""});
  TableData table(std::move(columns), "values");

  for (const auto& metric : experiment.metrics) {
    for (const auto& point : metric.points) {
      std::vector<Cell> cells;
      if (page.several_runs())
        cells.push_back({point.run->name});
      const json& params = member(*point.measurement, "params");
      for (const auto& key : experiment.param_keys)
        cells.push_back({params.contains(key) ? format_param_value(key, params.at(key)) : "—"});
      if (several_metrics)
        cells.push_back({display_name(metric.metric)});
      if (point.ok) {
        cells.push_back({format_with_unit(point.median, metric.unit), numeric});
        if (with_ci)
          cells.push_back({ci_text(point, metric.unit), numeric});
        cells.push_back({format_with_unit(point.min, metric.unit), numeric});
        cells.push_back({format_with_unit(point.max, metric.unit), numeric});
        cells.push_back({std::to_string(point.n), numeric});
        if (compared)
          cells.push_back({pct_text(point), numeric});
      } else {
        cells.push_back({"failed: " + point.failure, "error", figure_columns});
      }
      std::string verified = member(*point.measurement, "verified") == true ? "yes" : "no";
      if (point.ok && point.noisy)
        verified += "; noisy: confidence target not reached";
      cells.push_back({verified});
      table.add_row(cells, !point.ok ? "failed" : point.noisy ? "noisy" : "");
    }
  }
  return table;
}

TableData references_table(const std::vector<const json*>& figures,
                           const ExperimentView& experiment) {
  std::vector<const json*> matching;
  bool with_note = false;
  for (const json* figure : figures)
    if (string_at(*figure, "experiment") == experiment.name) {
      matching.push_back(figure);
      with_note = with_note || !string_at(*figure, "note").empty();
    }
  std::vector<Column> columns = {{"device", ""},
                                 {"metric", ""},
                                 {"point", ""},
                                 {"published", numeric},
                                 {"% of theoretical", numeric},
                                 {"source", ""}};
  if (with_note)
    columns.push_back({"note", ""});
  TableData table(std::move(columns), "references");
  // A published figure is compared with its own device's limit, of the kind the experiment uses.
  const char* limit_key = experiment.chart.limit == Limit::pcie   ? "theoretical_pcie_gbs"
                          : experiment.chart.limit == Limit::dram ? "theoretical_bandwidth_gbs"
                                                                  : nullptr;
  for (const json* figure : matching) {
    const std::string unit = string_at(*figure, "unit");
    std::string value = "—", pct = "—";
    if (has_number(*figure, "value")) {
      const double published = figure->at("value").get<double>();
      value = format_with_unit(published, unit);
      if (unit == "GB/s" && limit_key && has_number(*figure, limit_key) &&
          figure->at(limit_key).get<double>() > 0)
        pct = format_percent(100.0 * published / figure->at(limit_key).get<double>());
    }
    std::string source = string_at(*figure, "source");
    const std::string citation = string_at(*figure, "citation");
    if (!citation.empty())
      source += (source.empty() ? "" : " — ") + citation;
    std::vector<Cell> cells = {{string_at(*figure, "device", "—")},
                               {display_name(string_at(*figure, "metric", "—"))},
                               {format_params(member(*figure, "params"))},
                               {value, numeric},
                               {pct, numeric},
                               {source.empty() ? "—" : source}};
    if (with_note)
      cells.push_back({string_at(*figure, "note", "—")});
    table.add_row(cells);
  }
  return table;
}

} // namespace

std::vector<const json*> published_figures(const json& references) {
  std::vector<const json*> figures;
  const auto add_document = [&](const json& document) {
    for (const auto& figure : member(document, "figures"))
      if (figure.is_object())
        figures.push_back(&figure);
  };
  if (references.is_object())
    add_document(references);
  if (references.is_array())
    for (const auto& item : references) {
      if (member(item, "figures").is_array())
        add_document(item);
      else if (item.is_object())
        figures.push_back(&item);
    }
  return figures;
}

TableData summary_table(const PageModel& page) {
  std::vector<Column> columns = {{"experiment", ""},
                                 {"metric", ""},
                                 {"best median", numeric},
                                 {"% of theoretical", numeric},
                                 {"at", ""}};
  if (page.several_runs())
    columns.push_back({"run", ""});
  columns.push_back({"points", numeric});
  TableData table(std::move(columns), "summary");
  const std::size_t width = page.several_runs() ? 7 : 6;

  for (const auto& experiment : page.experiments) {
    const Cell title{experiment.title, "", 0, experiment.anchor};
    if (experiment.metrics.empty()) {
      const std::string why = experiment.failures.empty()
                                  ? "no measurements"
                                  : "failed: " + experiment.failures.front().error;
      table.add_row({title, {why, "error", static_cast<int>(width - 1)}}, "failed");
      continue;
    }
    const MetricView& metric = *experiment.headline();
    const int ok = metric.ok_count();
    const int failed = static_cast<int>(metric.points.size()) - ok;
    std::string points = std::to_string(ok) + " ok";
    if (failed)
      points += ", " + std::to_string(failed) + " failed";
    if (!experiment.failures.empty())
      points += "; failed in " + std::to_string(experiment.failures.size()) +
                (experiment.failures.size() == 1 ? " run" : " runs");
    std::vector<Cell> cells = {title, {display_name(metric.metric)}};
    if (const PointView* best = metric.best()) {
      cells.push_back({format_with_unit(best->median, metric.unit), numeric});
      cells.push_back({pct_text(*best), numeric});
      cells.push_back({format_params(member(*best->measurement, "params"))});
      if (page.several_runs())
        cells.push_back({best->run->name});
    } else {
      cells.push_back({"no verified point", "error", page.several_runs() ? 4 : 3});
    }
    cells.push_back({points, numeric});
    table.add_row(cells, experiment.failures.empty() && failed == 0 ? "" : "has-failures");
  }
  return table;
}

mustache::data experiment_section(const PageModel& page, const ExperimentView& experiment,
                                  const std::vector<const json*>& figures, int& next_chart) {
  mustache::data section;
  section.set("anchor", experiment.anchor);
  section.set("name", experiment.name);
  section.set("title", experiment.title);
  section.set("description", experiment.description.empty()
                                 ? mustache::data(false)
                                 : mustache::data(experiment.description));
  section.set("citation", experiment.citation.empty() ? mustache::data(false)
                                                      : mustache::data(experiment.citation));
  mustache::data notes{mustache::data::type::list};
  for (const auto& note : section_notes(experiment))
    notes.push_back(note);
  section.set("notes", notes);

  mustache::data failures{mustache::data::type::list};
  for (const auto& failure : experiment.failures) {
    mustache::data item;
    item.set("run", failure.run->name);
    item.set("error", failure.error);
    failures.push_back(item);
  }
  section.set("failures", failures);
  section.set("charts", chart_list(page, experiment, next_chart));

  const TableData values = values_table(page, experiment);
  if (values.row_count() == 0) {
    section.set("values", false);
  } else {
    std::size_t failed = 0;
    for (const auto& metric : experiment.metrics)
      failed += metric.points.size() - metric.ok_count();
    mustache::data block = values.data();
    block.set("open", values.row_count() <= open_table_rows);
    block.set("summary", fmt::format("Values: {} point{}{}", values.row_count(),
                                     values.row_count() == 1 ? "" : "s",
                                     failed ? fmt::format(", {} failed", failed) : ""));
    section.set("values", block);
  }
  const TableData published = references_table(figures, experiment);
  section.set("references", published.row_count() ? published.data() : mustache::data(false));
  return section;
}

} // namespace apod::report
