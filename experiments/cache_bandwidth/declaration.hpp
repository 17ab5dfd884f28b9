// cache_bandwidth's declaration (declaration.cpp registers it): its params, metrics and extra
// keys as named constants, which cache_bandwidth.cu records under. The level param, the working
// set and the detected level sizes are memory_latency's own constants, so the sizes read off the
// bandwidth curve are stored under the same names and units as those read off the latency
// ladder.
#pragma once

#include "../memory_latency/declaration.hpp"
#include "core/catalog.hpp"
#include "sweep.hpp"

namespace apod::cache_bw {

inline constexpr const char* experiment = "cache_bandwidth";

/// How the set is read (or written): per_sm_read, gpu_read, gpu_write (sweep.hpp).
inline const Param pattern{
    .key = "pattern",
    .title = "access pattern",
    .labels = {{per_sm_read, "read, every block the whole set (per-SM L1)"},
               {gpu_read, "read, the whole GPU the set once a lap (L1 bypassed)"},
               {gpu_write, "write, the whole GPU the set once a lap"}}};
/// memory_latency's: "level" (l1, l2, l2_far, dram; detected sizes l1, l2_near, l2) and
/// "working_set_bytes".
inline const Param& level = latency::level;
inline const Param& working_set = latency::working_set;

inline constexpr const char* dram_level = "dram";
/// extra: whether the working set is larger than the L2 (its point is then a DRAM figure).
inline constexpr const char* over_l2_key = "set_over_l2";

/// Bytes loaded (or stored) per second over one sample, each 16-byte load counted once. On-chip
/// while the set fits the L2; a set larger than the L2 is read from DRAM.
inline const Metric bandwidth{
    .name = "bandwidth_gbs",
    .unit = "GB/s",
    .direction = Direction::higher,
    .metric_class = MetricClass::on_chip,
    .title = "bandwidth",
    .cases = {{.key = over_l2_key,
               .equals = true,
               .then = MetricClass::device_memory,
               .why = "a set larger than the L2 is read from (or written back to) DRAM"}}};

/// A level's plateau: the median bandwidth of the points on it (levels l1, l2, l2_far, dram).
inline const Metric level_bandwidth{.name = "level_bandwidth_gbs",
                                    .unit = "GB/s",
                                    .direction = Direction::higher,
                                    .metric_class = MetricClass::on_chip,
                                    .title = "plateau bandwidth",
                                    .cases = {{.key = level.key,
                                               .equals = dram_level,
                                               .then = MetricClass::device_memory,
                                               .why = "the plateau past the L2 is DRAM's"}}};

/// The DRAM plateau over the device's theoretical DRAM bandwidth (Best Practices Guide 8.2.1).
inline const Metric fraction_of_theoretical{.name = "fraction_of_theoretical",
                                            .unit = "1",
                                            .direction = Direction::higher,
                                            .metric_class = MetricClass::derived,
                                            .title = "DRAM plateau / theoretical DRAM bandwidth"};

/// The far half of the L2 against its near half (sweep.hpp l2_halves), level l2.
inline const Metric far_near_ratio{.name = "l2_far_over_near",
                                   .unit = "1",
                                   .direction = Direction::higher,
                                   .metric_class = MetricClass::derived,
                                   .title = "L2 bandwidth, far half / near half"};

/// memory_latency's detected_size_bytes: the largest set on a level's plateau.
inline const Metric& detected_size = latency::detected_size;

/// The sizes the sweep is laid out from (the plan and the run alike): the device's shared memory
/// per SM and L2, the nominal device's where the device reports none.
inline int64_t shared_bytes_of(const DeviceInfo& d) {
  return d.shared_bytes_per_sm > 0 ? d.shared_bytes_per_sm : nominal_device().shared_bytes_per_sm;
}
inline int64_t l2_bytes_of(const DeviceInfo& d) {
  return d.l2_bytes > 0 ? d.l2_bytes : nominal_device().l2_bytes;
}

} // namespace apod::cache_bw
