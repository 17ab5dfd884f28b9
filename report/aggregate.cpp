#include "aggregate.hpp"

#include "format.hpp"

#include "core/measurement.hpp"

#include <map>
#include <utility>

namespace apod::report {

std::optional<double> median_of(const std::vector<double>& values) {
  if (values.empty())
    return std::nullopt;
  return apod::summarize(values).median;
}

std::vector<PointAcrossRuns> group_across_runs(const MetricView& metric) {
  std::vector<PointAcrossRuns> groups;
  // The device model beside the point's key, interned: one address per point, so the key
  // compares pointers.
  std::map<std::pair<std::string_view, const PointKey*>, std::size_t> index_of;
  for (const auto& point : metric.points) {
    if (!point.ok)
      continue;
    const json& params = point.measurement->params;
    const auto key = std::pair(std::string_view(point.run->device_model), point.key);
    auto [it, added] = index_of.try_emplace(key, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().device_model = point.run->device_model;
      groups.back().params = &params;
    }
    groups[it->second].points.push_back(&point);
  }
  for (auto& group : groups)
    summarise_across_runs(group);
  return groups;
}

} // namespace apod::report
