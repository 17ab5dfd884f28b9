#include "workload.hpp"

#include <algorithm>

namespace apod::report {

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

// Each model's best is taken over the other params (a method, a size): matched.cpp.
std::string text_params(const ExperimentView& experiment, const json& params) {
  for (const auto& name : experiment.param_keys)
    if (params.contains(name) && params.at(name).is_string())
      return experiment.param_text(name, params.at(name));
  return "";
}

} // namespace apod::report
