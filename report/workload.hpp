// Workload classes: what a buyer asks a figure for (memory-bound, compute per precision, host
// link, GPU-GPU link, latency at DRAM), read from a metric's declaration (class, limit, unit,
// direction, a param in bytes), never from an experiment's name.
#pragma once

#include "model.hpp"

#include <string>

namespace apod::report {

/// What a buyer asks a figure for, from the metric's declaration (class, limit, unit,
/// direction, a param in bytes): never from an experiment's name.
enum class Workload {
  memory_bound, ///< device-memory bandwidth read against DRAM (GB/s, more is better)
  compute,      ///< on-chip FLOP/s, one class per value of the experiment's text params
  host_link,    ///< host-link transfers (more is better)
  gpu_link,     ///< GPU-to-GPU transfers (more is better)
  latency,      ///< a device-memory latency at the largest working set (DRAM; less is better)
  other,        ///< none of the above: in the tables, in no class line
};

/// The workload class of `point` of `metric` of `experiment`.
Workload workload_of(const ExperimentView& experiment, const MetricView& metric,
                     const PointView& point);

/// "memory-bound", "compute", "host link", "GPU-GPU link", "latency at DRAM", "other".
const char* workload_word(Workload workload);

/// The first text param of a point, as words: what splits compute figures into classes (a
/// precision); "" where it has none.
std::string text_params(const ExperimentView& experiment, const json& params);

} // namespace apod::report
