#include "matched.hpp"

#include "format.hpp"
#include "watts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace apod::report {

namespace {

// The version of the experiment that measured `point`, as its run recorded it.
long long version_of(const PointView& point) {
  for (const auto& experiment : point.run->run->experiments)
    if (experiment.name == point.measurement->experiment)
      return experiment.version;
  return 0;
}

// The workload class of a point, from what its experiment declares: the point's class (a
// metric's class cases move some points to another, core/catalog.hpp), unit and direction, and a
// param in bytes for a latency.
Workload workload_of(const ExperimentView& experiment, const MetricView& metric,
                     const PointView& point) {
  const bool more = metric.higher_is_better;
  switch (point.measurement->metric_class) {
  case MetricClass::device_memory:
    // Read against a DRAM limit (the metric's, or the point's own): a cache-resident working
    // set of a device-memory class has none and is no memory-bound figure.
    if (more && metric.unit == "GB/s" && point.limit_gbs)
      return Workload::memory_bound;
    if (!more && std::any_of(experiment.param_keys.begin(), experiment.param_keys.end(),
                             [&](const std::string& key) {
                               const Param* param = experiment.param(key);
                               return param && param->unit == "bytes";
                             }))
      return Workload::latency;
    return Workload::other;
  case MetricClass::on_chip:
    return more && metric.unit.ends_with("FLOP/s") ? Workload::compute : Workload::other;
  case MetricClass::host_link: // transfers: bandwidths, not atomics over the link
    return more && metric.unit == "GB/s" ? Workload::host_link : Workload::other;
  case MetricClass::gpu_link:
    return more && metric.unit == "GB/s" ? Workload::gpu_link : Workload::other;
  default:
    return Workload::other;
  }
}

const char* workload_word(Workload workload) {
  switch (workload) {
  case Workload::memory_bound:
    return "memory-bound";
  case Workload::compute:
    return "compute";
  case Workload::host_link:
    return "host link";
  case Workload::gpu_link:
    return "GPU-GPU link";
  case Workload::latency:
    return "latency at DRAM";
  case Workload::other:
    break;
  }
  return "other";
}

std::string family_of(const MetricView& metric, const PointAcrossRuns& across) {
  if (metric.unit == "GB/s" && metric.limit() != LimitKind::none)
    return limit_word(metric.limit());
  const bool limited = std::any_of(across.points.begin(), across.points.end(),
                                   [](const PointView* p) { return p->limit_value.has_value(); });
  return limited ? metric.unit : "";
}

ModelFigure model_figure(const PointAcrossRuns& across, const Prices& prices, bool throughput) {
  ModelFigure figure{across.device_model, across, std::nullopt, std::nullopt, ""};
  if (!throughput) {
    figure.per_w_missing = "not a throughput";
    return figure;
  }
  if (const auto usd = price_of(prices, across.device_model))
    figure.per_kusd = across.median / (*usd / 1000.0);
  std::vector<double> per_watt;
  for (const PointView* point : across.points) {
    const PointWatts watts = point_watts(*point);
    if (watts.watts)
      per_watt.push_back(point->median / *watts.watts);
    else if (figure.per_w_missing.empty())
      figure.per_w_missing = watts.missing;
  }
  figure.per_w = median_of(per_watt);
  if (figure.per_w)
    figure.per_w_missing.clear();
  return figure;
}

// One metric's verified points of one version, grouped by model and point: what matching reads.
struct Groups {
  std::vector<PointAcrossRuns> groups; // by (model, key), first-seen order
  std::vector<const PointKey*> keys;   // every model measured these, first-seen order
  std::vector<const PointKey*> any;    // some model measured these, first-seen order
  std::map<std::pair<std::string_view, const PointKey*>, std::size_t> index_of;
  std::map<const PointKey*, std::size_t> first_of; // a key's first group
};

Groups groups_at(const MetricView& metric, long long version,
                 const std::vector<std::string>& models) {
  Groups found;
  auto& index_of = found.index_of;
  for (const auto& point : metric.points) {
    if (!point.ok || version_of(point) != version)
      continue;
    found.first_of.try_emplace(point.key, found.groups.size());
    auto [it, added] = index_of.try_emplace(
        std::pair(std::string_view(point.run->device_model), point.key), found.groups.size());
    if (added) {
      found.groups.emplace_back();
      found.groups.back().device_model = point.run->device_model;
      found.groups.back().params = &point.measurement->params;
    }
    found.groups[it->second].points.push_back(&point);
  }
  for (auto& group : found.groups)
    summarise_across_runs(group);
  std::map<const PointKey*, std::set<std::string>> measured;
  for (const auto& group : found.groups) {
    auto& seen = measured[group.points.front()->key];
    if (seen.empty())
      found.keys.push_back(group.points.front()->key);
    seen.insert(group.device_model);
  }
  found.any = found.keys;
  std::erase_if(found.keys,
                [&](const PointKey* key) { return measured[key].size() < models.size(); });
  return found;
}

// The models that measured `metric` at each version; the version a comparison uses is the
// newest measured by the most models (at least two).
std::optional<long long> shared_version(const MetricView& metric, std::vector<std::string>& models,
                                        std::vector<long long>& others) {
  std::map<long long, std::vector<std::string>> by_version;
  for (const auto& point : metric.points)
    if (point.ok) {
      auto& list = by_version[version_of(point)];
      if (std::find(list.begin(), list.end(), point.run->device_model) == list.end())
        list.push_back(point.run->device_model);
    }
  std::optional<long long> chosen;
  for (const auto& [version, list] : by_version) // ascending: ties go to the newer
    if (list.size() >= 2 && (!chosen || list.size() >= by_version[*chosen].size()))
      chosen = version;
  if (!chosen)
    return std::nullopt;
  for (const auto& [version, list] : by_version)
    if (version != *chosen)
      others.push_back(version);
  models = by_version[*chosen];
  return chosen;
}

const PointAcrossRuns* group_of(const Groups& groups, const std::string& model,
                                const PointKey* key) {
  const auto it = groups.index_of.find(std::pair(std::string_view(model), key));
  return it == groups.index_of.end() ? nullptr : &groups.groups[it->second];
}

bool better(const MetricView& metric, double a, double b) {
  return metric.higher_is_better ? a > b : a < b;
}

// The largest value of the experiment's first param in bytes at `key`'s point.
double bytes_at(const ExperimentView& experiment, const json& params) {
  for (const auto& name : experiment.param_keys)
    if (const Param* param = experiment.param(name); param && param->unit == "bytes")
      if (params.contains(name) && params.at(name).is_number())
        return params.at(name).get<double>();
  return -1;
}

// The first text param of a point, as words: what splits compute figures into classes (a
// precision); each model's best is taken over the other params (a method, a size).
std::string text_params(const ExperimentView& experiment, const json& params) {
  for (const auto& name : experiment.param_keys)
    if (params.contains(name) && params.at(name).is_string())
      return experiment.param_text(name, params.at(name));
  return "";
}

} // namespace

