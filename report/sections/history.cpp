// History as a timeline, for the reader who watches a GPU or a build over time (asv's history,
// Conbench's per-host series): per device model, a row per figure with its sparkline (a line per
// machine on the model's date axis), its newest value, its change points and its verdict against
// the pinned baseline; a row opens onto the full chart, drawn on demand. The headline figures
// come first; every other figure follows, folded by experiment.
#include "sections/history.hpp"

#include "charts/history.hpp"
#include "format.hpp"
#include "html.hpp"
#include "palette.hpp"
#include "timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

mustache::data figure_row(const PageContext& context, const Timeline& timeline,
                          const FigureHistory& figure, bool with_experiment,
                          const StepDetector& detector) {
  mustache::data row;
  const std::string metric = display_name(figure.metric->metric);
  row.set("figure",
          with_experiment ? short_title(figure.experiment->title) + " · " + metric : metric);
  row.set("at", format_params(*figure.params));
  row.set("spark", sparkline_svg(figure, timeline, context.verdict));
  row.set("newest", format_with_unit(figure.newest()->median, figure.metric->unit));
  row.set("range", fmt::format("{} runs, {}", figure.point_count(), range_text(figure)));
  row.set("state", figure.step_count() ? "stepped" : "steady");
  row.set("state_text", state_text(figure, detector));
  if (figure.verdict) {
    const Wording words = wording(decision_of(*figure.verdict)); // compare's word for it
    row.set("verdict", fmt::format("{} against the baseline ({})", words.word,
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
  row.set("chart_json", json_for_script(figure_chart(figure, context.verdict)));
  return row;
}

json runs_dataset(const Timeline& timeline) {
  json runs = json::array();
  for (const auto& machine : timeline.machines)
    for (const RunView* run : machine.runs)
      runs.push_back(
          {{"r", run->index},
           {"t", run->started_s ? json(static_cast<long long>(std::llround(*run->started_s * 1000)))
                                : json(nullptr)},
           {"run", run->name},
           {"label", run->run->label},
           {"commit", run->commit},
           {"machine", machine.label},
           {"colour", machine.colour}});
  return runs;
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
                           const StepDetector& detector) {
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
      headline_rows.push_back(figure_row(context, timeline, figure, true, detector));
      continue;
    }
    if (figure.experiment != group_experiment) {
      close_group();
      group_experiment = figure.experiment;
    }
    group_rows.push_back(figure_row(context, timeline, figure, false, detector));
    ++group_count;
  }
  close_group();
  mustache::data block;
  block.set("model", model);
  block.set("colour", colour);
  block.set("machines", machines_list(timeline, model));
  const BaselineVerdict& verdict = context.verdict;
  block.set("baseline", text_or_false(verdict.baseline && verdict.baseline->device_model == model
                                          ? fmt::format("Pinned baseline: {} ({}), the grey line.",
                                                        verdict.baseline->name,
                                                        format_date(verdict.baseline->started_at))
                                          : ""));
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
  mustache::data models{mustache::data::type::list};
  for (const auto& model : timeline.models) {
    const auto at =
        std::find(context.page.device_models.begin(), context.page.device_models.end(), model);
    models.push_back(model_block(context, timeline, model,
                                 colours[at - context.page.device_models.begin()], detector));
  }
  mustache::data bases{mustache::data::type::list};
  for (const bool band : {true, false})
    for (const bool model_line : {true, false}) {
      mustache::data base;
      base.set("name", base_name(band, model_line));
      base.set("spec_json", json_for_script(timeline_base_spec(band, model_line)));
      bases.push_back(base);
    }
  mustache::data section;
  section.set(
      "method",
      fmt::format("Every figure measured in two or more runs of a device model, one line per "
                  "machine (host and GPU) on a date axis; open a row for its full chart. Change "
                  "points come from apod's step detector on each machine's series "
                  "(docs/history.md): run i starts a new level when the median of runs i..i+{} "
                  "moves from the median of up to {} runs before it by more than {:g} % and {:g} "
                  "robust standard deviations, all on the same side, so a one-run spike is never "
                  "marked. Red ticks: change points; grey line: the pinned baseline; dot: the "
                  "newest run's verdict against it (red: regression, green: faster). Past {} "
                  "runs of a machine, figures other than the headline ones are drawn as {} "
                  "buckets (the median of each bucket's run medians).",
                  detector.confirm - 1, detector.window, 100 * detector.min_change_rel, detector.z,
                  bucketed_past_runs, buckets_per_machine));
  section.set("runs_json", json_for_script(runs_dataset(timeline)));
  section.set("bases", bases);
  section.set("models", models);
  return section;
}

} // namespace apod::report
