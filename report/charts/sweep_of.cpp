// A declared sweep (core/catalog.hpp's Chart with shape sweep) as the Sweep the sweep shape
// draws: its axes and series from the declared params, its model, the rules and notes it names
// read from the same runs' figures, the Little's-law bound of each launch, and the figures its
// caption states.
#include "charts/sweep_of.hpp"

#include "charts/littles_bound.hpp"
#include "charts/series.hpp"
#include "charts/sweep.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace apod::report::charts {

namespace {

std::string axis_title(const ExperimentView& experiment, const std::string& key, bool log) {
  const std::string title = experiment.param_title(key);
  return log ? title + " (log scale)" : title;
}

// "who: " where the chart tells runs or devices apart, else "".
std::string who_prefix(const SeriesPlan& plan, const Plotted& p) {
  if (plan.facet_by_model) // its panel's title names the device
    return "";
  const std::string who = who_of(plan, p);
  return who.empty() ? "" : who + ": ";
}

std::string figure_text(double value, const std::string& unit) {
  return unit == "bytes" ? format_bytes(value) : format_with_unit(value, unit);
}

// The figures a rule reads, plotted under the chart's plan or per device model.
std::vector<Plotted> rule_points(const DesignInput& in, const RuleSpec& rule,
                                 const SeriesPlan& plan, SeriesPlan& used) {
  const MetricView* metric = drawable_metric(in.experiment, rule.metric);
  if (!metric)
    return {};
  const auto points = kept_points(*metric, param_is(rule.only.first, rule.only.second));
  used = rule.per_model ? summarised_plan(points, "", plan.facet_by_model) : plan;
  return plot_points(points, used);
}

void add_rule(const DesignInput& in, const RuleSpec& rule, Sweep& sweep, const SeriesPlan& plan) {
  if (rule.from == RuleSpec::From::fixed) {
    sweep.rules.push_back({rule.value, rule.label, rule.vertical, "", "", rule.kind});
    return;
  }
  if (rule.from == RuleSpec::From::published) {
    for (const json* figure : published_for(in.published, in.experiment, rule.metric)) {
      const double value = figure->at("value").get<double>();
      const std::string params = params_in_words(in.experiment, member(*figure, "params"));
      sweep.rules.push_back({value,
                             string_at(*figure, "device") + " " + rule.label + " (published" +
                                 (params == "—" ? "" : ", " + params) +
                                 "): " + format_with_unit(value, string_at(*figure, "unit")),
                             rule.vertical, "", "", "published"});
    }
    return;
  }
  SeriesPlan used;
  const std::vector<Plotted> plotted = rule_points(in, rule, plan, used);
  const MetricView* metric = drawable_metric(in.experiment, rule.metric);
  for (const Plotted& p : plotted) {
    const auto figure = rule.from == RuleSpec::From::extra ? extra_median(p, rule.extra)
                                                           : std::optional<double>(p.y);
    if (!figure)
      continue;
    const std::string unit = rule.unit.empty() ? metric->unit : rule.unit;
    std::string label = who_prefix(used, p) + rule.label;
    if (rule.per_series && !p.series.empty())
      label += " " + p.series;
    label += ": " + figure_text(*figure, unit);
    const Rule drawn{*figure * rule.scale,
                     label,
                     rule.vertical,
                     rule.per_series ? p.series : "",
                     p.facet,
                     rule.kind};
    // One rule per place: the same figure of every run or series says it once.
    const bool seen = std::any_of(sweep.rules.begin(), sweep.rules.end(), [&](const Rule& r) {
      return std::tie(r.value, r.vertical, r.series, r.facet) ==
             std::tie(drawn.value, drawn.vertical, drawn.series, drawn.facet);
    });
    if (!seen)
      sweep.rules.push_back(drawn);
  }
}

std::string upper(std::string text) {
  for (auto& c : text)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

void add_notes(const DesignInput& in, const NoteSpec& note, Sweep& sweep, const SeriesPlan& plan) {
  const MetricView* metric = drawable_metric(in.experiment, note.metric);
  if (!metric)
    return;
  const Keep only = param_is(note.only.first, note.only.second);
  const Keep except = param_is(note.except.first, note.except.second);
  const Keep keep = [&](const PointView& p) {
    return (!only || only(p)) && (!except || !except(p));
  };
  for (const Plotted& p : plotted_as(*metric, keep, plan)) {
    json x = note.x_value;
    if (!note.x_param.empty())
      x = axis_value(*p.params, note.x_param);
    else if (!note.x_extra.empty())
      x = member(p.points.front()->measurement->extra, note.x_extra.c_str());
    if (x.is_null())
      continue;
    const std::string label =
        !note.label.empty() ? note.label
                            : upper(in.experiment.param_text(
                                  note.label_param, member(*p.params, note.label_param.c_str())));
    const std::string what = note.tip.empty() ? label : note.tip;
    sweep.notes.push_back(
        {x, p.y, label, p.series, p.facet,
         who_prefix(plan, p) + what + ": " + format_with_unit(p.y, metric->unit)});
  }
}

// "amdahl 0.934 (95% interval 0.931 – 0.937)": a fitted figure with the interval its extra stores.
std::string fitted_text(const Plotted& p, const std::string& unit) {
  std::string text = format_with_unit(p.y, unit);
  const json& ci = member(p.points.front()->measurement->extra, "ci95");
  if (p.points.size() == 1 && ci.is_array() && ci.size() == 2 && ci[0].is_number() &&
      ci[1].is_number())
    text += " (95% interval " + format_number(ci[0].get<double>()) + " – " +
            format_number(ci[1].get<double>()) + ")";
  return text;
}

// The figures a caption states, per device model (the median over its runs).
std::string caption_figures(const DesignInput& in, const Chart& chart) {
  std::vector<std::string> figures;
  for (const auto& [name, words] : chart.caption_figures)
    if (const MetricView* metric = drawable_metric(in.experiment, name)) {
      const auto points = kept_points(*metric, nullptr);
      const SeriesPlan per_model = summarised_plan(points, "", false);
      for (const Plotted& p : plot_points(points, per_model))
        figures.push_back(who_prefix(per_model, p) + words + " " + fitted_text(p, metric->unit));
    }
  if (figures.empty())
    return "";
  std::string text = chart.figures_lead.empty() ? "" : chart.figures_lead + ": ";
  for (std::size_t i = 0; i < figures.size(); ++i)
    text += (i ? "; " : "") + figures[i];
  return text + ".";
}

Sweep sweep_of(const DesignInput& in, const Chart& chart, const MetricView& metric) {
  Sweep sweep;
  sweep.metric = &metric;
  sweep.keep = param_is(chart.only.first, chart.only.second);
  sweep.x = chart.x;
  sweep.x_title = axis_title(in.experiment, chart.x, chart.log_x);
  sweep.log_x = chart.log_x;
  sweep.log_base = chart.log_base;
  sweep.log_y = chart.log_y;
  sweep.y_title = chart.y_title;
  sweep.mark = chart.mark;
  sweep.colour = chart.color;
  const Param* x = in.experiment.param(chart.x);
  sweep.x_in_bytes = x && x->unit == "bytes";
  sweep.colour_title = in.experiment.param_title(chart.color);
  sweep.device_limits = chart.limits;
  sweep.model_key = chart.model_extra;
  sweep.model_metric =
      chart.model_metric.empty() ? nullptr : drawable_metric(in.experiment, chart.model_metric);
  sweep.model_label = chart.model_label;
  sweep.model_bound = chart.model_bound;
  sweep.published = published_for(in.published, in.experiment, metric.metric);
  for (const auto& more : chart.published_metrics)
    for (const json* figure : published_for(in.published, in.experiment, more))
      sweep.published.push_back(figure);
  if (!chart.ideal_extra.empty()) {
    const std::string key = chart.ideal_extra;
    sweep.ideal = [key](const Plotted& p) { return extra_median(p, key); };
    sweep.ideal_label = chart.ideal_label;
  }
  if (!chart.marker_extra.empty()) {
    sweep.shape_of = [chart](const PointView& p) {
      const json& value = member(p.measurement->extra, chart.marker_extra.c_str());
      return value.is_number() && value.get<double>() > chart.marker_above
                 ? chart.marker_above_label
                 : chart.marker_else_label;
    };
    sweep.shape_title = chart.marker_title;
  }
  return sweep;
}

} // namespace

std::optional<Sweep> declared_sweep(const DesignInput& in, const Chart& chart) {
  // Every point must have the x parameter; one without the colour parameter (stored by an older
  // version of the experiment) is drawn as a series of its own, "—", beside the others.
  const MetricView* metric = drawable_metric(in.experiment, chart.metric);
  if (!metric || !has_params(*metric, {chart.x}))
    return std::nullopt;
  Sweep sweep = sweep_of(in, chart, *metric);
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  for (const RuleSpec& rule : chart.rules)
    add_rule(in, rule, sweep, plan);
  for (const NoteSpec& note : chart.notes)
    add_notes(in, note, sweep, plan);
  sweep.sentences = chart.sentences;
  if (chart.littles_law_latency) {
    const BoundsDrawn bounds = littles_law_rules(in.page, sweep, plan, *chart.littles_law_latency);
    sweep.rules.insert(sweep.rules.end(), bounds.rules.begin(), bounds.rules.end());
    sweep.sentences.push_back(bounds.sentence);
  }
  sweep.sentences.push_back(caption_figures(in, chart));
  return sweep;
}

} // namespace apod::report::charts