std::string MatchedFigure::title() const {
  return experiment->title + ": " + display_name(metric->metric);
}

const ModelFigure& MatchedFigure::best() const {
  return *std::max_element(models.begin(), models.end(), [&](const auto& a, const auto& b) {
    return better(*metric, b.across.median, a.across.median);
  });
}

double MatchedFigure::advantage(const ModelFigure& figure) const {
  const double best_value = best().across.median, value = figure.across.median;
  if (best_value == 0 || value == 0)
    return 1;
  return metric->higher_is_better ? best_value / value : value / best_value;
}

bool MatchedFigure::is_throughput() const {
  return metric->higher_is_better && (!family.empty() || workload != Workload::other);
}

std::optional<double> price_of(const Prices& prices, const std::string& model) {
  for (const auto& [name, usd] : prices)
    if (name == model)
      return usd;
  return std::nullopt;
}

std::string family_title(const std::string& family) {
  if (family == limit_word(LimitKind::dram))
    return "device memory (DRAM)";
  if (family == limit_word(LimitKind::pcie))
    return "host link (PCIe)";
  return family.empty() ? "no limit" : family;
}

std::string direction_words(const MetricView& metric) {
  return metric.higher_is_better ? "more is better" : "less is better";
}

std::vector<MatchedFigure> matched_figures(const PageModel& page, const Prices& prices,
                                           bool headlines_only) {
  std::vector<MatchedFigure> matched;
  if (page.device_models.size() < 2)
    return matched;
  for (const auto& experiment : page.experiments) {
    const auto headlines = experiment.headline_metrics();
    for (const auto& metric : experiment.metrics) {
      const bool headline =
          std::find(headlines.begin(), headlines.end(), &metric) != headlines.end();
      if (headlines_only && !headline)
        continue;
      std::vector<std::string> models;
      std::vector<long long> others;
      const auto version = shared_version(metric, models, others);
      if (!version)
        continue;
      // In the page's model order.
      std::vector<std::string> ordered;
      for (const auto& model : page.device_models)
        if (std::find(models.begin(), models.end(), model) != models.end())
          ordered.push_back(model);
      const Groups groups = groups_at(metric, *version, ordered);
      if (groups.keys.empty() && !headlines_only)
        continue;
      auto first_group = [&](const PointKey* key) {
        return &groups.groups[groups.first_of.at(key)];
      };
      auto workload_at = [&](const PointKey* key) {
        return workload_of(experiment, metric, *first_group(key)->points.front());
      };
      // Each figure: its workload, the words that split it (a precision), per model its group.
      struct Chosen {
        Workload workload;
        std::string words;
        std::vector<const PointAcrossRuns*> per_model;
      };
      std::vector<Chosen> chosen;
      auto own_best = [&](const std::vector<const PointKey*>& keys) {
        std::vector<const PointAcrossRuns*> per_model;
        for (const auto& model : ordered) {
          const PointAcrossRuns* top = nullptr;
          for (const PointKey* key : keys)
            if (const auto* g = group_of(groups, model, key);
                g && (!top || better(metric, g->median, top->median)))
              top = g;
          per_model.push_back(top);
        }
        return per_model;
      };
      // The point best on the first model, every model there.
      auto one_point = [&](const std::vector<const PointKey*>& keys) {
        const PointKey* top = nullptr;
        double top_value = 0;
        for (const PointKey* key : keys)
          if (const auto* g = group_of(groups, ordered.front(), key);
              !top || better(metric, g->median, top_value))
            top = key, top_value = g->median;
        std::vector<const PointAcrossRuns*> per_model;
        for (const auto& model : ordered)
          per_model.push_back(group_of(groups, model, top));
        return per_model;
      };
      if (!headlines_only) {
        for (const PointKey* key : groups.keys)
          chosen.push_back({workload_at(key), "", one_point({key})});
      } else {
        // Throughputs of a class: each model's best among the points every model measured (a
        // peak, not one intensity), compute split by its text params (a precision).
        std::vector<Chosen> split;
        std::vector<std::vector<const PointKey*>> split_keys;
        for (const PointKey* key : groups.keys) {
          const Workload workload = workload_at(key);
          if (workload == Workload::other || workload == Workload::latency)
            continue;
          const std::string words = workload == Workload::compute
                                        ? text_params(experiment, *first_group(key)->params)
                                        : std::string();
          std::size_t i = 0;
          while (i < split.size() && (split[i].workload != workload || split[i].words != words))
            ++i;
          if (i == split.size())
            split.push_back({workload, words, {}}), split_keys.emplace_back();
          split_keys[i].push_back(key);
        }
        for (std::size_t i = 0; i < split.size(); ++i)
          chosen.push_back({split[i].workload, split[i].words, own_best(split_keys[i])});
        // A latency at DRAM: each model at its own largest working set, which lies past its
        // caches whatever their size (the models' sweeps end at different sizes).
        std::vector<const PointKey*> latency;
        for (const PointKey* key : groups.any)
          if (workload_at(key) == Workload::latency)
            latency.push_back(key);
        if (!latency.empty()) {
          std::vector<const PointAcrossRuns*> per_model;
          for (const auto& model : ordered) {
            const PointAcrossRuns* top = nullptr;
            for (const PointKey* key : latency)
              if (const auto* g = group_of(groups, model, key)) {
                const double bytes = bytes_at(experiment, *g->params);
                const double top_bytes = top ? bytes_at(experiment, *top->params) : -1;
                if (!top || bytes > top_bytes ||
                    (bytes == top_bytes && better(metric, g->median, top->median)))
                  top = g;
              }
            per_model.push_back(top);
          }
          chosen.push_back({Workload::latency, "", per_model});
        }
        if (chosen.empty() && !groups.keys.empty())
          chosen.push_back({Workload::other, "", one_point(groups.keys)});
      }
      for (const auto& [workload, words, per_model] : chosen) {
        if (std::count(per_model.begin(), per_model.end(), nullptr) + 2 > long(per_model.size()))
          continue; // fewer than two models
        MatchedFigure figure;
        figure.experiment = &experiment;
        figure.metric = &metric;
        figure.headline = headline;
        figure.version = *version;
        figure.other_versions = others;
        figure.workload = workload;
        figure.workload_label = workload_word(workload);
        if (!words.empty())
          figure.workload_label += " " + words;
        figure.own_best = headlines_only && workload != Workload::other;
        const PointAcrossRuns& first =
            **std::find_if(per_model.begin(), per_model.end(), [](auto* g) { return g; });
        figure.params = *first.params;
        figure.family = family_of(metric, first);
        for (const PointAcrossRuns* group : per_model)
          if (group)
            figure.models.push_back(model_figure(*group, prices, figure.is_throughput()));
        matched.push_back(std::move(figure));
      }
    }
  }
  return matched;
}

