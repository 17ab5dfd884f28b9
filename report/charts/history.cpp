#include "charts/history.hpp"

#include "charts/chart.hpp"
#include "format.hpp"
#include "palette.hpp"

#include "core/measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace apod::report {

namespace {

double median_of(std::vector<double> values) {
  return values.empty() ? 0 : apod::summarize(values).median;
}

// One value of the figure at a run (or a bucket of runs) of its model.
struct Entry {
  std::size_t ordinal = 0;
  double median = 0;
  std::optional<double> low, high;
};

std::vector<Entry> entries_of(const FigureHistory& figure, const RunOrder& order) {
  std::vector<Entry> entries;
  for (const auto& series : figure.series)
    for (const PointView* point : series.points)
      entries.push_back({order.ordinal(point->run), point->median, point->ci_low, point->ci_high});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.ordinal < b.ordinal; });
  return entries;
}

// `max` buckets of consecutive entries: the median of their medians, their range as the band.
std::vector<Entry> buckets_of(const std::vector<Entry>& entries, std::size_t max) {
  std::vector<Entry> buckets;
  const std::size_t n = entries.size();
  for (std::size_t b = 0; b < max && n; ++b) {
    const std::size_t begin = b * n / max, end = (b + 1) * n / max;
    if (begin == end)
      continue;
    std::vector<double> medians;
    for (std::size_t i = begin; i < end; ++i)
      medians.push_back(entries[i].median);
    const Summary s = apod::summarize(medians);
    buckets.push_back({entries[(begin + end) / 2].ordinal, s.median, s.min, s.max});
  }
  return buckets;
}

// Values over ordinals first..last as "3,-1,,_4,0": an integer per run, "" for one run without
// a value, "_k" for k such runs in a row (a bucketed row has ~30 of them between buckets).
class Coded {
public:
  void add(std::size_t ordinal, long long value) {
    if (text_.empty()) {
      first_ = ordinal;
    } else {
      if (ordinal < next_) // a second value at one run: the first stands
        return;
      const std::size_t missing = ordinal - next_;
      text_ += missing == 0 ? "," : missing == 1 ? ",," : fmt::format(",_{},", missing);
    }
    text_ += std::to_string(value);
    next_ = ordinal + 1;
  }
  const std::string& text() const { return text_; }
  std::size_t first() const { return first_; }

private:
  std::string text_;
  std::size_t first_ = 0, next_ = 0; // next_: the ordinal after the last value
};

json x_run() {
  return {{"field", "o"},
          {"type", "quantitative"},
          {"title", "runs in start order (labelled: the first run of a date)"},
          {"scale", {{"zero", false}, {"nice", false}}},
          {"axis", {{"tickMinStep", 1}, {"grid", false}, {"labelOverlap", "greedy"}}}};
}

json y_median(const char* field) {
  return {{"field", field}, {"type", "quantitative"}, {"title", ""}, {"scale", {{"zero", false}}}};
}

json layer(const char* dataset, json mark, json encoding) {
  return {
      {"data", {{"name", dataset}}}, {"mark", std::move(mark)}, {"encoding", std::move(encoding)}};
}

} // namespace

double figure_reference(const FigureHistory& figure) {
  if (figure.verdict && std::isfinite(figure.verdict->baseline) && figure.verdict->baseline != 0)
    return figure.verdict->baseline;
  std::vector<double> medians;
  for (const auto& series : figure.series)
    for (const PointView* point : series.points)
      medians.push_back(point->median);
  return median_of(medians);
}

std::optional<double> noise_sd(const FigureHistory& figure) {
  if (figure.verdict && std::isfinite(figure.verdict->noise) && figure.verdict->noise > 0)
    return figure.verdict->noise;
  std::vector<double> changes;
  for (const auto& series : figure.series)
    for (std::size_t i = 1; i < series.points.size(); ++i) {
      const double before = series.points[i - 1]->median, after = series.points[i]->median;
      if (before > 0 && after > 0)
        changes.push_back(std::fabs(std::log(after / before)));
    }
  if (changes.size() < 3)
    return std::nullopt;
  return 1.4826 * median_of(changes);
}

bool drawn_in_full(const FigureHistory& figure) {
  return figure.headline || figure.point_count() <= bucketed_past_runs;
}

