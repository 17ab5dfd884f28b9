#include "core/catalog.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace apod {

// ---- names ----------------------------------------------------------------------------------

const char* class_name(MetricClass c) {
  switch (c) {
  case MetricClass::device_memory:
    return "device_memory";
  case MetricClass::on_chip:
    return "on_chip";
  case MetricClass::host_link:
    return "host_link";
  case MetricClass::gpu_link:
    return "gpu_link";
  case MetricClass::host_phase:
    return "host_phase";
  case MetricClass::derived:
    break;
  }
  return "derived";
}

const char* class_phrase(MetricClass c) {
  switch (c) {
  case MetricClass::device_memory:
    return "device memory";
  case MetricClass::on_chip:
    return "on-chip and compute rates";
  case MetricClass::host_link:
    return "host/PCIe transfers";
  case MetricClass::gpu_link:
    return "GPU-to-GPU transfers";
  case MetricClass::host_phase:
    return "host-phase timings";
  case MetricClass::derived:
    break;
  }
  return "derived figures";
}

std::optional<MetricClass> find_class(const std::string& name) {
  for (const MetricClass c : metric_classes)
    if (name == class_name(c))
      return c;
  return std::nullopt;
}

const char* chapter_name(Chapter c) {
  switch (c) {
  case Chapter::device_memory:
    return "device_memory";
  case Chapter::caches_on_chip:
    return "caches_on_chip";
  case Chapter::compute:
    return "compute";
  case Chapter::host_link:
    return "host_link";
  case Chapter::gpu_link:
    return "gpu_link";
  case Chapter::concurrency_launch:
    return "concurrency_launch";
  case Chapter::scaling:
    break;
  }
  return "scaling";
}

const char* chapter_title(Chapter c) {
  switch (c) {
  case Chapter::device_memory:
    return "Device memory";
  case Chapter::caches_on_chip:
    return "Caches and on-chip memory";
  case Chapter::compute:
    return "Compute";
  case Chapter::host_link:
    return "Host link";
  case Chapter::gpu_link:
    return "GPU-to-GPU link";
  case Chapter::concurrency_launch:
    return "Concurrency and launch";
  case Chapter::scaling:
    break;
  }
  return "Scaling";
}

std::optional<Chapter> find_chapter(const std::string& name) {
  for (const Chapter c : chapters)
    if (name == chapter_name(c))
      return c;
  return std::nullopt;
}

const char* shape_name(ChartShape s) {
  switch (s) {
  case ChartShape::sweep:
    return "sweep";
  case ChartShape::heatmap:
    return "heatmap";
  case ChartShape::bars:
    break;
  }
  return "bars";
}

// ---- params, classes, metrics, charts -------------------------------------------------------

std::string Param::label_of(const json& value) const {
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  for (const auto& [stored, words] : labels)
    if (stored == text)
      return words;
  return text;
}

bool ClassCase::matches(const json& params, const json& extra) const {
  const json* where = params.is_object() && params.contains(key) ? &params
                      : extra.is_object() && extra.contains(key) ? &extra
                                                                 : nullptr;
  if (!where)
    return false;
  const json& value = where->at(key);
  if (!equals.is_null() && value == equals)
    return true;
  return below && value.is_number() && value.get<double>() < *below;
}

MetricClass Metric::class_of(const json& params, const json& extra) const {
  for (const ClassCase& c : cases)
    if (c.matches(params, extra))
      return c.then;
  return metric_class;
}

Metric Metric::against(LimitKind kind) const {
  Metric m = *this;
  m.limit = kind;
  return m;
}

Metric Metric::with_case(ClassCase c) const {
  Metric m = *this;
  m.cases.push_back(std::move(c));
  return m;
}

Metric Metric::of_class(MetricClass c) const {
  Metric m = *this;
  m.metric_class = c;
  return m;
}

Chart Chart::sweep_of(const Metric& metric) {
  Chart c;
  c.shape = ChartShape::sweep;
  c.metric = metric.name;
  return c;
}

Chart Chart::heatmap_of(const Metric& metric) {
  Chart c = sweep_of(metric);
  c.shape = ChartShape::heatmap;
  return c;
}

Chart Chart::bars_of(const Metric& metric) {
  Chart c = sweep_of(metric);
  c.shape = ChartShape::bars;
  c.mark = "bar";
  return c;
}

Chart& Chart::along(const Param& param, bool log, int base) {
  x = param.key;
  log_x = log;
  log_base = base;
  return *this;
}

Chart& Chart::colour(const Param& param) {
  color = param.key;
  return *this;
}

Chart& Chart::only_where(const Param& param, json value) {
  only = {param.key, std::move(value)};
  return *this;
}

Chart& Chart::model(const std::string& extra_key, std::string label) {
  model_extra = extra_key;
  model_label = std::move(label);
  return *this;
}

Chart& Chart::model(const Metric& metric, std::string label) {
  model_metric = metric.name;
  model_label = std::move(label);
  return *this;
}

