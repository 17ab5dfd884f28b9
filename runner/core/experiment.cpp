#include "core/experiment.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod {

namespace {
std::vector<ExperimentInfo>& registry() {
  static std::vector<ExperimentInfo> all;  // function-local: safe from init-order problems
  return all;
}
}  // namespace

bool register_experiment(ExperimentInfo info) {
  auto& all = registry();
  if (find_experiment(info.name)) throw std::logic_error("experiment registered twice: " + info.name);
  all.push_back(std::move(info));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return true;
}

std::optional<double> ExperimentContext::earlier_median(const std::string& name, const std::string& metric,
                                                       const json& params) const {
  if (!earlier) return std::nullopt;
  for (const Measurement& m : *earlier) {
    if (m.experiment != name || m.metric != metric || !m.ok()) continue;
    bool matches = true;
    for (const auto& [key, value] : params.items())
      matches = matches && m.params.contains(key) && m.params[key] == value;
    if (matches) return summarize(m.used_samples()).median;
  }
  return std::nullopt;
}

std::optional<double> ExperimentContext::achievable_peak_gbs(const std::string& access_type) const {
  if (auto peak = earlier_median(keys::achievable_peak_experiment, keys::access_peak, {{keys::access_type, access_type}}))
    return peak;
  return earlier_median(keys::achievable_peak_experiment, keys::achievable_peak);
}

const std::vector<ExperimentInfo>& experiments() { return registry(); }

const ExperimentInfo* find_experiment(const std::string& name) {
  for (const auto& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

json experiment_catalog() {
  json catalog = json::object();
  for (const auto& e : registry()) {
    catalog[e.name] = {
        {"title", e.title},
        {"description", e.description},
        {"citation", e.citation},
        {"version", e.version},
        {"order", e.order},
        {"chart",
         {{"metric", e.chart.metric},
          {"x", e.chart.x},
          {"x_title", e.chart.x_title},
          {"log_x", e.chart.log_x},
          {"color", e.chart.color},
          {"mark", e.chart.mark},
          {"limit", limit_name(e.chart.limit)},
          {"vega_lite", e.chart.vega_lite}}},
    };
  }
  return catalog;
}

}  // namespace apod