json figure_chart(const FigureHistory& figure, const Timeline& timeline) {
  const RunOrder& order = timeline.order_of(figure.model);
  const bool full = drawn_in_full(figure);
  std::vector<Entry> entries = entries_of(figure, order);
  if (!full)
    entries = buckets_of(entries, buckets_per_figure);
  const double ref = figure_reference(figure);
  // Log ratios need positive numbers; a figure that can be zero or negative is coded linearly.
  const bool log = ref > 0 && std::all_of(entries.begin(), entries.end(), [](const Entry& e) {
                     return e.median > 0 && e.low.value_or(1) > 0;
                   });
  // The linear unit: the reference's size, or without one the largest value's.
  double scale = std::fabs(ref);
  if (scale == 0)
    for (const Entry& e : entries)
      scale = std::max(scale, std::fabs(e.median));
  if (scale == 0)
    scale = 1;
  const auto code = [&](double value, double from) {
    const double x = log ? std::log(value / from) : (value - from) / scale;
    return std::llround(x / value_unit);
  };
  Coded values, below, above;
  // Each run's 95 % CI (a bucket's range) for headline figures and buckets only: it was half of
  // the section's bytes, and for the other figures the noise band says more about a run than
  // its own interval does.
  bool intervals = false;
  for (const Entry& e : entries) {
    values.add(e.ordinal, code(e.median, ref));
    intervals = intervals || (e.low && e.high && (figure.headline || !full));
  }
  if (intervals)
    for (const Entry& e : entries) {
      const bool has = e.low && e.high && std::isfinite(*e.low) && std::isfinite(*e.high);
      // No interval is coded as 0 either side: the band pinches to the line there.
      below.add(e.ordinal, has ? code(e.median, *e.low) : 0);
      above.add(e.ordinal, has ? -code(e.median, *e.high) : 0);
    }
  json row = {{"y", metric_title(figure.metric->metric, figure.metric->unit)},
              {"ref", round_significant(ref)}};
  if (!log)
    row["sc"] = round_significant(scale);
  if (values.first() != 1) // most figures start at the model's first run
    row["a"] = values.first();
  row["v"] = values.text();
  if (intervals) {
    row["l"] = below.text();
    row["h"] = above.text();
  }
  if (const auto sd = noise_sd(figure))
    row["n"] = std::llround(noise_band_sd * *sd / value_unit);
  if (!full)
    row["b"] = 1;
  json steps = json::array();
  for (const auto& series : figure.series)
    for (const auto& step : series.steps.value_or(std::vector<ChangePoint>{}))
      steps.push_back({order.ordinal(series.points[step.index]->run),
                       fmt::format("{}: step {} ({} → {})", series.machine->label,
                                   format_change(step.change_rel),
                                   format_with_unit(step.before, figure.metric->unit),
                                   format_with_unit(step.after, figure.metric->unit))});
  if (!steps.empty())
    row["s"] = std::move(steps);
  return row;
}

json model_order(const Timeline& timeline, const std::string& model,
                 const BaselineVerdict& verdict) {
  const RunOrder& order = timeline.order_of(model);
  const std::vector<const Machine*> machines = timeline.machines_of(model);
  json machine_list = json::array(), runs = json::array(), gaps = json::array();
  for (const Machine* machine : machines)
    machine_list.push_back({machine->label, machine->colour});
  std::vector<std::size_t> new_dates; // ordinals of the first run of each date
  std::string last_date;
  for (std::size_t i = 0; i < order.runs.size(); ++i) {
    const RunView* run = order.runs[i];
    const auto machine = std::find_if(machines.begin(), machines.end(),
                                      [&](const Machine* m) { return m->key == run->machine_key; });
    runs.push_back({run->started_s
                        ? json(static_cast<long long>(std::llround(*run->started_s * 1000)))
                        : json(nullptr),
                    run->name, run->run->label, run->commit, machine - machines.begin()});
    const std::string date = format_date(run->started_at);
    if (run->started_s && date != last_date)
      new_dates.push_back(i + 1);
    last_date = date;
  }
  for (const Gap& gap : order.gaps)
    gaps.push_back({gap.after, gap.text});
  // A few date labels, never the same date twice: evenly spread first runs of a date.
  json ticks = json::array();
  const std::size_t shown = std::min(new_dates.size(), max_date_labels);
  for (std::size_t k = 0; k < shown; ++k) {
    const std::size_t at =
        shown == 1 ? 0 : (k * (new_dates.size() - 1) + (shown - 1) / 2) / (shown - 1);
    ticks.push_back({new_dates[at], format_date(order.runs[new_dates[at] - 1]->started_at)});
  }
  const bool judged_here = verdict.baseline && verdict.baseline->device_model == model;
  return {{"model", model},
          {"runs", std::move(runs)},
          {"machines", std::move(machine_list)},
          {"gaps", std::move(gaps)},
          {"ticks", std::move(ticks)},
          {"baseline", judged_here ? order.ordinal(verdict.baseline) : 0},
          {"baseline_text", verdict.pinned ? "pinned baseline" : "previous run"},
          {"candidate", verdict.candidate ? order.ordinal(verdict.candidate) : 0}};
}

