// `apod report --format markdown`: the results as markdown tables for a terminal or a CI job
// summary, in the shape of nvbench's output (per benchmark and device, a row per state: axis
// values, samples, GPU time, noise, and bandwidth utilisation), after what the HTML page puts on
// its first screen, in its order: the verdict (once), then the headline figures of the newest run
// against the baseline.
#include "markdown.hpp"

#include "format.hpp"
#include "headlines.hpp"
#include "markdown_comparison.hpp"
#include "model.hpp"
#include "trust.hpp"
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

// The rows of one device model's headline table, grouped by the catalog's chapters (a bold row
// names each), as the first screen groups them: the newest run against the baseline where the
// verdict judged the model, else the newest run with its run-to-run spread.
std::string headline_table(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                           const BaselineVerdict& verdict, const std::string& model) {
  const bool judged = verdict.judges_model(model);
  const std::vector<std::string> header =
      judged ? std::vector<std::string>{"figure", "at",      "newest",     "baseline", "change",
                                        "noise",  "verdict", "% of limit", "flags"}
             : std::vector<std::string>{"figure", "at",   "newest", "% of limit",
                                        "spread", "runs", "flags"};
  std::vector<bool> numeric(header.size(), true);
  numeric[0] = numeric[1] = numeric.back() = false;
  if (judged)
    numeric[6] = false;
  std::string rows;
  for (const Chapter chapter : chapters) {
    bool first = true;
    for (const auto& series : headlines) {
      if (series.device_model != model || series.experiment->chapter != chapter)
        continue;
      if (first) {
        std::vector<std::string> cells(header.size());
        cells[0] = fmt::format("**{}**", md(chapter_title(chapter)));
        rows += table_row(cells);
        first = false;
      }
      const HeadlineAgainst against = headline_against(series, verdict);
      const std::string& unit = series.metric->unit;
      const auto value = [&](const std::optional<double>& v) {
        return v ? md(format_with_unit(*v, unit)) : std::string("—");
      };
      const PointView* newest = against.newest;
      const std::string pct =
          newest && newest->pct_of_limit ? format_percent(*newest->pct_of_limit) : "—";
      const std::string flags =
          newest ? md(tag_words(point_trust(*newest, against.pair))) : std::string();
      std::vector<std::string> cells{
          md(series.title(false)),
          md(format_params((newest ? newest : series.headline)->measurement->params)),
          value(against.newest_value)};
      if (judged) {
        const PointVerdict* pair = against.pair;
        cells.push_back(value(against.base_value));
        cells.push_back(against.change ? md(format_change(*against.change)) : "—");
        cells.push_back(pair ? "±" + format_percent(100 * pair->noise) + " (sees " +
                                   format_percent(100 * pair->detectable) + ")"
                             : "—");
        cells.push_back(pair ? wording(decision_of(*pair)).word : "not compared");
        cells.push_back(pct);
      } else {
        const auto spread = series.spread_pct();
        cells.push_back(pct);
        cells.push_back(spread && series.points.size() > 1 ? format_percent(*spread) : "—");
        cells.push_back(std::to_string(series.points.size()));
      }
      cells.push_back(flags.empty() ? "" : flags);
      rows += table_row(cells);
    }
  }
  if (rows.empty())
    return "";
  const RunView& newest = judged ? *verdict.candidate : *page.runs_of_model(model).back();
  std::string heading = fmt::format("### {}: newest {}", md(model), md(run_words(newest)));
  if (judged)
    heading += " against " + md(run_words(*verdict.baseline));
  const std::string tags = tag_words(run_trust(newest));
  if (!tags.empty())
    heading += " (" + md(tags) + ")";
  return heading + "\n\n" + table_row(header) + table_rule(numeric) + rows + "\n";
}

// Regressions and unconfirmed slowdowns listed under the verdict.
constexpr std::size_t points_listed = 12;

// A compared point (or experiment taken whole) on one line, headed by compare's word for it.
std::string pair_line(const PointVerdict& pair) {
  return fmt::format("- {}: {} · {} at {}: {} → {}\n", wording(decision_of(pair)).word,
                     md(pair.experiment), md(display_name(pair.metric)),
                     md(format_params(pair.params)), md(format_with_unit(pair.baseline, pair.unit)),
                     md(format_with_unit(pair.candidate, pair.unit)));
}

// The verdict, once, at the top: compare's count line (it opens with the outcome word) and what
// was judged against what, what it could see, the trust signals of the two runs, then the
// regressions and unconfirmed slowdowns by compare's word for them.
std::string verdict_text(const BaselineVerdict& verdict) {
  std::string text;
  if (!verdict.comparison) {
    text = md(std::string(verdict_word(verdict)) + ": " + verdict.why_none) + "\n\n";
  } else {
    text = fmt::format("{} — the newest run {} on {} against {}.\n\n",
                       md(summary_line(*verdict.comparison)), md(run_words(*verdict.candidate)),
                       md(verdict.candidate->device_model), md(verdict.against));
    if (const std::string sees = power_line(*verdict.comparison); !sees.empty())
      text += "Sees: " + md(sees) + ".\n\n";
  }
  std::string trust;
  for (const RunView* run : {verdict.candidate, verdict.baseline})
    if (run)
      for (const TrustTag& tag : run_trust(*run))
        trust += fmt::format("- **{}**: {}\n", md(tag.word), md(tag.why));
  if (!trust.empty())
    text += trust + "\n";
  if (verdict.comparison) {
    std::vector<const PointVerdict*> listed = verdict.regressions();
    // The slowdowns compare does not gate on because the candidate measured them as noisy, by
    // compare's word for them: never just "slower".
    std::size_t unconfirmed = 0;
    for (const PointVerdict& pair : verdict.comparison->points)
      if (decision_of(pair) == Decision::unconfirmed)
        listed.push_back(&pair), ++unconfirmed;
    // Worst first and a dozen at most: the headline table must stay near the top of a job
    // summary; `apod compare` lists every point.
    std::string pairs;
    for (std::size_t i = 0; i < std::min(listed.size(), points_listed); ++i)
      pairs += pair_line(*listed[i]);
    if (listed.size() > points_listed)
      pairs += fmt::format("- and {} more: `apod compare` lists every point\n",
                           listed.size() - points_listed);
    const Wording words = wording(Decision::unconfirmed);
    if (unconfirmed)
      pairs += fmt::format("\n{} {}: {}.\n", unconfirmed, words.word, words.meaning);
    if (!pairs.empty())
      text += pairs + "\n";
  }
  if (!verdict.pinned)
    text += "`apod baseline set RUN` pins the run that later runs are judged against.\n\n";
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
  // The answer first (issue 25): the verdict once, then the headline figures of the newest run
  // against the baseline, then the tables.
  const BaselineVerdict verdict = baseline_verdict(page, options.baseline_run);
  text += verdict_text(verdict);
  text += "## Headline figures: the newest run against the baseline\n\n";
  for (const auto& model : page.device_models)
    text += headline_table(page, headlines, verdict, model);
  // buyer's comparison (report/markdown_comparison.cpp)
  text += comparison_markdown(page, options);
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
