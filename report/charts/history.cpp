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

constexpr double spark_width = 160, spark_height = 28, spark_pad = 2;

const char* verdict_colour(const PointVerdict& verdict) {
  const Decision d = decision_of(verdict);
  return d == Decision::regression ? alarm_colour
         : d == Decision::faster   ? good_colour
                                   : context_colour;
}

struct Bucket {
  const PointView* middle = nullptr; ///< its date and run stand for the bucket
  double median = 0;
  std::optional<double> low, high;
};

// Each point its own bucket (with its CI) up to `max`, else `max` runs of points, each the median
// of its points' medians with their range.
std::vector<Bucket> buckets_of(const MachineSeries& series, std::size_t max) {
  std::vector<Bucket> buckets;
  const std::size_t n = series.points.size();
  if (n <= max) {
    for (const PointView* point : series.points)
      buckets.push_back({point, point->median, point->ci_low, point->ci_high});
    return buckets;
  }
  for (std::size_t b = 0; b < max; ++b) {
    const std::size_t begin = b * n / max, end = (b + 1) * n / max;
    std::vector<double> medians;
    for (std::size_t i = begin; i < end; ++i)
      medians.push_back(series.points[i]->median);
    const Summary s = apod::summarize(medians);
    buckets.push_back({series.points[(begin + end) / 2], s.median, s.min, s.max});
  }
  return buckets;
}

json number_or_null(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(round_significant(*value)) : json(nullptr);
}

const json lookup_run = {{"lookup", "r"},
                         {"from",
                          {{"data", {{"name", "runs"}}},
                           {"key", "r"},
                           {"fields", {"t", "run", "label", "commit", "machine", "colour"}}}}};

json x_date(const char* field = "t") {
  return {{"field", field},
          {"type", "temporal"},
          {"title", "run date"},
          {"axis", {{"format", "%Y-%m-%d"}, {"labelOverlap", true}}}};
}

json y_median(const char* field) {
  return {{"field", field}, {"type", "quantitative"}, {"title", ""}, {"scale", {{"zero", false}}}};
}

json points_layer(const char* mark, json encoding) {
  return {{"data", {{"name", "points"}}},
          {"transform", {{{"flatten", {"r", "m", "lo", "hi"}}}, lookup_run}},
          {"mark", mark},
          {"encoding", std::move(encoding)}};
}

json marks_layer(const char* dataset, json mark, json encoding) {
  return {{"data", {{"name", dataset}}},
          {"transform", {lookup_run}},
          {"mark", std::move(mark)},
          {"encoding", std::move(encoding)}};
}

} // namespace

std::string base_name(bool band, bool model_line) {
  return std::string(band ? "band" : "line") + (model_line ? "-model" : "");
}

