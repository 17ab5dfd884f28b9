// concurrency's declaration (declaration.cpp registers it): its params, metrics and sweeps as
// named constants, which concurrency.cu and sharing.cu record under.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::concurrency {

inline constexpr const char* experiment = "concurrency";

/// The context the streams belong to: the runtime's primary context (created before the
/// experiment ran, with the process's CUDA_DEVICE_MAX_CONNECTIONS), or one created with
/// cuCtxCreate after setting the variable to another count.
inline const Param context{
    .key = "context",
    .title = "context of the streams",
    .labels = {{"primary", "primary context (the process's connection count)"},
               {"created", "context created after setting CUDA_DEVICE_MAX_CONNECTIONS"}}};
inline const Param streams{.key = "streams", .title = "streams"};
/// The order the kernels are queued in: round robin over the streams (kernel k on stream k mod
/// S: kernels next to each other in a hardware queue belong to different streams), or stream by
/// stream (each stream's N / S kernels in a row: a queue holds one stream's dependent chain).
inline const Param order{.key = "launch_order",
                         .title = "launch order",
                         .labels = {{"breadth_first", "round robin over the streams"},
                                    {"depth_first", "stream by stream"}}};
/// Two equal workloads sharing the GPU, each launched from its own host thread.
inline const Param sharing{
    .key = "sharing",
    .title = "how two workloads share the GPU",
    .labels = {{"two_streams", "two streams of one context"},
               {"two_contexts", "two ordinary contexts (primary + cuCtxCreate)"},
               {"two_green_contexts", "two green contexts on disjoint SMs"}}};

inline constexpr const char* primary = "primary";
inline constexpr const char* created = "created";
inline constexpr const char* breadth_first = "breadth_first";
inline constexpr const char* depth_first = "depth_first";
inline constexpr const char* two_streams = "two_streams";
inline constexpr const char* two_contexts = "two_contexts";
inline constexpr const char* two_green_contexts = "two_green_contexts";

inline const Metric peak_kernels{.name = "peak_concurrent_kernels",
                                 .unit = "kernels",
                                 .direction = Direction::higher,
                                 .metric_class = MetricClass::derived,
                                 .title = "kernels running at once (most, from their windows)"};
inline const Metric mean_kernels{.name = "mean_concurrent_kernels",
                                 .unit = "kernels",
                                 .direction = Direction::higher,
                                 .metric_class = MetricClass::derived,
                                 .title = "kernels running at once (kernel time over the span)"};
inline const Metric slowdown{.name = "sharing_slowdown",
                             .unit = "1",
                             .direction = Direction::lower,
                             .metric_class = MetricClass::derived,
                             .title = "time of both workloads over one alone"};
inline const Metric overlap{.name = "cross_overlap",
                            .unit = "1",
                            .direction = Direction::higher,
                            .metric_class = MetricClass::derived,
                            .title = "share of the time both workloads ran at once",
                            // Two time-sliced contexts may never run at once: 0 is a figure.
                            .zero_is_a_value = true};

/// The stream counts swept: 1, 2, 4, ..., 64.
const std::vector<int>& stream_counts();
/// The sharing cases, in order.
const std::vector<const char*>& sharing_cases();

} // namespace apod::concurrency
