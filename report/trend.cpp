#include "trend.hpp"

#include "charts.hpp"
#include "format.hpp"
#include "sections.hpp"
#include "summary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

constexpr const char* step_colour = "#b3261e";
constexpr const char* band_colour = "#1f5fa8";


std::string signed_percent(double fraction) {
  return fmt::format("{:+.1f} %", 100.0 * fraction);
}

std::string step_text(const ChangePoint& step, const HeadlineSeries& series) {
  const std::string& unit = series.metric->unit;
  return fmt::format("step {} at {}: {} → {}", signed_percent(step.change_rel),
                     series.points[step.index]->run->name, format_with_unit(step.before, unit),
                     format_with_unit(step.after, unit));
}

std::string verdict(const HeadlineSeries& series,
                    const std::optional<std::vector<ChangePoint>>& steps,
                    const StepDetector& detector) {
  const std::size_t runs = series.points.size();
  if (!steps)
    return fmt::format("{} run{}: too few for a change-point decision (the detector needs {}: a "
                       "look-back window of {} runs and {} runs that confirm a step).",
                       runs, runs == 1 ? "" : "s", detector.min_window + detector.confirm,
                       detector.min_window, detector.confirm);
  if (steps->empty())
    return fmt::format("No change point in {} runs.", runs);
  std::string text = fmt::format("{} change point{} in {} runs: ", steps->size(),
                                 steps->size() == 1 ? "" : "s", runs);
  for (std::size_t i = 0; i < steps->size(); ++i)
    text += (i ? "; " : "") + step_text((*steps)[i], series);
  return text + ".";
}

TableData per_run_table(const HeadlineSeries& series, const std::vector<ChangePoint>& steps) {
  // No run of the series measured a peak: the summary says so once, not in every row.
  const bool with_peak =
      series.experiment->compares_with_peak(*series.metric) && series.runs_with_peak > 0;
  std::vector<Column> columns = {{"#", numeric},      {"run", ""},
                                 {"started", ""},     {"median", numeric},
                                 {"95% CI", numeric}, {"% of theoretical", numeric}};
  if (with_peak)
    columns.push_back({"% of achievable peak", numeric});
  columns.push_back({"change point", ""});
  TableData table(std::move(columns), "trend");
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const PointView& point = *series.points[i];
    const auto step = std::find_if(steps.begin(), steps.end(), [&](const ChangePoint& s) {
      return s.index == static_cast<int>(i);
    });
    std::vector<Cell> cells = {
        {std::to_string(i + 1), numeric},
        {point.run->name},
        {format_timestamp(json(point.run->run->started_at)), "time"},
        {format_with_unit(point.median, series.metric->unit), numeric},
        {ci_text(point, series.metric->unit), numeric},
        {point.pct_of_limit ? format_percent(*point.pct_of_limit) : "—", numeric}};
    if (with_peak)
      cells.push_back(
          {peak_text(point.pct_of_peak, true, point.run->peak_gbs.has_value()), numeric});
    cells.push_back({step == steps.end()
                         ? ""
                         : fmt::format("step {}: {} → {}", signed_percent(step->change_rel),
                                       format_with_unit(step->before, series.metric->unit),
                                       format_with_unit(step->after, series.metric->unit))});
    table.add_row(cells, step == steps.end() ? "" : "step");
  }
  return table;
}

} // namespace

std::optional<std::vector<ChangePoint>> change_points(const HeadlineSeries& series,
                                                      const StepDetector& detector) {
  if (series.points.size() < static_cast<std::size_t>(detector.min_window + detector.confirm))
    return std::nullopt;
  std::vector<double> medians;
  for (const PointView* point : series.points)
    medians.push_back(point->median);
  return apod::detect_steps(medians, detector);
}