json timeline_base_spec() {
  const json colour = {{"field", "colour"}, {"type", "nominal"}, {"scale", nullptr}};
  const json line_of = {{"field", "line"}, {"type", "nominal"}}; // machine and segment
  json layers = json::array();
  // The figure's noise band around its reference, as on the sparkline: two rows {o, lo, hi} at
  // the ends of the run axis.
  layers.push_back(layer("noise", {{"type", "area"}, {"color", noise_colour}, {"opacity", 0.8}},
                         {{"x", x_run()}, {"y", y_median("lo")}, {"y2", {{"field", "hi"}}}}));
  layers.push_back(layer("band", {{"type", "area"}, {"opacity", 0.15}},
                         {{"x", x_run()},
                          {"y", y_median("lo")},
                          {"y2", {{"field", "hi"}}},
                          {"color", colour},
                          {"detail", line_of}}));
  const json tooltip = {
      {{"field", "o"}, {"type", "quantitative"}, {"title", "run #"}},
      {{"field", "t"}, {"type", "temporal"}, {"title", "started"}, {"format", "%Y-%m-%d %H:%M"}},
      {{"field", "run"}, {"title", "run"}},
      {{"field", "label"}, {"title", "label"}},
      {{"field", "commit"}, {"title", "commit"}},
      {{"field", "machine"}, {"title", "machine"}},
      {{"field", "m"}, {"type", "quantitative"}, {"title", "median"}, {"format", ",.4~g"}},
      {{"field", "rel"}, {"type", "quantitative"}, {"title", "vs reference"}, {"format", "+.2%"}}};
  layers.push_back(layer("points",
                         {{"type", "line"}, {"point", {{"size", 18}}}, {"strokeWidth", 1.5}},
                         {{"x", x_run()},
                          {"y", y_median("m")},
                          {"color", colour},
                          {"detail", line_of},
                          {"order", {{"field", "o"}}},
                          {"tooltip", tooltip}}));
  layers.push_back(layer("gaps",
                         {{"type", "rule"}, {"color", context_colour}, {"strokeDash", {2, 3}}},
                         {{"x", x_run()}, {"tooltip", {{{"field", "text"}, {"title", "pause"}}}}}));
  layers.push_back(
      layer("gaps",
            {{"type", "text"},
             {"align", "left"},
             {"baseline", "top"},
             {"dx", 3},
             {"fontSize", 10},
             {"color", context_colour}},
            {{"x", x_run()},
             // Pixels from the top (page.js staggers the labels of gaps close together).
             {"y", {{"field", "y_px"}, {"type", "quantitative"}, {"scale", nullptr}}},
             {"text", {{"field", "text"}}}}));
  layers.push_back(
      layer("steps", {{"type", "rule"}, {"color", alarm_colour}, {"strokeDash", {4, 3}}},
            {{"x", x_run()}, {"tooltip", {{{"field", "text"}, {"title", "change point"}}}}}));
  layers.push_back(layer("baseline", {{"type", "rule"}, {"color", context_colour}},
                         {{"x", x_run()}, {"tooltip", {{{"field", "text"}}}}}));
  layers.push_back(layer("baseline",
                         {{"type", "text"},
                          {"align", "right"},
                          {"baseline", "bottom"},
                          {"dx", -3},
                          {"fontSize", 10},
                          {"color", context_colour}},
                         {{"x", x_run()}, {"y", {{"value", 220}}}, {"text", {{"field", "text"}}}}));
  layers.push_back(
      layer("verdict", {{"type", "point"}, {"size", 110}, {"strokeWidth", 2.5}, {"filled", false}},
            {{"x", x_run()},
             {"y", y_median("m")},
             {"color", {{"field", "colour_of_verdict"}, {"type", "nominal"}, {"scale", nullptr}}},
             {"tooltip", {{{"field", "text"}, {"title", "verdict"}}}}}));
  return {{"width", "container"},
          {"height", 220},
          {"datasets",
           {{"points", json::array()},
            {"noise", json::array()},
            {"band", json::array()},
            {"gaps", json::array()},
            {"steps", json::array()},
            {"baseline", json::array()},
            {"verdict", json::array()}}},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

} // namespace apod::report