Chart& Chart::within(double bound) {
  model_bound = bound;
  return *this;
}

Chart& Chart::says(std::string what, std::vector<std::string> more) {
  caption = std::move(what);
  sentences = std::move(more);
  return *this;
}

const Metric* Declaration::find_metric(const std::string& metric) const {
  for (const Metric& m : metrics)
    if (m.name == metric)
      return &m;
  return nullptr;
}

const Param* Declaration::find_param(const std::string& key) const {
  for (const Param& p : params)
    if (p.key == key)
      return &p;
  return nullptr;
}

const Metric& Declaration::headline_metric() const {
  if (const Metric* m = find_metric(headline))
    return *m;
  if (metrics.empty())
    throw std::logic_error("experiment " + name + " declares no metric");
  return metrics.front();
}

const Measurement* headline_point(const Declaration& d,
                                  const std::vector<const Measurement*>& points) {
  const Metric& metric = d.headline_metric();
  const Measurement* best = nullptr;
  double best_median = 0;
  bool best_marked = false;
  for (const Measurement* m : points) {
    if (m->metric != metric.name || !m->ok())
      continue;
    const bool marked = is_marked_headline(m->extra);
    const double median = summarize(m->used_samples()).median;
    const bool better =
        metric.direction == Direction::higher ? median > best_median : median < best_median;
    if (!best || (marked && !best_marked) || (marked == best_marked && better))
      best = m, best_median = median, best_marked = marked;
  }
  return best;
}

// ---- the registry ---------------------------------------------------------------------------

namespace {

std::vector<Declaration>& registry() {
  static std::vector<Declaration> all; // function-local: safe from init-order problems
  return all;
}

} // namespace

bool declare_experiment(Declaration declaration) {
  auto& all = registry();
  if (find_declaration(declaration.name))
    throw std::logic_error("experiment declared twice: " + declaration.name);
  all.push_back(std::move(declaration));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return true;
}

const std::vector<Declaration>& declarations() {
  return registry();
}

const Declaration* find_declaration(const std::string& name) {
  for (const auto& d : registry())
    if (d.name == name)
      return &d;
  return nullptr;
}

MetricClass declared_class(const std::string& experiment, const std::string& metric,
                           const json& params, const json& extra) {
  const Declaration* d = find_declaration(experiment);
  const Metric* m = d ? d->find_metric(metric) : nullptr;
  return m ? m->class_of(params, extra) : MetricClass::derived;
}

MetricClass declared_class(const Declaration& d, const Measurement& m) {
  const Metric* metric = d.find_metric(m.metric);
  return metric ? metric->class_of(m.params, m.extra) : MetricClass::derived;
}

const std::vector<Extra>& common_extras() {
  static const std::vector<Extra> all = {
      {keys::bytes_moved, "bytes read plus written per sample, as the experiment counts them"},
      {keys::sm_clock_mhz, "the SM clock over each sample's timed region, measured on the device"},
      {keys::sampling_window, "when the point was sampled on the run clock, and its energy"},
      {keys::limit_gbs, "the point's own limit in GB/s"},
      {keys::limit_label, "the words for the point's own limit"},
      {keys::limit, "the point's theoretical limit in its own unit"},
      {keys::model, "what the experiment's model predicts for the point, in its unit"},
      {keys::model_gbs, "what the experiment's model predicts for the point, in GB/s"},
      {keys::attainable_gbs, "the PCIe protocol limit the point can reach"},
      {keys::attainable_label, "the words for attainable_gbs"},
      {keys::access_type, "how the figure uses memory: read, write, copy or triad"},
      {keys::headline, "true on the point that stands for the experiment"},
      {keys::launch, "the launch: block and grid size, registers, resident blocks, occupancy"},
      {keys::words_wrong, "output words that did not match, counted on the device"},
      {keys::host_words_checked, "output words checked again on the host"},
      {keys::host_words_wrong, "of those, the ones that did not match"},
      {keys::seed, "the seed of the input's pseudo-random values"},
  };
  return all;
}

namespace {

bool extra_declared(const Declaration& d, const std::string& key) {
  const auto is = [&](const Extra& e) { return e.key == key; };
  return std::any_of(d.extras.begin(), d.extras.end(), is) ||
         std::any_of(common_extras().begin(), common_extras().end(), is);
}

} // namespace

std::string declaration_mismatch(const Declaration& d, const Measurement& m) {
  const Metric* metric = d.find_metric(m.metric);
  if (!metric)
    return fmt::format("{} recorded metric '{}', which its declaration does not declare", d.name,
                       m.metric);
  if (m.unit != metric->unit)
    return fmt::format("{} recorded {} in '{}', declared in '{}'", d.name, m.metric, m.unit,
                       metric->unit);
  if (m.direction != metric->direction)
    return fmt::format("{} recorded {} as {} is better, declared {}", d.name, m.metric,
                       to_string(m.direction), to_string(metric->direction));
  for (const auto& [key, value] : m.params.items())
    if (!d.find_param(key))
      return fmt::format("{} recorded param '{}', which its declaration does not declare", d.name,
                         key);
  for (const auto& [key, value] : m.extra.items())
    if (!extra_declared(d, key))
      return fmt::format("{} recorded extra '{}', which its declaration does not declare", d.name,
                         key);
  return "";
}

