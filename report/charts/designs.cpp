// Which charts an experiment's section shows: its design where apod has one, else one generic
// chart per charted metric from the catalog's ChartSpec (or the experiment's own Vega-Lite spec).
#include "charts/designs.hpp"

#include "format.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace apod::report {

namespace charts {

const MetricView* drawable_metric(const ExperimentView& experiment, const std::string& name) {
  for (const auto& metric : experiment.metrics)
    if (metric.metric == name && metric.ok_count() > 0)
      return &metric;
  return nullptr;
}

bool has_params(const MetricView& metric, const std::vector<std::string>& params) {
  return std::all_of(metric.points.begin(), metric.points.end(), [&](const PointView& p) {
    return !p.ok || std::all_of(params.begin(), params.end(), [&](const std::string& key) {
      return p.measurement->params.contains(key);
    });
  });
}

Keep param_is(const std::string& key, const std::string& value) {
  return [key, value](const PointView& p) {
    return string_at(p.measurement->params, key.c_str()) == value;
  };
}

namespace {

// Without a colour parameter (none in the catalog, or one the stored results lack), the first
// other parameter that takes several values at one x (few enough for a legend) splits the
// series, so two points of one x never join into one zigzag line (an older scaling's laws).
std::string varying_param(const ExperimentView& experiment, const MetricView& metric) {
  const std::string& x = experiment.chart.x;
  for (const auto& key : experiment.param_keys) {
    if (key == x)
      continue;
    std::map<std::string, std::set<std::string>> at_x;
    std::set<std::string> values;
    for (const auto& point : metric.points) {
      if (!point.ok)
        continue;
      const json& params = point.measurement->params;
      const std::string value = member(params, key.c_str()).dump();
      at_x[member(params, x.c_str()).dump()].insert(value);
      values.insert(value);
    }
    const bool splits =
        std::any_of(at_x.begin(), at_x.end(), [](const auto& v) { return v.second.size() > 1; });
    if (splits && values.size() <= max_series)
      return key;
  }
  return "";
}

} // namespace

Sweep catalog_sweep(const DesignInput& in, const MetricView& metric) {
  const ChartSettings& chart = in.experiment.chart;
  Sweep sweep;
  sweep.metric = &metric;
  sweep.x = chart.x;
  sweep.x_title = chart.x_title;
  sweep.log_x = chart.log_x;
  sweep.colour = chart.color;
  sweep.mark = chart.mark;
  if (sweep.colour.empty())
    sweep.colour = varying_param(in.experiment, metric);
  sweep.colour_title = display_name(sweep.colour);
  sweep.published = published_for(in.published, in.experiment, metric.metric);
  // A model stored beside each point is drawn beside it (keys::model_gbs, keys::model).
  for (const char* key : {keys::model_gbs, keys::model}) {
    const bool stored = std::any_of(metric.points.begin(), metric.points.end(), [&](const auto& p) {
      return p.ok && has_number(p.measurement->extra, key);
    });
    if (stored && sweep.model_key.empty()) {
      sweep.model_key = key;
      sweep.model_label = "model";
    }
  }
  return sweep;
}

std::optional<Sweep> designed_sweep(const DesignInput& in, const std::string& metric,
                                    const std::vector<std::string>& params) {
  const MetricView* view = drawable_metric(in.experiment, metric);
  if (!view || !has_params(*view, params))
    return std::nullopt;
  return catalog_sweep(in, *view);
}

std::string caption(const std::string& what, const PageModel& page, const SeriesPlan& plan,
                    const std::vector<std::string>& more) {
  std::string text = what;
  const std::string runs = runs_sentence(page, plan);
  if (!runs.empty())
    text += "; " + runs;
  text += ".";
  for (const auto& sentence : more)
    if (!sentence.empty())
      text += " " + sentence;
  return text;
}

std::string published_sentence(const Sweep& sweep) {
  std::vector<std::string> devices;
  for (const json* figure : sweep.published)
    add_unique(devices, string_at(*figure, "device"));
  if (devices.empty())
    return "";
  // Their sources and citations are in the section's table of published figures.
  std::string text = "Black marks and dotted lines: the source documents' published figures for ";
  for (std::size_t i = 0; i < devices.size(); ++i)
    text += (i == 0 ? "" : i + 1 == devices.size() ? " and " : ", ") + devices[i];
  return text + " (sources in the table of published figures).";
}

std::string limits_sentence(const ExperimentView& experiment, const MetricView& metric) {
  std::vector<std::string> words;
  for (const auto& point : metric.points) {
    if (point.ok && (point.limit_gbs || point.unit_limit))
      add_unique(words, limit_words_of(experiment, point));
  }
  if (words.empty())
    return "";
  std::string text = "Red dashed: ";
  for (std::size_t i = 0; i < words.size(); ++i)
    text += (i ? "; " : "") + words[i];
  return text + ".";
}

ChartBlock sweep_block(const DesignInput& in, const Sweep& sweep, const std::string& what,
                       const std::vector<std::string>& more) {
  std::vector<std::string> sentences = more;
  if (sweep.device_limits)
    sentences.insert(sentences.begin(), limits_sentence(in.experiment, *sweep.metric));
  sentences.push_back(published_sentence(sweep));
  return {sweep_spec(in.page, in.experiment, sweep),
          caption(what, in.page, sweep_plan(in.page, sweep), sentences)};
}

namespace {

const std::map<std::string, Design>& designs() {
  static const std::map<std::string, Design> table = {
      {"peak_copy", peak_copy_charts},
      {"offset_copy", offset_copy_charts},
      {"stride_copy", stride_copy_charts},
      {latency_names::experiment, memory_latency_charts},
      {"littles_law", littles_law_charts},
      {"latency_hiding", latency_hiding_charts},
      {"roofline", roofline_charts},
      {"bank_conflicts", bank_conflicts_charts},
      {"l2_persistence", l2_persistence_charts},
      {"scaling", scaling_charts},
      {"host_transfer", host_transfer_charts},
      {"staged_copy", staged_copy_charts},
      {"overlap_matrix", overlap_matrix_charts},
  };
  return table;
}

} // namespace

} // namespace charts

std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published) {
  const charts::DesignInput in{page, experiment, published};
  const auto design = charts::designs().find(experiment.name);
  if (design != charts::designs().end() && experiment.in_catalog) {
    std::vector<ChartBlock> blocks = design->second(in);
    if (!blocks.empty())
      return blocks;
  }
  std::vector<ChartBlock> blocks;
  for (const auto& metric : experiment.metrics) {
    // Nothing verified to draw (the table says why), or not the metric the experiment charts.
    if (metric.ok_count() == 0 || !experiment.charts_metric(metric))
      continue;
    const std::string title = metric_title(metric.metric, metric.unit);
    if (experiment.chart.vega_lite.is_object()) {
      blocks.push_back({build_chart_spec(page, experiment, metric),
                        title + ": drawn with the experiment's own Vega-Lite spec."});
      continue;
    }
    const charts::Sweep sweep = charts::catalog_sweep(in, metric);
    blocks.push_back(charts::sweep_block(in, sweep, title + " against " + sweep.x_title));
  }
  return blocks;
}

} // namespace apod::report
