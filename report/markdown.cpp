// `apod report --format markdown`: the results as markdown tables for a terminal or a CI job
// summary, in the shape of nvbench's output (per benchmark and device, a row per state: axis
// values, samples, GPU time, noise, and bandwidth utilisation), plus the headline figures and the
// verdict against the pinned baseline that the HTML page puts on its first screen.
#include "markdown.hpp"

#include "format.hpp"
#include "headlines.hpp"
#include "model.hpp"
#include "verdict.hpp"

#include "core/measurement.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// Every string read from the runs (names, labels, units, parameters, failure reasons) goes in
// through markdown_text (core/text.hpp), as in compare's markdown, so that none can open a
// heading, link, cell or comment; apod's own words and numbers go in as written.
std::string md(const std::string& stored) {
  return markdown_text(stored);
}

// A row of cells already made safe (md() or apod's own text).
std::string table_row(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const auto& text : cells)
    row.append(" ").append(text).append(" |");
  return row + "\n";
}

std::string table_rule(const std::vector<bool>& numeric_columns) {
  std::string rule = "|";
  for (const bool numeric : numeric_columns)
    rule += numeric ? "---:|" : "---|";
  return rule + "\n";
}

// The time one sample took: the median itself for a time, else bytes moved over the bandwidth.
std::string gpu_time(const PointView& point, const std::string& unit) {
  if (unit == "ms" || unit == "us" || unit == "ns" || unit == "s")
    return format_with_unit(point.median, unit);
  const json& extra = point.measurement->extra;
  if (unit == "GB/s" && has_number(extra, keys::bytes_moved) && point.median > 0) {
    const double ms = extra.at(keys::bytes_moved).get<double>() / (point.median * 1e9) * 1e3;
    return ms >= 1 ? format_with_unit(ms, "ms") : format_with_unit(ms * 1e3, "us");
  }
  return "—";
}

std::string noise(const PointView& point) {
  const Summary s = summarize(point.measurement->used_samples());
  return s.n > 1 ? format_percent(100 * s.rsd) : "—";
}

std::string experiment_table(const ExperimentView& experiment, const RunView& run) {
  const bool several_metrics = experiment.metrics.size() > 1;
  std::vector<std::string> header;
  for (const auto& key : experiment.param_keys)
    header.push_back(md(key));
  std::vector<bool> numeric(header.size(), false);
  if (several_metrics)
    header.push_back("metric"), numeric.push_back(false);
  for (const char* title :
       {"samples used", "excluded", "GPU time", "noise", "median", "% of limit"})
    header.push_back(title), numeric.push_back(true);
  header.push_back("status"), numeric.push_back(false);
  std::string table = table_row(header) + table_rule(numeric);
  std::size_t rows = 0;
  for (const auto& metric : experiment.metrics)
    for (const auto& point : metric.points) {
      if (point.run != &run)
        continue;
      std::vector<std::string> cells;
      for (const auto& key : experiment.param_keys) {
        const json& params = point.measurement->params;
        cells.push_back(params.contains(key) ? md(format_param_value(key, params.at(key))) : "—");
      }
      if (several_metrics)
        cells.push_back(md(display_name(metric.metric)));
      if (point.ok) {
        cells.push_back(std::to_string(point.samples.used));
        cells.push_back(std::to_string(point.samples.excluded));
        cells.push_back(gpu_time(point, metric.unit));
        cells.push_back(noise(point));
        cells.push_back(md(format_with_unit(point.median, metric.unit)));
        cells.push_back(point.pct_of_limit ? format_percent(*point.pct_of_limit) : "—");
        cells.push_back(point.noisy ? "ok, noisy" : "ok");
      } else {
        cells.insert(cells.end(), {"—", "—", "—", "—", "—", "—", "failed: " + md(point.failure)});
      }
      table += table_row(cells);
      ++rows;
    }
  return rows ? table : "";
}

