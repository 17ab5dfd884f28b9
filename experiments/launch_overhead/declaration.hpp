// launch_overhead's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which launch_overhead.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::launch {

inline constexpr const char* experiment = "launch_overhead";

/// How the kernels are put on the GPU and how the cost is read (launch_math.hpp names them).
inline const Param method{
    .key = "method",
    .title = "launch method",
    .labels = {{"stream", "<<<>>> back to back (events)"},
               {"stream_submit", "<<<>>> back to back, host submit (steady_clock)"},
               {"round_trip", "<<<>>> + cudaStreamSynchronize (steady_clock)"},
               {"launch_ex", "cudaLaunchKernelEx back to back (events)"},
               {"launch_ex_cluster", "cudaLaunchKernelEx, cluster of 2 (events)"},
               {"graph_10", "CUDA graph of 10 kernels, per kernel (events)"},
               {"graph_100", "CUDA graph of 100 kernels, per kernel (events)"},
               {"graph_1000", "CUDA graph of 1000 kernels, per kernel (events)"}}};
/// Kernels one API call puts on the GPU: 1 for a launch, the node count for a graph launch.
inline const Param kernels_per_call{.key = "kernels_per_call", .title = "kernels per API call"};

/// Time per kernel: a batch's time over its kernels (host_phase: the driver's work on the host
/// sets it, and a driver that slows launches is what compare must catch).
inline const Metric launch_time{.name = "launch_time_us",
                                .unit = "us",
                                .direction = Direction::lower,
                                .metric_class = MetricClass::host_phase,
                                .title = "time per kernel launch"};
/// cudaGraphInstantiate of a captured graph, on the host (steady_clock).
inline const Metric instantiate_time{.name = "graph_instantiate_us",
                                     .unit = "us",
                                     .direction = Direction::lower,
                                     .metric_class = MetricClass::host_phase,
                                     .title = "cudaGraphInstantiate time per graph"};

/// extra: how the figure was timed: "events" (CUDA events around the batch on the GPU's
/// timeline) or "steady_clock" (the host's clock around the API calls).
inline constexpr const char* timed_by = "timed_by";

} // namespace apod::launch
