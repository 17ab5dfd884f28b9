#include "class_lines.hpp"

#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace apod::report {

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