json trend_chart_spec(const HeadlineSeries& series, const std::vector<ChangePoint>& steps) {
  const std::string& unit = series.metric->unit;
  const bool with_peak =
      series.experiment->compares_with_peak(*series.metric) && series.runs_with_peak > 0;
  json rows = json::array();
  bool with_ci = false;
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const PointView& point = *series.points[i];
    with_ci = with_ci || point.ci_low.has_value();
    rows.push_back({{"run_index", i + 1},
                    {"run", point.run->name},
                    {"started", format_timestamp(json(point.run->run->started_at))},
                    {"median", point.median},
                    {"ci_low", point.ci_low ? json(*point.ci_low) : json(nullptr)},
                    {"ci_high", point.ci_high ? json(*point.ci_high) : json(nullptr)},
                    {"median_text", format_with_unit(point.median, unit)},
                    {"ci_text", ci_text(point, unit)},
                    {"pct_text", point.pct_of_limit ? format_percent(*point.pct_of_limit) : "—"},
                    {"pct_peak_text",
                     peak_text(point.pct_of_peak, with_peak, point.run->peak_gbs.has_value())}});
  }
  const std::string y_title =
      metric_title(series.metric->metric, unit);
  const json x = {{"field", "run_index"},
                  {"type", "quantitative"},
                  {"title", "run (oldest first)"},
                  {"scale", {{"nice", false}, {"zero", false}}},
                  {"axis", {{"tickMinStep", 1}, {"format", "d"}}}};
  json tooltip = {{{"field", "run"}, {"title", "run"}},
                  {{"field", "started"}, {"title", "started"}},
                  {{"field", "median_text"}, {"title", "median"}},
                  {{"field", "ci_text"}, {"title", "95% CI of median"}},
                  {{"field", "pct_text"}, {"title", "% of theoretical"}}};
  if (with_peak)
    tooltip.push_back({{"field", "pct_peak_text"}, {"title", "% of achievable peak"}});

  json layers = json::array();
  if (with_ci)
    layers.push_back({{"mark", {{"type", "area"}, {"opacity", 0.18}, {"color", band_colour}}},
                      {"encoding",
                       {{"x", x},
                        {"y", {{"field", "ci_low"}, {"type", "quantitative"}, {"title", y_title}}},
                        {"y2", {{"field", "ci_high"}}}}}});
  layers.push_back(
      {{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}, {"color", band_colour}}},
       {"encoding",
        {{"x", x},
         {"y",
          {{"field", "median"},
           {"type", "quantitative"},
           {"title", y_title},
           {"scale", {{"zero", false}}}}},
         {"tooltip", tooltip}}}});
  if (!steps.empty()) {
    json marks = json::array();
    for (const auto& step : steps)
      marks.push_back({{"run_index", step.index + 1},
                       {"step_text", "step " + signed_percent(step.change_rel)},
                       {"detail", step_text(step, series)}});
    layers.push_back(
        {{"data", {{"values", marks}}},
         {"mark", {{"type", "rule"}, {"color", step_colour}, {"strokeDash", {4, 3}}}},
         {"encoding",
          {{"x", x}, {"tooltip", {{{"field", "detail"}, {"title", "change point"}}}}}}});
    layers.push_back(
        {{"data", {{"values", marks}}},
         {"mark",
          {{"type", "text"},
           {"color", step_colour},
           {"align", "left"},
           {"baseline", "top"},
           {"dx", 3},
           {"dy", 2}}},
         {"encoding", {{"x", x}, {"y", {{"value", 0}}}, {"text", {{"field", "step_text"}}}}}});
  }
  return {{"width", "container"},
          {"height", 200},
          {"data", {{"values", std::move(rows)}}},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

mustache::data history_section(const PageModel& page, const std::vector<HeadlineSeries>& headlines,
                               int& next_chart) {
  const StepDetector detector;
  const bool with_model = page.device_models.size() > 1;
  mustache::data items{mustache::data::type::list};
  for (const auto& series : headlines) {
    if (series.model_runs < 2)
      continue;
    const auto steps = change_points(series, detector);
    const std::vector<ChangePoint> marks = steps.value_or(std::vector<ChangePoint>{});
    mustache::data item;
    item.set("title", series.title(with_model));
    item.set("point", format_params(series.headline->measurement->params));
    item.set("verdict", verdict(series, steps, detector));
    item.set("verdict_class", !steps ? "undecided" : marks.empty() ? "steady" : "stepped");
    std::string coverage;
    if (series.points.size() < series.model_runs)
      coverage = fmt::format("Followed in {} of {} runs of this model: the others lack this point "
                             "or measured it under another comparability key (another driver "
                             "branch or experiment version).",
                             series.points.size(), series.model_runs);
    item.set("coverage", coverage.empty() ? mustache::data(false) : mustache::data(coverage));
    std::string caption = "Median of each run (line) and its 95% confidence interval (band)";
    if (!marks.empty())
      caption += "; dashed red rules mark the first run of each new level";
    // One run draws no trend: the verdict and the table say all there is.
    item.set("chart", series.points.size() < 2
                          ? mustache::data(false)
                          : chart_block(trend_chart_spec(series, marks), caption, next_chart));
    const TableData table = per_run_table(series, marks);
    mustache::data values = table.data();
    values.set("summary", fmt::format("Per run: {} value{}", table.row_count(),
                                      table.row_count() == 1 ? "" : "s"));
    item.set("values", values);
    items.push_back(item);
  }
  if (items.is_empty_list())
    return false;
  mustache::data section;
  section.set(
      "method",
      fmt::format("Each headline figure over the runs of its device model, oldest first. "
                  "Change points come from apod's step detector (runner/history.cpp, "
                  "docs/history.md): run i starts a new level when the median of runs "
                  "i..i+{} moves from the median of up to {} runs before it by more than "
                  "{:g} % and {:g} robust standard deviations, every one of them on the same "
                  "side, so a one-run spike is never marked.",
                  detector.confirm - 1, detector.window, 100 * detector.min_change_rel,
                  detector.z));
  section.set("series", items);
  return section;
}

} // namespace apod::report
