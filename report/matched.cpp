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

} // namespace apod::report