std::string ClassLine::efficiency_text() const {
  std::string text =
      per_usd ? "per $ " + format_ratio(*per_usd) : "per $ n/a (" + per_usd_missing + ")";
  if (per_w)
    text +=
        ", per W " + format_ratio(*per_w) +
        (per_w_figures < figures ? fmt::format(" (over the {} of {} figures with power measured)",
                                               per_w_figures, figures)
                                 : std::string(" (power measured during the work)"));
  else
    text += ", per W n/a (" + per_w_missing + ")";
  return text;
}

std::string ClassLine::text() const {
  const std::string lead = ratio < 1.02
                               ? fmt::format("{} on par with {}", best, runner_up)
                               : fmt::format("{} {} over {}", best, format_ratio(ratio), runner_up);
  return fmt::format("{}: {}, {}; geometric mean of {} figure{}", label, lead, efficiency_text(),
                     figures, figures == 1 ? "" : "s");
}

std::string ClassNotCompared::why(std::string (*name)(const std::string&)) const {
  std::string names;
  for (const auto& model : models)
    names += (names.empty() ? "" : ", ") + (name ? name(model) : model);
  return models.size() < 2
             ? "n/a (measured on " + names + " only)"
             : "n/a (no point of one experiment version measured by every model: " + names + ")";
}