std::string headline_table(const PageModel& page, const std::vector<HeadlineSeries>& headlines) {
  std::string text =
      table_row({"device", "figure", "at", "median", "% of limit", "spread", "runs"});
  text += table_rule({false, false, false, true, true, true, true});
  for (const auto& series : headlines) {
    const auto spread = series.spread_pct();
    text += table_row({md(series.device_model), md(series.title(false)),
                       md(format_params(series.headline->measurement->params)),
                       md(format_with_unit(series.median, series.metric->unit)),
                       series.pct_of_limit ? format_percent(*series.pct_of_limit) : "—",
                       spread && series.points.size() > 1 ? format_percent(*spread) : "—",
                       std::to_string(series.points.size())});
  }
  return page.runs.empty() ? "" : text;
}

// A compared point (or experiment taken whole) on one line, headed by compare's word for it.
std::string pair_line(const PointVerdict& pair) {
  return fmt::format("- {}: {} · {} at {}: {} → {}\n", wording(decision_of(pair)).word,
                     md(pair.experiment), md(display_name(pair.metric)),
                     md(format_params(pair.params)), md(format_with_unit(pair.baseline, pair.unit)),
                     md(format_with_unit(pair.candidate, pair.unit)));
}

std::string verdict_text(const BaselineVerdict& verdict) {
  if (!verdict.comparison)
    return md(verdict.why_none) + "\n";
  const auto regressions = verdict.regressions();
  std::string text = fmt::format("{}: run {} against the pinned baseline {}.\n\nSees: {}.\n\n",
                                 md(summary_line(*verdict.comparison)), md(verdict.candidate->name),
                                 md(verdict.baseline->name), md(power_line(*verdict.comparison)));
  for (const PointVerdict* pair : regressions)
    text += pair_line(*pair);
  // The slowdowns compare does not gate on because the candidate measured them as noisy, by
  // compare's word for them: never just "slower".
  std::size_t unconfirmed = 0;
  for (const PointVerdict& pair : verdict.comparison->points)
    if (decision_of(pair) == Decision::unconfirmed)
      text += pair_line(pair), ++unconfirmed;
  const Wording words = wording(Decision::unconfirmed);
  if (unconfirmed)
    text += fmt::format("\n{} {}: {}.\n", unconfirmed, words.word, words.meaning);
  return text;
}

// With many runs, the newest of each model: a terminal cannot hold every run's every point.
std::vector<const RunView*> runs_shown(const PageModel& page) {
  std::vector<const RunView*> runs;
  if (!page.summarise_runs()) {
    for (const auto& run : page.runs)
      runs.push_back(&run);
    return runs;
  }
  for (const auto& model : page.device_models)
    runs.push_back(page.runs_of_model(model).back());
  return runs;
}

} // namespace

std::string render_markdown(const json& results, const json& catalog,
                            const RenderOptions& options) {
  const std::vector<RunRecord> runs = runs_from_document(results);
  return render_markdown(runs, catalog, options);
}

std::string render_markdown(const std::vector<RunRecord>& runs, const json& catalog,
                            const RenderOptions& options) {
  const PageModel page = build_page_model(runs, catalog);
  const std::vector<HeadlineSeries> headlines = headline_series(page);
  std::string text =
      fmt::format("# apod: {} run{}\n\n", page.runs.size(), page.runs.size() == 1 ? "" : "s");
  if (page.runs.empty())
    return text + "These results hold no runs: nothing to report.\n";
  text += "## Headline figures\n\n" + headline_table(page, headlines) + "\n";
  text += "## Against the pinned baseline\n\n" +
          verdict_text(baseline_verdict(page, options.baseline_run)) + "\n";
  const auto shown = runs_shown(page);
  if (shown.size() < page.runs.size())
    text += fmt::format("Points of the newest run of each device model ({} of {} runs; "
                        "`--run ID` picks others).\n\n",
                        shown.size(), page.runs.size());
  for (const auto& experiment : page.experiments) {
    std::string body;
    for (const RunView* run : shown)
      if (const std::string table = experiment_table(experiment, *run); !table.empty())
        body += fmt::format("### {} · {}\n\n", md(run->name), md(run->device_model)) + table + "\n";
    if (!body.empty())
      text += fmt::format("## {} ({})\n\n", md(experiment.title), md(experiment.name)) + body;
  }
  return text;
}

} // namespace apod::report