json timeline_base_spec(bool band, bool model_line) {
  const json colour = {{"field", "colour"}, {"type", "nominal"}, {"scale", nullptr}};
  const json machine = {{"field", "machine"}, {"type", "nominal"}};
  json layers = json::array();
  if (band) {
    json area = points_layer("area", {{"x", x_date()},
                                      {"y", y_median("lo")},
                                      {"y2", {{"field", "hi"}}},
                                      {"color", colour},
                                      {"detail", machine}});
    area["transform"].push_back({{"filter", "isValid(datum.lo) && isValid(datum.hi)"}});
    area["mark"] = {{"type", "area"}, {"opacity", 0.15}};
    layers.push_back(std::move(area));
  }
  if (model_line) {
    // The model-level view: the median over the model's machines of each day's runs.
    json model = points_layer("line", {{"x", x_date("day")}, {"y", y_median("model_median")}});
    model["transform"].push_back({{"timeUnit", "yearmonthdate"}, {"field", "t"}, {"as", "day"}});
    model["transform"].push_back(
        {{"aggregate", {{{"op", "median"}, {"field", "m"}, {"as", "model_median"}}}},
         {"groupby", {"day"}}});
    model["mark"] = {
        {"type", "line"}, {"color", context_colour}, {"strokeDash", {4, 3}}, {"strokeWidth", 1}};
    layers.push_back(std::move(model));
  }
  json tooltip = {
      {{"field", "t"}, {"type", "temporal"}, {"title", "started"}, {"format", "%Y-%m-%d %H:%M"}},
      {{"field", "run"}, {"title", "run"}},
      {{"field", "label"}, {"title", "label"}},
      {{"field", "commit"}, {"title", "commit"}},
      {{"field", "machine"}, {"title", "machine"}},
      {{"field", "m"}, {"type", "quantitative"}, {"title", "median"}, {"format", ",.4~g"}}};
  json line = points_layer("line", {{"x", x_date()},
                                    {"y", y_median("m")},
                                    {"color", colour},
                                    {"detail", machine},
                                    {"tooltip", tooltip}});
  line["mark"] = {{"type", "line"}, {"point", {{"size", 18}}}, {"strokeWidth", 1.5}};
  layers.push_back(std::move(line));
  layers.push_back(marks_layer(
      "steps", {{"type", "rule"}, {"color", alarm_colour}, {"strokeDash", {4, 3}}},
      {{"x", x_date()}, {"tooltip", {{{"field", "text"}, {"title", "change point"}}}}}));
  layers.push_back(marks_layer("baseline", {{"type", "rule"}, {"color", context_colour}},
                               {{"x", x_date()}, {"tooltip", {{{"field", "text"}}}}}));
  layers.push_back(
      marks_layer("baseline",
                  {{"type", "text"},
                   {"align", "left"},
                   {"baseline", "top"},
                   {"dx", 3},
                   {"dy", 2},
                   {"color", context_colour}},
                  {{"x", x_date()}, {"y", {{"value", 0}}}, {"text", {{"value", "baseline"}}}}));
  layers.push_back(marks_layer(
      "verdict", {{"type", "point"}, {"size", 110}, {"strokeWidth", 2.5}, {"filled", false}},
      {{"x", x_date()},
       {"y", y_median("m")},
       {"color", {{"field", "colour_of_verdict"}, {"type", "nominal"}, {"scale", nullptr}}},
       {"tooltip", {{{"field", "text"}, {"title", "against the baseline"}}}}}));
  return {{"width", "container"},
          {"height", 220},
          {"datasets",
           {{"runs", json::array()},
            {"points", json::array()},
            {"steps", json::array()},
            {"baseline", json::array()},
            {"verdict", json::array()}}},
          {"layer", std::move(layers)},
          {"config", chart_config()}};
}

bool drawn_in_full(const FigureHistory& figure) {
  if (figure.headline)
    return true;
  return std::all_of(figure.series.begin(), figure.series.end(),
                     [](const MachineSeries& s) { return s.points.size() <= bucketed_past_runs; });
}

json figure_chart(const FigureHistory& figure, const BaselineVerdict& verdict) {
  const bool full = drawn_in_full(figure);
  json r = json::array(), m = json::array(), lo = json::array(), hi = json::array();
  json steps = json::array();
  for (const auto& series : figure.series) {
    for (const Bucket& bucket :
         buckets_of(series, full ? series.points.size() : buckets_per_machine)) {
      r.push_back(bucket.middle->run->index);
      m.push_back(round_significant(bucket.median));
      lo.push_back(number_or_null(bucket.low));
      hi.push_back(number_or_null(bucket.high));
    }
    for (const auto& step : series.steps.value_or(std::vector<ChangePoint>{}))
      steps.push_back({{"r", series.points[step.index]->run->index},
                       {"text", fmt::format("{}: step {} ({} → {})", series.machine->label,
                                            format_change(step.change_rel),
                                            format_with_unit(step.before, figure.metric->unit),
                                            format_with_unit(step.after, figure.metric->unit))}});
  }
  json baseline = json::array(), marks = json::array();
  if (verdict.baseline && verdict.baseline->device_model == figure.model)
    baseline.push_back(
        {{"r", verdict.baseline->index}, {"text", "pinned baseline: " + verdict.baseline->name}});
  if (figure.verdict)
    for (const auto& series : figure.series)
      for (const PointView* point : series.points)
        if (point->run == verdict.candidate)
          marks.push_back(
              {{"r", point->run->index},
               {"m", round_significant(point->median)},
               {"text", fmt::format("{} ({})", wording(decision_of(*figure.verdict)).word,
                                    format_change(relative_change(*figure.verdict)))},
               {"colour_of_verdict", verdict_colour(*figure.verdict)}});
  return {{"base", base_name(full, figure.series.size() > 1)},
          {"y_title", metric_title(figure.metric->metric, figure.metric->unit)},
          {"datasets",
           {{"points", {{{"r", r}, {"m", m}, {"lo", lo}, {"hi", hi}}}},
            {"steps", steps},
            {"baseline", baseline},
            {"verdict", marks}}}};
}

