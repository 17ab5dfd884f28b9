// History as a timeline, for the reader who watches a GPU or a build over time (asv's history,
// Conbench's per-host series): per device model, a row per figure with its sparkline (a line per
// machine, in run order, on a fixed ±5 % scale around the figure's reference with its noise band
// behind), its newest value, its change points and its verdict against the baseline; a row opens
// onto the full chart. The headline figures come first; every other figure follows, folded by
// experiment. The rows' words are in the HTML; what is drawn comes from one JSON block for the
// section (charts/history.hpp) and is drawn by templates/page.js on demand (issue 25: the inline
// sparklines were 5 MB of a 51-run page).
#include "sections/history.hpp"

#include "charts/history.hpp"
#include "format.hpp"
#include "html.hpp"
#include "palette.hpp"
#include "timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace apod::report {

namespace {

std::string state_text(const FigureHistory& figure, const StepDetector& detector) {
  const bool decided = std::any_of(figure.series.begin(), figure.series.end(),
                                   [](const MachineSeries& s) { return s.steps.has_value(); });
  if (!decided)
    return fmt::format("too few runs for a change-point decision (needs {})",
                       detector.min_window + detector.confirm);
  std::string text;
  std::size_t steps = 0;
  for (const auto& series : figure.series)
    for (const auto& step : series.steps.value_or(std::vector<ChangePoint>{}))
      if (++steps <= 2)
        text += fmt::format("{}{} on {}", text.empty() ? "" : "; ", format_change(step.change_rel),
                            format_date(series.points[step.index]->run->started_at));
  if (steps == 0)
    return "steady";
  if (steps > 2)
    text += fmt::format(" and {} more", steps - 2);
  return fmt::format("{} change point{}: {}", steps, steps == 1 ? "" : "s", text);
}

std::string range_text(const FigureHistory& figure) {
  double low = 0, high = 0;
  bool first = true;
  for (const auto& series : figure.series)
    for (const PointView* point : series.points) {
      low = first ? point->median : std::min(low, point->median);
      high = first ? point->median : std::max(high, point->median);
      first = false;
    }
  return format_range(low, high, figure.metric->unit);
}

// A row's words; its drawing's data goes to `rows`, in the order the rows appear in the page
// (page.js pairs the i-th row of the section with rows[i]).
mustache::data figure_row(const PageContext& context, const Timeline& timeline,
                          const FigureHistory& figure, bool with_experiment,
                          const StepDetector& detector, json& rows) {
  mustache::data row;
  const std::string metric = display_name(figure.metric->metric);
  row.set("figure",
          with_experiment ? short_title(figure.experiment->title) + " · " + metric : metric);
  row.set("at", format_params(*figure.params));
  row.set("newest", format_with_unit(figure.newest()->median, figure.metric->unit));
  row.set("range", fmt::format("{} runs, {}", figure.point_count(), range_text(figure)));
  row.set("state", figure.step_count() ? "stepped" : "steady");
  row.set("state_text", state_text(figure, detector));
  if (figure.verdict) {
    const Wording words = wording(decision_of(*figure.verdict)); // compare's word for it
    row.set("verdict", fmt::format("{} against the {} ({})", words.word,
                                   context.verdict.pinned ? "baseline" : "previous run",
                                   format_change(relative_change(*figure.verdict))));
    row.set("verdict_class", words.word);
    // Only a change needs its word explained; a thousand rows of "same" stay small.
    if (figure.verdict->change == Change::same)
      row.set("verdict_meaning", false);
    else
      row.set("verdict_meaning", words.meaning);
  } else {
    row.set("verdict", false);
    row.set("verdict_class", "");
    row.set("verdict_meaning", false);
  }
  // The row's place in the data block: page.js finds a row's data by it, also for rows of a
  // folded group that report/pack.hpp packs and page.js puts in place when the group opens.
  row.set("row_index", std::to_string(rows.size()));
  rows.push_back(figure_chart(figure, timeline));
  return row;
}

mustache::data machines_list(const Timeline& timeline, const std::string& model) {
  mustache::data list{mustache::data::type::list};
  for (const Machine* machine : timeline.machines_of(model)) {
    mustache::data item;
    item.set("label", machine->label);
    item.set("colour", machine->colour);
    item.set("runs",
             fmt::format("{} run{}", machine->runs.size(), machine->runs.size() == 1 ? "" : "s"));
    list.push_back(item);
  }
  return list;
}

mustache::data model_block(const PageContext& context, const Timeline& timeline,
                           const std::string& model, const std::string& colour,
                           const StepDetector& detector, json& rows) {
  mustache::data headline_rows{mustache::data::type::list}, groups{mustache::data::type::list};
  const ExperimentView* group_experiment = nullptr;
  mustache::data group_rows{mustache::data::type::list};
  std::size_t group_count = 0;
  const auto close_group = [&] {
    if (group_experiment && group_count) {
      mustache::data group;
      group.set("title", group_experiment->title);
      group.set("anchor", group_experiment->anchor);
      group.set("count", fmt::format("{} figure{}", group_count, group_count == 1 ? "" : "s"));
      group.set("rows", group_rows);
      groups.push_back(group);
    }
    group_rows = mustache::data{mustache::data::type::list};
    group_count = 0;
  };
  for (const auto& figure : timeline.figures) {
    if (figure.model != model)
      continue;
    if (figure.headline) {
      headline_rows.push_back(figure_row(context, timeline, figure, true, detector, rows));
      continue;
    }
    if (figure.experiment != group_experiment) {
      close_group();
      group_experiment = figure.experiment;
    }
    group_rows.push_back(figure_row(context, timeline, figure, false, detector, rows));
    ++group_count;
  }
  close_group();
  mustache::data block;
  block.set("model", model);
  block.set("colour", colour);
  block.set("machines", machines_list(timeline, model));
  const BaselineVerdict& verdict = context.verdict;
  const RunOrder& order = timeline.order_of(model);
  std::string baseline;
  if (verdict.baseline && verdict.baseline->device_model == model)
    baseline = fmt::format("{}: {} ({}), run {} of {}, the grey rule; the verdicts are the newest "
                           "run's against it.",
                           verdict.pinned ? "Pinned baseline"
                                          : "No baseline pinned; the previous "
                                            "run of the newest run's machine",
                           verdict.baseline->name, format_date(verdict.baseline->started_at),
                           order.ordinal(verdict.baseline), order.runs.size());
  block.set("baseline", text_or_false(baseline));
  block.set("headline_rows", headline_rows);
  block.set("groups", groups);
  return block;
}

} // namespace

