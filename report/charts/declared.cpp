// What the shapes of a declared chart share, and the generic sweep of a metric: its first param
// across, the first other param that splits its series, a model its points store beside it.
#include "charts/declared.hpp"

#include "charts/series.hpp"
#include "charts/sweep.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace apod::report::charts {

const MetricView* drawable_metric(const ExperimentView& experiment, const std::string& name) {
  for (const auto& metric : experiment.metrics)
    if (metric.metric == name && metric.ok_count() > 0)
      return &metric;
  return nullptr;
}

bool has_params(const MetricView& metric, const std::vector<std::string>& params) {
  return std::all_of(metric.points.begin(), metric.points.end(), [&](const PointView& p) {
    return !p.ok || std::all_of(params.begin(), params.end(), [&](const std::string& key) {
      return key.empty() || p.measurement->params.contains(key);
    });
  });
}

Keep param_is(const std::string& key, const json& value) {
  if (key.empty())
    return nullptr;
  return [key, value](const PointView& p) {
    return member(p.measurement->params, key.c_str()) == value;
  };
}

namespace {

// The first param other than x that takes several values at one x (few enough for a legend)
// splits the series, so two points of one x never join into one zigzag line.
std::string varying_param(const ExperimentView& experiment, const MetricView& metric,
                          const std::string& x) {
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

Sweep generic_sweep(const DesignInput& in, const MetricView& metric) {
  Sweep sweep;
  sweep.metric = &metric;
  sweep.x = in.experiment.param_keys.empty() ? "" : in.experiment.param_keys.front();
  sweep.x_title = sweep.x.empty() ? "run" : in.experiment.param_title(sweep.x);
  const Param* x = in.experiment.param(sweep.x);
  sweep.x_in_bytes = x && x->unit == "bytes";
  sweep.colour = varying_param(in.experiment, metric, sweep.x);
  sweep.colour_title = in.experiment.param_title(sweep.colour);
  sweep.published = published_for(in.published, in.experiment, metric.metric);
  // Categories across (configurations, access patterns): bars, not a line between them.
  const bool categories =
      std::any_of(metric.points.begin(), metric.points.end(), [&](const auto& p) {
        return p.ok && member(p.measurement->params, sweep.x.c_str()).is_string();
      });
  if (categories)
    sweep.mark = "bar";
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

} // namespace apod::report::charts
