// One section per experiment present in the results: title, description, citation, notes,
// failures, its charts (experiment_charts, report/charts/experiment_charts.cpp),
// a table of every point (summarised across runs past runs_drawn_apart), and the published
// figures of that experiment.
#include "sections/experiments.hpp"

#include "aggregate.hpp"
#include "charts/experiment_charts.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"
#include "palette.hpp"
#include "summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace apod::report {

namespace {

// Past this many rows a table of published figures starts folded (a values table always does).
constexpr std::size_t open_table_rows = 40;

// The section's words without the names its code stores (issue 25: a reader met
// `extra.model_gbs` and `elements_per_thread` in descriptions, captions and column headers); the
// folded method note keeps those names for whoever reads the store.

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// Every stored name the section may spell, with the page's words for it.
std::map<std::string, std::string> words_for_names(const PageModel& page,
                                                   const ExperimentView& experiment) {
  std::map<std::string, std::string> words;
  for (const Declaration& other : page.catalog)
    if (!other.title.empty())
      words[other.name] = other.title;
  for (const auto& view : page.experiments)
    if (!view.title.empty())
      words[view.name] = view.title;
  const Declaration& declared = *experiment.declaration;
  for (const Metric& metric : declared.metrics)
    words[metric.name] = metric.title.empty() ? display_name(metric.name) : metric.title;
  for (const auto& metric : experiment.metrics)
    words[metric.metric] = metric.title();
  for (const Param& param : declared.params)
    words[param.key] = experiment.param_title(param.key);
  for (const auto& key : experiment.param_keys)
    words[key] = experiment.param_title(key);
  return words;
}

// `text` with every stored name it spells in the page's words for it: a parameter's declared
// title, a metric's title, another experiment's title, `extra.KEY` as KEY in prose. Names it does
// not know (a CUDA function, a clock) stay as written.
std::string readable_text(const std::string& text, const PageModel& page,
                          const ExperimentView& experiment) {
  const auto words = words_for_names(page, experiment);
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!name_char(text[i]) || (i > 0 && name_char(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && name_char(text[end]))
      ++end;
    std::string name = text.substr(i, end - i);
    std::string trailing; // a sentence's full stop is not part of the name
    while (!name.empty() && name.back() == '.') {
      trailing += '.';
      name.pop_back();
    }
    std::string replaced = name;
    const bool after_in = out.size() >= 3 && out.compare(out.size() - 3, 3, "in ") == 0;
    if (name == "extra" && after_in) { // "stored in extra": the store's word, not the adjective
      replaced = "the point's stored figures";
    } else if (name.rfind("extra.", 0) == 0 && name.size() > 6) {
      const std::string key = name.substr(6);
      const auto known = words.find(key);
      replaced = known != words.end() ? known->second : display_name(key);
    } else if (const auto known = words.find(name);
               known != words.end() && name.find('_') != std::string::npos) {
      replaced = known->second; // one-word names ("offset") read as words already
    }
    out += replaced + trailing;
    i = end;
  }
  return out;
}

// The folded method note (<details class="method">): the description as declared, and each
// stored name (parameter, metric, extra key) with the page's words for it or what it means.
mustache::data method_note(const ExperimentView& experiment) {
  const Declaration& declared = *experiment.declaration;
  mustache::data names{mustache::data::type::list};
  const auto add = [&names](const std::string& name, const std::string& what) {
    mustache::data item;
    item.set("name", name);
    item.set("what", what);
    names.push_back(item);
  };
  add(experiment.name, "the experiment (apod run --only " + experiment.name + ")");
  for (const auto& key : experiment.param_keys)
    add(key, "parameter: " + experiment.param_title(key));
  for (const auto& metric : experiment.metrics)
    add(metric.metric, "metric: " + metric_title(metric.title(), metric.unit));
  for (const Extra& extra : declared.extras)
    add("extra." + extra.key, extra.meaning);
  mustache::data note;
  note.set("raw_description", experiment.description);
  note.set("names", names);
  return note;
}

// Whether some verified figure is above its run's achievable peak (the peak is another
// kernel's best, so this happens and needs a sentence).
bool above_peak(const ExperimentView& experiment) {
  for (const auto& metric : experiment.metrics)
    for (const auto& point : metric.points)
      if (point.ok && point.pct_of_peak && *point.pct_of_peak > 100)
        return true;
  return false;
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

// Which optional columns a values table needs: a column of dashes says nothing.
struct ValueColumns {
  bool compared = false;  ///< % of theoretical: some point has a limit (GB/s or extra.limit)
  bool with_ci = false;   ///< some point stores a CI of its median
  bool with_peak = false; ///< % of achievable peak: DRAM GB/s figures and some run has a peak
};

ValueColumns value_columns(const PageModel& page, const ExperimentView& experiment) {
  ValueColumns columns;
  for (const auto& metric : experiment.metrics) {
    columns.with_peak =
        columns.with_peak || (experiment.compares_with_peak(metric) && page.any_peak());
    for (const auto& point : metric.points) {
      columns.compared = columns.compared || point.limit_value.has_value(); // GB/s or its own unit
      columns.with_ci = columns.with_ci || point.ci_low.has_value();
    }
  }
  return columns;
}

void add_param_cells(std::vector<Cell>& cells, const ExperimentView& experiment,
                     const json& params) {
  for (const auto& key : experiment.param_keys)
    cells.push_back({params.contains(key) ? format_param_value(key, params.at(key)) : "—"});
}

// Every run's every point: up to runs_drawn_apart runs.
TableData values_per_run(const PageModel& page, const ExperimentView& experiment) {
  const bool several_metrics = experiment.metrics.size() > 1;
  const ValueColumns optional = value_columns(page, experiment);
  std::vector<Column> columns;
  if (page.several_runs())
    columns.push_back({"run", ""});
  for (const auto& key : experiment.param_keys)
    columns.push_back({experiment.param_title(key), ""});
  if (several_metrics)
    columns.push_back({"metric", ""});
  columns.push_back({"median", numeric});
  if (optional.with_ci)
    columns.push_back({"95% CI of median", numeric});
  // The samples' range in one column (issue 25: a table as wide as the page, no wider).
  for (const char* figure : {"range of samples", "n used", "excluded"})
    columns.push_back({figure, numeric});
  if (optional.compared)
    columns.push_back({"% of theoretical", numeric});
  if (optional.with_peak)
    columns.push_back({"% of achievable peak", numeric});
  const int figure_columns =
      4 + (optional.with_ci ? 1 : 0) + (optional.compared ? 1 : 0) + (optional.with_peak ? 1 : 0);
  columns.push_back({"verified", ""});
  TableData table(std::move(columns), "values");

  for (const auto& metric : experiment.metrics) {
    const bool peak_applies = experiment.compares_with_peak(metric);
    for (const auto& point : metric.points) {
      std::vector<Cell> cells;
      if (page.several_runs())
        cells.push_back({point.run->name});
      add_param_cells(cells, experiment, point.measurement->params);
      if (several_metrics)
        cells.push_back({metric.title()});
      if (point.ok) {
        cells.push_back({format_with_unit(point.median, metric.unit), numeric});
        if (optional.with_ci)
          cells.push_back({ci_text(point, metric.unit), numeric});
        cells.push_back({format_range(point.min, point.max, metric.unit), numeric});
        cells.push_back({std::to_string(point.samples.used), numeric});
        cells.push_back({std::to_string(point.samples.excluded), numeric});
        if (optional.compared)
          cells.push_back({pct_text(point), numeric});
        if (optional.with_peak)
          cells.push_back(
              {peak_text(point.pct_of_peak, peak_applies, point.run->peak_gbs.has_value()),
               numeric});
      } else {
        cells.push_back({"failed: " + point.failure, "error", figure_columns});
      }
      std::string verified = point.measurement->verified ? "yes" : "no";
      if (point.ok && point.noisy)
        verified += "; noisy: confidence target not reached";
      cells.push_back({verified});
      table.add_row(cells, !point.ok ? "failed" : point.noisy ? "noisy" : "");
    }
  }
  return table;
}

struct FailureAcrossRuns {
  std::string device_model;
  const PointView* point = nullptr; ///< the first failure: its parameters and reason
  std::vector<const RunView*> runs; ///< the runs in which the point failed that way
};

// The failed points of `metric` by device model, parameters and reason, in first-seen order.
std::vector<FailureAcrossRuns> failures_across_runs(const MetricView& metric) {
  std::vector<FailureAcrossRuns> failures;
  // The point's key is interned (one address per point): the device model and the reason beside it.
  std::map<std::tuple<std::string, const PointKey*, std::string>, std::size_t> index_of;
  for (const auto& point : metric.points) {
    if (point.ok)
      continue;
    const auto key = std::tuple(point.run->device_model, point.key, point.failure);
    auto [it, added] = index_of.try_emplace(key, failures.size());
    if (added)
      failures.push_back({point.run->device_model, &point, {}});
    failures[it->second].runs.push_back(point.run);
  }
  return failures;
}

// Past runs_drawn_apart runs: one row per device model and point (median of the run medians and
// their range), and each failed point of each run on its own row.
TableData values_across_runs(const PageModel& page, const ExperimentView& experiment) {
  const bool several_metrics = experiment.metrics.size() > 1;
  const ValueColumns optional = value_columns(page, experiment);
  std::vector<Column> columns = {{"device / run", ""}};
  for (const auto& key : experiment.param_keys)
    columns.push_back({experiment.param_title(key), ""});
  if (several_metrics)
    columns.push_back({"metric", ""});
  columns.insert(
      columns.end(),
      {{"median of runs", numeric}, {"range of run medians", numeric}, {"runs", numeric}});
  if (optional.compared)
    columns.push_back({"% of theoretical", numeric});
  if (optional.with_peak)
    columns.push_back({"% of achievable peak", numeric});
  columns.push_back({"noisy runs", numeric});
  const int figure_columns = 4 + (optional.compared ? 1 : 0) + (optional.with_peak ? 1 : 0);
  TableData table(std::move(columns), "values");

  for (const auto& metric : experiment.metrics) {
    const bool peak_applies = experiment.compares_with_peak(metric);
    for (const auto& group : points_across_runs(metric)) {
      std::vector<Cell> cells = {{group.device_model}};
      add_param_cells(cells, experiment, *group.params);
      if (several_metrics)
        cells.push_back({metric.title()});
      cells.push_back({format_with_unit(group.median, metric.unit), numeric});
      cells.push_back({format_range(group.min, group.max, metric.unit), numeric});
      cells.push_back({std::to_string(group.points.size()), numeric});
      if (optional.compared)
        cells.push_back({group.pct_of_limit ? format_percent(*group.pct_of_limit) : "—", numeric});
      if (optional.with_peak)
        cells.push_back(
            {peak_text(group.pct_of_peak, peak_applies, group.runs_with_peak > 0), numeric});
      const auto noisy = std::count_if(group.points.begin(), group.points.end(),
                                       [](const PointView* p) { return p->noisy; });
      cells.push_back({std::to_string(noisy), numeric});
      table.add_row(cells, noisy ? "noisy" : "");
    }
    // A point that failed the same way in many runs is one row that says in which.
    for (const auto& failure : failures_across_runs(metric)) {
      std::vector<Cell> cells = {
          {failure.runs.size() == 1
               ? failure.runs.front()->name
               : fmt::format("{}: {} runs, {} to {}", failure.device_model, failure.runs.size(),
                             failure.runs.front()->name, failure.runs.back()->name)}};
      add_param_cells(cells, experiment, failure.point->measurement->params);
      if (several_metrics)
        cells.push_back({metric.title()});
      cells.push_back({"failed: " + failure.point->failure, "error", figure_columns + 1});
      table.add_row(cells, "failed");
    }
  }
  return table;
}

TableData values_table(const PageModel& page, const ExperimentView& experiment) {
  return page.summarise_runs() ? values_across_runs(page, experiment)
                               : values_per_run(page, experiment);
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
  for (const json* figure : matching) {
    const std::string unit = string_at(*figure, "unit");
    std::string value = "—", pct = "—";
    if (has_number(*figure, "value")) {
      value = format_with_unit(figure->at("value").get<double>(), unit);
      // Compared with its own device's limit, of the kind the metric is declared against.
      const LimitKind kind = declared_limit(experiment, string_at(*figure, "metric"));
      if (const auto share = published_pct_of_limit(*figure, kind))
        pct = format_percent(*share);
    }
    std::string source = string_at(*figure, "source");
    const std::string citation = string_at(*figure, "citation");
    if (!citation.empty())
      source += (source.empty() ? "" : " — ") + citation;
    std::vector<Cell> cells = {{string_at(*figure, "device", "—")},
                               {display_name(string_at(*figure, "metric", "—"))},
                               {charts::params_in_words(experiment, member(*figure, "params"))},
                               {value, numeric},
                               {pct, numeric},
                               {source.empty() ? "—" : source}};
    if (with_note)
      cells.push_back({string_at(*figure, "note", "—")});
    table.add_row(cells);
  }
  return table;
}

mustache::data experiment_section(const PageContext& context, const ExperimentView& experiment) {
  const PageModel& page = context.page;
  const std::vector<const json*>& figures = context.published;
  mustache::data section;
  section.set("anchor", experiment.anchor);
  section.set("name", experiment.name);
  section.set("title", experiment.title);
  section.set("description",
              experiment.description.empty()
                  ? mustache::data(false)
                  : mustache::data(readable_text(experiment.description, page, experiment)));
  section.set("method", method_note(experiment));
  section.set("citation", experiment.citation.empty() ? mustache::data(false)
                                                      : mustache::data(experiment.citation));
  mustache::data notes{mustache::data::type::list};
  for (const auto& note : section_notes(experiment))
    notes.push_back(note);
  if (above_peak(experiment))
    notes.push_back(
        "Some figures here are above 100% of the run's achievable peak: that peak is the best "
        "rate the copy kernels that measure it reached at their own size and launch shape, and "
        "another kernel or size can beat it by a little; the percentage reads how close a "
        "figure comes to what the device reached, not a bound.");
  section.set("notes", notes);

  mustache::data failures{mustache::data::type::list};
  for (const auto& failure : experiment.failures) {
    mustache::data item;
    item.set("run", failure.run->name);
    item.set("error", failure.error);
    failures.push_back(item);
  }
  section.set("failures", failures);
  mustache::data charts{mustache::data::type::list};
  for (const ChartBlock& chart : experiment_charts(page, experiment, figures))
    charts.push_back(
        chart_block(chart.spec, readable_text(chart.caption, page, experiment), context.charts));
  section.set("charts", charts);

  const TableData values = values_table(page, experiment);
  if (values.row_count() == 0) {
    section.set("values", false);
  } else {
    std::size_t failed = 0;
    for (const auto& metric : experiment.metrics)
      failed += metric.points.size() - metric.ok_count();
    mustache::data block = values.data();
    block.set("open", false); // the charts draw these points; the table is there to look up
    block.set("summary", fmt::format("Values: {} point{}{}", values.row_count(),
                                     values.row_count() == 1 ? "" : "s",
                                     failed ? fmt::format(", {} failed", failed) : ""));
    section.set("values", block);
  }
  const TableData published = references_table(figures, experiment);
  if (published.row_count() == 0) {
    section.set("references", false);
  } else {
    mustache::data block = published.data();
    block.set("open", published.row_count() <= open_table_rows);
    block.set("summary", fmt::format("{} published figure{}", published.row_count(),
                                     published.row_count() == 1 ? "" : "s"));
    section.set("references", block);
  }
  return section;
}

} // namespace

mustache::data experiments_section(const PageContext& context) {
  if (context.page.experiments.empty())
    return false;
  // One colour per device model and per series name across every experiment's charts.
  SeriesColours colours(context.page.device_models);
  const SeriesColoursScope scope(colours);
  mustache::data list{mustache::data::type::list};
  for (const auto& experiment : context.page.experiments)
    list.push_back(experiment_section(context, experiment));
  mustache::data section;
  section.set("experiments", list);
  return section;
}

} // namespace apod::report
