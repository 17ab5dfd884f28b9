#include "matched.hpp"

#include "format.hpp"
#include "watts.hpp"

#include <algorithm>
#include <map>

namespace apod::report {

namespace {

std::string family_of(const MetricView& metric, const PointAcrossRuns& across) {
  if (metric.unit == "GB/s" && metric.limit() != LimitKind::none)
    return limit_word(metric.limit());
  const bool limited = std::any_of(across.points.begin(), across.points.end(),
                                   [](const PointView* p) { return p->limit_value.has_value(); });
  return limited ? metric.unit : "";
}

ModelFigure model_figure(const PointAcrossRuns& across, const Prices& prices, bool throughput) {
  ModelFigure figure{across.device_model, across, std::nullopt, std::nullopt};
  if (!throughput)
    return figure;
  if (const auto usd = price_of(prices, across.device_model))
    figure.per_kusd = across.median / (*usd / 1000.0);
  std::vector<double> per_watt;
  for (const PointView* point : across.points)
    if (const auto watts = point_watts(*point); watts && *watts > 0)
      per_watt.push_back(point->median / *watts);
  figure.per_w = median_of(per_watt);
  return figure;
}

// Groups of one metric by point: the point's key -> one group per model, model order.
using ByParams = std::vector<std::pair<const PointKey*, std::vector<const PointAcrossRuns*>>>;

ByParams by_params(const std::vector<PointAcrossRuns>& groups,
                   const std::vector<std::string>& models) {
  ByParams found;
  std::map<const PointKey*, std::size_t> index_of; // interned: one address per point
  for (const auto& group : groups) {
    const PointKey* key = group.points.front()->key;
    auto [it, added] = index_of.try_emplace(key, found.size());
    if (added)
      found.emplace_back(key, std::vector<const PointAcrossRuns*>(models.size(), nullptr));
    const auto model = std::find(models.begin(), models.end(), group.device_model);
    found[it->second].second[model - models.begin()] = &group;
  }
  return found;
}

std::size_t measured_by(const std::vector<const PointAcrossRuns*>& per_model) {
  return std::count_if(per_model.begin(), per_model.end(), [](auto* g) { return g != nullptr; });
}

// The point a headline comparison uses: among points most models measured, the best on the
// first of them (so the comparison is the one a reader of that model's summary expects).
const std::vector<const PointAcrossRuns*>* headline_point(const ByParams& points,
                                                          const MetricView& metric) {
  std::size_t most = 0;
  for (const auto& [key, per_model] : points)
    most = std::max(most, measured_by(per_model));
  if (most < 2)
    return nullptr;
  const std::vector<const PointAcrossRuns*>* chosen = nullptr;
  double chosen_value = 0;
  for (const auto& [key, per_model] : points) {
    if (measured_by(per_model) < most)
      continue;
    const auto first = *std::find_if(per_model.begin(), per_model.end(), [](auto* g) { return g; });
    const bool better =
        metric.higher_is_better ? first->median > chosen_value : first->median < chosen_value;
    if (!chosen || better)
      chosen = &per_model, chosen_value = first->median;
  }
  return chosen;
}

} // namespace

std::string MatchedFigure::title() const {
  return experiment->title + ": " + display_name(metric->metric);
}

const ModelFigure& MatchedFigure::best() const {
  return *std::max_element(models.begin(), models.end(), [&](const auto& a, const auto& b) {
    return metric->higher_is_better ? a.across.median < b.across.median
                                    : a.across.median > b.across.median;
  });
}

double MatchedFigure::advantage(const ModelFigure& figure) const {
  const double best_value = best().across.median, value = figure.across.median;
  if (best_value == 0 || value == 0)
    return 1;
  return metric->higher_is_better ? best_value / value : value / best_value;
}

bool MatchedFigure::is_throughput() const {
  return metric->higher_is_better && !family.empty();
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
      const std::vector<PointAcrossRuns>& groups = points_across_runs(metric);
      const ByParams points = by_params(groups, page.device_models);
      std::vector<const std::vector<const PointAcrossRuns*>*> chosen;
      if (headlines_only) {
        if (const auto* point = headline_point(points, metric))
          chosen.push_back(point);
      } else {
        for (const auto& [key, per_model] : points)
          if (measured_by(per_model) >= 2)
            chosen.push_back(&per_model);
      }
      for (const auto* per_model : chosen) {
        MatchedFigure figure;
        figure.experiment = &experiment;
        figure.metric = &metric;
        figure.headline = headline;
        const PointAcrossRuns& first =
            **std::find_if(per_model->begin(), per_model->end(), [](auto* g) { return g; });
        figure.params = *first.params;
        figure.family = family_of(metric, first);
        for (const PointAcrossRuns* group : *per_model)
          if (group)
            figure.models.push_back(model_figure(*group, prices, figure.is_throughput()));
        matched.push_back(std::move(figure));
      }
    }
  }
  return matched;
}

} // namespace apod::report