mustache::data history_section(const PageContext& context) {
  const StepDetector detector;
  const Timeline timeline =
      build_timeline(context.page, context.headlines, context.verdict, detector);
  if (timeline.figures.empty())
    return false;
  const std::vector<std::string> colours = stable_colours(context.page.device_models);
  // The section's one data block: the base spec, each model's runs in order, each row's values.
  json block = {{"unit", value_unit},
                {"spark_domain", spark_domain_rel},
                {"palette",
                 {{"context", context_colour},
                  {"alarm", alarm_colour},
                  {"good", good_colour},
                  {"noise", noise_colour}}},
                {"base", timeline_base_spec()},
                {"models", json::array()},
                {"rows", json::array()}};
  mustache::data models{mustache::data::type::list};
  for (const auto& model : timeline.models) {
    const auto at =
        std::find(context.page.device_models.begin(), context.page.device_models.end(), model);
    models.push_back(model_block(context, timeline, model,
                                 colours[at - context.page.device_models.begin()], detector,
                                 block["rows"]));
    block["models"].push_back(model_order(timeline, model, context.verdict));
  }
  // Axis titles once each: a page of 5,763 rows has a few dozen.
  json titles = json::array();
  std::unordered_map<std::string, std::size_t> title_index;
  for (json& row : block["rows"]) {
    const auto [at, added] = title_index.try_emplace(row["y"].get<std::string>(), titles.size());
    if (added)
      titles.push_back(row["y"]);
    row["y"] = at->second;
  }
  block["titles"] = std::move(titles);
  mustache::data section;
  section.set(
      "method",
      fmt::format(
          "Every figure measured in two or more runs of a device model. The runs are in start "
          "order, numbered per model, so a batch of runs minutes apart and a run the next night "
          "are neighbours; a dashed grey rule marks a pause of more than {:g} times the model's "
          "usual interval and over {:g} hours, with its length, and no line is drawn across it. "
          "Each sparkline is one line per machine (host and GPU), as the change against the "
          "figure's reference (the baseline's value where the verdict judged it, else the median "
          "of the model's runs) on the same ±{:g} % scale for every row; a triangle on the edge is "
          "a run beyond it. The grey band is ±{:g} standard deviations of the run-to-run change "
          "(compare's noise for the pair, else from the series). Open a row for its full chart. "
          "Change points come from apod's step detector on each machine's series "
          "(docs/history.md): run i starts a new level when the median of runs i..i+{} moves from "
          "the median of up to {} runs before it by more than {:g} % and {:g} robust standard "
          "deviations, all on the same side, so a one-run spike is never marked. Red ticks: change "
          "points; dot: the newest run's verdict (red: regression, green: faster). Past {} runs, "
          "figures other than the headline ones are drawn as {} buckets of consecutive runs (the "
          "median of each bucket's run medians, their range as the band).",
          gap_factor, gap_min_s / 3600, 100 * spark_domain_rel, noise_band_sd, detector.confirm - 1,
          detector.window, 100 * detector.min_change_rel, detector.z, bucketed_past_runs,
          buckets_per_figure));
  section.set("history_json", json_for_script(block));
  section.set("models", models);
  return section;
}

} // namespace apod::report