std::string sparkline_svg(const FigureHistory& figure, const Timeline& timeline,
                          const BaselineVerdict& verdict) {
  // The model's time axis, so that the sparklines of one model line up.
  std::vector<const RunView*> runs;
  for (const Machine* machine : timeline.machines_of(figure.model))
    runs.insert(runs.end(), machine->runs.begin(), machine->runs.end());
  const bool timed = std::all_of(runs.begin(), runs.end(), [](auto* r) { return r->started_s; });
  const auto x_of = [&](const RunView* run) {
    return timed ? *run->started_s : static_cast<double>(run->index);
  };
  double t0 = x_of(runs.front()), t1 = t0;
  for (const RunView* run : runs)
    t0 = std::min(t0, x_of(run)), t1 = std::max(t1, x_of(run));

  std::vector<std::vector<Bucket>> lines;
  double low = 0, high = 0;
  bool first = true;
  for (const auto& series : figure.series) {
    lines.push_back(buckets_of(series, sparkline_points));
    for (const Bucket& b : lines.back()) {
      low = first ? b.median : std::min(low, b.median);
      high = first ? b.median : std::max(high, b.median);
      first = false;
    }
  }
  const auto x = [&](const RunView* run) {
    return t1 > t0 ? spark_pad + (x_of(run) - t0) / (t1 - t0) * (spark_width - 2 * spark_pad)
                   : spark_width / 2;
  };
  const auto y = [&](double value) {
    const double at = high > low ? spark_height - spark_pad -
                                       (value - low) / (high - low) * (spark_height - 2 * spark_pad)
                                 : spark_height / 2;
    return std::clamp(at, 0.0, spark_height);
  };
  std::string svg = fmt::format("<svg class=\"spark\" viewBox=\"0 0 {0:g} {1:g}\" width=\"{0:g}\" "
                                "height=\"{1:g}\" aria-hidden=\"true\">",
                                spark_width, spark_height);
  if (verdict.baseline && verdict.baseline->device_model == figure.model)
    svg += fmt::format("<line class=\"baseline\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"0\" "
                       "y2=\"{1:g}\" stroke=\"{2}\" stroke-dasharray=\"2 2\"/>",
                       x(verdict.baseline), spark_height, context_colour);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string points;
    for (const Bucket& b : lines[i])
      points +=
          fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x(b.middle->run), y(b.median));
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                       "stroke-width=\"1.3\"/>",
                       points, figure.series[i].machine->colour);
    for (const auto& step : figure.series[i].steps.value_or(std::vector<ChangePoint>{}))
      svg += fmt::format("<line class=\"step\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"0\" "
                         "y2=\"{1:g}\" stroke=\"{2}\" stroke-width=\"1.5\"/>",
                         x(figure.series[i].points[step.index]->run), spark_height, alarm_colour);
  }
  if (figure.verdict)
    for (const auto& series : figure.series)
      for (const PointView* point : series.points)
        if (point->run == verdict.candidate)
          svg += fmt::format("<circle class=\"verdict\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.8\" "
                             "fill=\"{}\"/>",
                             x(point->run), y(point->median), verdict_colour(*figure.verdict));
  return svg + "</svg>";
}

} // namespace apod::report
