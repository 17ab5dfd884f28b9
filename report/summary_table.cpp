#include "summary_table.hpp"

#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// The experiment of the catalog that declares the achievable peak (its name read, not spelled).
std::string peak_owner(const PageModel& page) {
  for (const Declaration& d : page.catalog)
    if (d.find_metric(keys::achievable_peak))
      return d.name;
  return "none in this catalog";
}

} // namespace

namespace {

bool shows_peak_column(const PageModel& page, const std::vector<HeadlineSeries>& headlines) {
  return page.any_peak() &&
         std::any_of(headlines.begin(), headlines.end(), [](const HeadlineSeries& s) {
           return s.experiment->compares_with_peak(*s.metric);
         });
}

std::string points_text(const ExperimentView& experiment, const MetricView& metric,
                        const std::string& model) {
  int ok = 0, failed = 0;
  for (const auto& point : metric.points)
    if (point.run->device_model == model)
      (point.ok ? ok : failed)++;
  std::string text = std::to_string(ok) + " ok";
  if (failed)
    text += ", " + std::to_string(failed) + " failed";
  const auto failed_runs =
      std::count_if(experiment.failures.begin(), experiment.failures.end(),
                    [&](const ExperimentFailure& f) { return f.run->device_model == model; });
  if (failed_runs)
    text += fmt::format("; failed in {} run{}", failed_runs, failed_runs == 1 ? "" : "s");
  return text;
}

std::string pct_or_dash(const std::optional<double>& pct) {
  return pct ? format_percent(*pct) : "—";
}

} // namespace

std::string peak_text(const std::optional<double>& pct_of_peak, bool compares_with_peak,
                      bool run_has_peak) {
  if (!compares_with_peak)
    return "—";
  if (pct_of_peak)
    return format_percent(*pct_of_peak);
  return run_has_peak ? "—" : "no peak measured";
}

TableData summary_table(const PageModel& page, const std::vector<HeadlineSeries>& headlines) {
  const bool several = page.several_runs();
  const bool with_model = page.device_models.size() > 1;
  const bool with_peak = shows_peak_column(page, headlines);
  std::vector<Column> columns = {{"experiment", ""}};
  if (with_model)
    columns.push_back({"device", ""});
  columns.push_back({"metric", ""});
  if (several)
    columns.insert(columns.end(), {{"at", ""},
                                   {"runs", numeric},
                                   {"median of runs", numeric},
                                   {"range of runs", numeric},
                                   {"spread", numeric}});
  else
    columns.push_back({"best median", numeric});
  columns.push_back({"% of theoretical", numeric});
  if (with_peak)
    columns.push_back({"% of achievable peak", numeric});
  if (!several)
    columns.push_back({"at", ""});
  columns.push_back({"points", numeric});
  const int width = static_cast<int>(columns.size());
  TableData table(std::move(columns), "summary");

  for (const auto& experiment : page.experiments) {
    const Cell title{experiment.title, "", 0, experiment.anchor};
    const bool has_series =
        std::any_of(headlines.begin(), headlines.end(),
                    [&](const HeadlineSeries& s) { return s.experiment == &experiment; });
    if (!has_series) {
      std::string why = "no verified point";
      if (experiment.metrics.empty())
        why = experiment.failures.empty() ? "no measurements"
                                          : "failed: " + experiment.failures.front().error;
      table.add_row({title, {why, "error", width - 1}}, "failed");
      continue;
    }
    for (const auto& series : headlines) {
      if (series.experiment != &experiment)
        continue;
      const MetricView& metric = *series.metric;
      const bool peak_applies = experiment.compares_with_peak(metric);
      std::vector<Cell> cells = {title};
      if (with_model)
        cells.push_back({series.device_model});
      cells.push_back({display_name(metric.metric)});
      const std::string at = format_params(series.headline->measurement->params);
      if (several) {
        cells.push_back({at});
        cells.push_back({series.points.size() == series.model_runs
                             ? std::to_string(series.model_runs)
                             : fmt::format("{} of {}", series.points.size(), series.model_runs),
                         numeric});
        cells.push_back({format_with_unit(series.median, metric.unit), numeric});
        cells.push_back({format_range(series.min, series.max, metric.unit), numeric});
        cells.push_back(
            {series.points.size() > 1 ? pct_or_dash(series.spread_pct()) : "one run", numeric});
      } else {
        cells.push_back({format_with_unit(series.median, metric.unit), numeric});
      }
      cells.push_back({pct_or_dash(series.pct_of_limit), numeric});
      if (with_peak)
        cells.push_back(
            {peak_text(series.pct_of_peak, peak_applies, series.runs_with_peak > 0), numeric});
      if (!several)
        cells.push_back({at});
      const std::string points = points_text(experiment, metric, series.device_model);
      cells.push_back({points, numeric});
      const bool failures = points.find("failed") != std::string::npos;
      table.add_row(cells, failures ? "has-failures" : "");
    }
  }
  return table;
}

std::vector<std::string> summary_notes(const PageModel& page,
                                       const std::vector<HeadlineSeries>& headlines) {
  std::vector<std::string> notes;
  if (page.several_runs())
    notes.push_back(
        "Each figure is one point followed through the runs of its device model: the point with "
        "the best median in the newest run, matched in the other runs by its comparability key. "
        "Median, min and max are over the runs' medians; spread is (max − min) / median. "
        "Percentages are the median over the runs of each run's own percentage.");
  else
    notes.push_back("The best median of each experiment's verified points, and that figure as a "
                    "percentage of the device's theoretical bandwidth (DRAM or PCIe, as the "
                    "experiment declares).");
  const bool dram_figures =
      std::any_of(headlines.begin(), headlines.end(), [](const HeadlineSeries& s) {
        return s.experiment->compares_with_peak(*s.metric);
      });
  if (!dram_figures)
    return notes;
  if (!page.any_peak()) {
    notes.push_back(std::string(page.runs.size() == 1 ? "This run" : "No run in these results") +
                    " measured no achievable peak (experiment " + peak_owner(page) + ", metric " +
                    keys::achievable_peak +
                    "), so device-memory figures are given as % of theoretical only.");
    return notes;
  }
  notes.push_back("% of achievable peak: the figure over its own run's achievable_peak (the best "
                  "device-to-device copy of experiment " +
                  peak_owner(page) + "), for device-memory (DRAM) bandwidth figures.");
  const std::vector<std::string> missing = page.runs_without_peak();
  if (!missing.empty()) {
    std::string names;
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i)
      names += (i ? ", " : "") + missing[i];
    if (missing.size() > 8)
      names += fmt::format(" and {} more", missing.size() - 8);
    notes.push_back(
        fmt::format("{} measured no achievable peak; {} DRAM figures have no % of "
                    "achievable peak: {}.",
                    missing.size() == 1 ? "One run" : fmt::format("{} runs", missing.size()),
                    missing.size() == 1 ? "its" : "their", names));
  }
  return notes;
}

} // namespace apod::report
