// memory_latency's declaration (declaration.cpp registers it): its params, metrics and extra
// keys as named constants. The experiments that model from its DRAM figure (littles_law,
// latency_hiding) and the charts that draw a launch's Little's-law bound name it through these.
#pragma once

#include "core/catalog.hpp"
#include "core/experiment.hpp"

#include <optional>

namespace apod::latency {

inline constexpr const char* experiment = "memory_latency";

/// params["level"] of the named points: "l1", "l2" (the near partition), "l2_far", "dram"; the
/// sweep's points are "sweep"; the detected sizes are "l1", "l2_near", "l2".
inline const Param level{.key = "level", .title = "level"};
inline const Param working_set{.key = "working_set_bytes", .title = "working set", .unit = "bytes"};
inline constexpr const char* sweep_level = "sweep";
inline constexpr const char* dram_level = "dram";

inline const Metric ns{.name = "latency_ns",
                       .unit = "ns",
                       .direction = Direction::lower,
                       .metric_class = MetricClass::device_memory,
                       .title = "dependent-load latency"};
inline const Metric cycles{.name = "latency_cycles",
                           .unit = "cycles",
                           .direction = Direction::lower,
                           .metric_class = MetricClass::device_memory,
                           .title = "dependent-load latency"};

/// The extent of a cache level read off the ladder (params level: l1, l2_near, l2): the largest
/// working set on its plateau (ladder.hpp).
inline const Metric detected_size{.name = "detected_size_bytes",
                                  .unit = "bytes",
                                  .direction = Direction::higher,
                                  .metric_class = MetricClass::derived,
                                  .title = "detected level size"};

/// The run's DRAM latency: what Little's law reads.
inline FigureRef dram_figure() {
  return {experiment, ns.name, {{level.key, dram_level}}};
}

/// The extra keys a chase records (chase.cu) and the level points add (memory_latency.cu).
std::vector<Extra> chase_extras();

/// memory_latency's DRAM latency in ns from earlier in this run, if it measured one.
inline std::optional<double> earlier_dram_ns(const ExperimentContext& ctx) {
  return ctx.earlier_median(experiment, ns.name, {{level.key, dram_level}});
}

/// The run's achievable copy peak in GB/s from earlier in this run, if it measured one.
inline std::optional<double> earlier_peak_gbs(const ExperimentContext& ctx) {
  return ctx.achievable_peak_gbs(access::copy); // a copy-like kernel: read, then write
}

} // namespace apod::latency
