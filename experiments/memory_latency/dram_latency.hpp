// What memory_latency records and the experiments that model from it (littles_law,
// latency_hiding) read: its latency metrics and the level that names the DRAM figure. One place
// spells them.
#pragma once

#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/vocabulary.hpp"

#include <optional>

namespace apod::latency {

inline constexpr const char* experiment = latency_names::experiment;
inline const Metric ns{latency_names::ns_metric, "ns", Direction::lower};
inline const Metric cycles{latency_names::cycles_metric, "cycles", Direction::lower};
/// params["level"] of the named points: "l1", "l2", "dram"; the sweep's points are "sweep".
inline constexpr const char* level_key = latency_names::level_key;
inline constexpr const char* dram_level = latency_names::dram_level;

/// memory_latency's DRAM latency in ns from earlier in this run, if it measured one.
inline std::optional<double> earlier_dram_ns(const ExperimentContext& ctx) {
  return ctx.earlier_median(experiment, ns.name, {{level_key, dram_level}});
}

/// peak_copy's achievable peak in GB/s from earlier in this run, if it measured one.
inline std::optional<double> earlier_peak_gbs(const ExperimentContext& ctx) {
  return ctx.achievable_peak_gbs(access::copy);  // a copy-like kernel: read, then write
}

} // namespace apod::latency