std::vector<std::string> declaration_problems(const Declaration& d) {
  std::vector<std::string> problems;
  const auto problem = [&](std::string text) { problems.push_back(d.name + ": " + text); };
  if (d.name.empty() || d.title.empty() || d.description.empty() || d.citation.empty())
    problem("a name, title, description and citation are all required");
  if (d.metrics.empty())
    problem("declares no metric");
  std::set<std::string> seen;
  for (const Metric& m : d.metrics) {
    if (!seen.insert(m.name).second)
      problem("metric '" + m.name + "' is declared twice");
    if (m.unit.empty())
      problem("metric '" + m.name + "' has no unit (\"1\" for a dimensionless figure)");
    if (m.limit != LimitKind::none && m.unit != "GB/s")
      problem("metric '" + m.name + "' is read against a GB/s limit but measured in " + m.unit);
    for (const ClassCase& c : m.cases)
      if (!d.find_param(c.key) && !extra_declared(d, c.key))
        problem("a class case of '" + m.name + "' reads '" + c.key + "', declared nowhere");
  }
  seen.clear();
  for (const Param& p : d.params)
    if (!seen.insert(p.key).second)
      problem("param '" + p.key + "' is declared twice");
  if (!d.headline.empty() && !d.find_metric(d.headline))
    problem("headline '" + d.headline + "' is no declared metric");
  const auto metric_known = [&](const std::string& name, const char* what) {
    if (!name.empty() && !d.find_metric(name))
      problem(std::string("a chart's ") + what + " '" + name + "' is no declared metric");
  };
  const auto param_known = [&](const std::string& key, const char* what) {
    if (!key.empty() && !d.find_param(key))
      problem(std::string("a chart's ") + what + " '" + key + "' is no declared param");
  };
  const auto extra_known = [&](const std::string& key, const char* what) {
    if (!key.empty() && !extra_declared(d, key))
      problem(std::string("a chart's ") + what + " '" + key + "' is no declared extra key");
  };
  for (const Chart& c : d.charts) {
    metric_known(c.metric, "metric");
    if (c.metric.empty())
      problem("a chart names no metric");
    metric_known(c.model_metric, "model metric");
    param_known(c.x, "x");
    param_known(c.color, "colour");
    param_known(c.only.first, "filter");
    param_known(c.y, "y");
    extra_known(c.model_extra, "model");
    extra_known(c.ideal_extra, "ideal");
    extra_known(c.marker_extra, "marker");
    extra_known(c.y_extra, "row prefix");
    for (const auto& p : c.panels)
      param_known(p, "panel");
    for (const auto& [metric, words] : c.caption_figures)
      metric_known(metric, "caption figure");
    for (const RuleSpec& r : c.rules) {
      if (r.from != RuleSpec::From::fixed)
        metric_known(r.metric, "rule");
      if (r.from == RuleSpec::From::extra)
        extra_known(r.extra, "rule");
      param_known(r.only.first, "rule filter");
    }
    for (const NoteSpec& n : c.notes) {
      metric_known(n.metric, "note");
      param_known(n.only.first, "note filter");
      param_known(n.except.first, "note filter");
      param_known(n.x_param, "note x");
      param_known(n.label_param, "note label");
      extra_known(n.x_extra, "note x");
    }
    if (!(c.model_bound >= 0 && c.model_bound < 1))
      problem("the model of '" + c.metric + "' states a bound outside [0, 1)");
    if (c.model_bound > 0 && c.model_extra.empty() && c.model_metric.empty())
      problem("a chart of '" + c.metric + "' states a model's bound but names no model");
    // A bar starts at zero, which a log axis cannot show: Vega-Lite draws NaN-long bars (the
    // browser test caught three such charts). Points carry a log axis.
    if (c.mark == "bar" && c.log_y)
      problem("a bar chart of '" + c.metric + "' has a log y axis (bars start at zero)");
    if (c.shape == ChartShape::sweep && c.x.empty())
      problem("a sweep of '" + c.metric + "' names no x param");
    // Grouped bars stand a bar per colour value side by side; with no colour param Vega-Lite
    // sized the y axis to DBL_MAX (the browser test caught four such charts). Bars of one series
    // are a sweep with mark "bar".
    if (c.shape == ChartShape::bars && (c.x.empty() || c.color.empty()))
      problem("grouped bars of '" + c.metric +
              "' need an x and a colour param (one series: a "
              "sweep with mark \"bar\")");
    if (c.shape == ChartShape::heatmap && (c.x.empty() || c.y.empty()))
      problem("a heatmap of '" + c.metric + "' needs an x and a y param");
  }
  return problems;
}

} // namespace apod