std::vector<ClassNotCompared> classes_not_compared(const PageModel& page,
                                                   const std::vector<ClassLine>& lines) {
  std::vector<ClassNotCompared> missing;
  if (page.device_models.size() < 2)
    return missing;
  // Class label -> the models with a verified headline point of it, in Workload order.
  std::vector<std::tuple<Workload, std::string, std::vector<std::string>>> seen;
  for (const auto& experiment : page.experiments)
    for (const MetricView* metric : experiment.headline_metrics())
      for (const auto& point : metric->points) {
        if (!point.ok)
          continue;
        const Workload workload = workload_of(experiment, *metric, point);
        if (workload == Workload::other)
          continue;
        std::string label = workload_word(workload);
        if (workload == Workload::compute)
          if (const std::string words = text_params(experiment, point.measurement->params);
              !words.empty())
            label += " " + words;
        auto it = std::find_if(seen.begin(), seen.end(),
                               [&](const auto& s) { return std::get<1>(s) == label; });
        if (it == seen.end())
          it = seen.insert(seen.end(), {workload, label, {}});
        auto& models = std::get<2>(*it);
        if (std::find(models.begin(), models.end(), point.run->device_model) == models.end())
          models.push_back(point.run->device_model);
      }
  std::stable_sort(seen.begin(), seen.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  for (const auto& [workload, label, models] : seen) {
    if (std::any_of(lines.begin(), lines.end(),
                    [&](const ClassLine& line) { return line.label == label; }))
      continue;
    missing.push_back({label, models});
  }
  return missing;
}

std::vector<ClassLine> class_lines(const std::vector<MatchedFigure>& headline,
                                   const std::vector<std::string>& models) {
  std::vector<ClassLine> lines;
  if (models.size() < 2)
    return lines;
  // Class label -> its figures measured by every model, in Workload order then first seen.
  std::vector<std::pair<std::string, std::vector<const MatchedFigure*>>> classes;
  for (const Workload workload : {Workload::memory_bound, Workload::compute, Workload::host_link,
                                  Workload::gpu_link, Workload::latency})
    for (const auto& figure : headline) {
      if (figure.workload != workload || figure.models.size() != models.size())
        continue;
      auto it = std::find_if(classes.begin(), classes.end(),
                             [&](const auto& c) { return c.first == figure.workload_label; });
      if (it == classes.end())
        it = classes.insert(classes.end(), {figure.workload_label, {}});
      it->second.push_back(&figure);
    }
  // The log of a model's figure relative to the first model's, turned so that more is better.
  auto relative = [&](const MatchedFigure& f, std::size_t m, auto value) -> std::optional<double> {
    const auto a = value(f.models[m]), b = value(f.models[0]);
    if (!a || !b || *a <= 0 || *b <= 0)
      return std::nullopt;
    const double log = std::log(*a / *b);
    return f.metric->higher_is_better ? log : -log;
  };
  for (const auto& [label, figures] : classes) {
    ClassLine line;
    line.workload = figures.front()->workload;
    line.label = label;
    line.figures = figures.size();
    // Each model's geometric mean over the figures, relative to the first model.
    auto means = [&](auto value, std::size_t& used) {
      std::vector<double> sums(models.size(), 0.0);
      used = 0;
      for (const MatchedFigure* f : figures) {
        std::vector<double> logs;
        for (std::size_t m = 0; m < models.size(); ++m)
          if (const auto r = relative(*f, m, value))
            logs.push_back(*r);
        if (logs.size() != models.size())
          continue;
        ++used;
        for (std::size_t m = 0; m < models.size(); ++m)
          sums[m] += logs[m];
      }
      return sums;
    };
    std::size_t used = 0;
    const auto perf =
        means([](const ModelFigure& m) { return std::optional(m.across.median); }, used);
    if (used == 0)
      continue;
    std::vector<std::size_t> order(models.size());
    for (std::size_t m = 0; m < order.size(); ++m)
      order[m] = m;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return perf[a] > perf[b]; });
    const std::size_t best = order[0], next = order[1];
    line.best = models[best];
    line.runner_up = models[next];
    line.ratio = std::exp((perf[best] - perf[next]) / used);
    line.figures = used;
    std::size_t priced = 0;
    const auto usd = means([](const ModelFigure& m) { return m.per_kusd; }, priced);
    if (line.workload == Workload::latency)
      line.per_usd_missing = "a latency";
    else if (priced == used)
      line.per_usd = std::exp((usd[best] - usd[next]) / used);
    else
      line.per_usd_missing = "needs a price for both models: --prices";
    const auto watts = means([](const ModelFigure& m) { return m.per_w; }, line.per_w_figures);
    if (line.workload == Workload::latency)
      line.per_w_missing = "a latency";
    else if (line.per_w_figures > 0)
      line.per_w = std::exp((watts[best] - watts[next]) / line.per_w_figures);
    else
      for (const MatchedFigure* f : figures)
        for (const auto& m : f->models)
          if (line.per_w_missing.empty() && !m.per_w)
            line.per_w_missing = m.per_w_missing;
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace apod::report
