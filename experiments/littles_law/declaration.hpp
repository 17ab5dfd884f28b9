// littles_law's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which littles_law.cu and shapes.cu record under.
#pragma once

#include "core/catalog.hpp"

namespace apod::littles {

inline constexpr const char* experiment = "littles_law";

inline const Param launch{.key = "launch", .title = "launch"};
inline const Param word_bytes{.key = "word_bytes", .title = "access width (bytes)"};
inline const Param loads{.key = "loads_per_thread", .title = "independent loads per thread"};
inline const Param threads_per_sm{.key = "threads_per_sm", .title = "resident threads per SM"};
inline const Param in_flight{
    .key = "in_flight_bytes", .title = "bytes of loads in flight per SM", .unit = "bytes"};
inline const Param fraction{.key = "fraction_of_peak", .title = "fraction of the sweep's plateau"};
/// The loaded-latency points: "none" (the chase alone) or "copy" (a throttled background copy).
inline const Param background{.key = "background", .title = "background load"};
inline const Param delay{.key = "background_delay_cycles",
                         .title = "background warps' wait per iteration (cycles)"};

inline constexpr const char* persistent_launch = "persistent grid";
inline constexpr const char* guide_launch = "offsetCopy (guide 9.2.1.3)";
inline constexpr double target_fraction = 0.9; ///< the named point: 90% of the sweep's plateau
inline constexpr const char* no_background = "none";
inline constexpr const char* copy_background = "copy";

inline const Metric in_flight_per_sm{.name = "in_flight_per_sm",
                                     .unit = "KB",
                                     .direction = Direction::lower,
                                     .metric_class = MetricClass::derived};
inline const Metric device_in_flight{.name = "device_in_flight",
                                     .unit = "KB",
                                     .direction = Direction::lower,
                                     .metric_class = MetricClass::derived};

/// The dependent-load latency of a chase while the background copy runs (Intel MLC's loaded
/// latency), and the background copy's bandwidth over the same timed steps.
inline const Metric loaded_latency{.name = "loaded_latency_ns",
                                   .unit = "ns",
                                   .direction = Direction::lower,
                                   .metric_class = MetricClass::device_memory,
                                   .title = "dependent-load latency under load"};
inline const Metric background_bandwidth{.name = "background_bandwidth",
                                         .unit = "GB/s",
                                         .direction = Direction::higher,
                                         .metric_class = MetricClass::derived,
                                         .title = "background copy bandwidth"};

/// A launch shape's params.
json shape_params(const char* launch_name, int width, int loads_per_thread, int threads);

} // namespace apod::littles
