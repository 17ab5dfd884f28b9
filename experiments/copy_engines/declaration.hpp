// copy_engines' declaration (declaration.cpp registers it): its params and metrics as named
// constants, which copy_engines.cu records under (Best Practices Guide 9.1.2).
#pragma once

#include "core/catalog.hpp"
#include "core/series.hpp"

#include <vector>

namespace apod::engines {

inline constexpr const char* experiment = "copy_engines";

/// Which work runs at once: each copy or the kernel alone, both copies, a copy or both beside
/// the kernel, and the guide's cpuFunction() beside a copy and a kernel.
inline const Param config{.key = "config", .title = "what runs at once"};
/// Whose figure a point is: one stream's work (h2d, d2h, kernel), both copies together (copies),
/// the host's timings of the cpuFunction() overlap (cpu, gpu, both), or staged_copy's model.
inline const Param stream{.key = "stream", .title = "whose figure"};
/// staged_copy's nStreams, on the points that re-check its model.
inline const Param n_streams{.key = "n_streams", .title = "staged_copy's nStreams"};

namespace configs {
inline constexpr const char* h2d = "h2d";
inline constexpr const char* d2h = "d2h";
inline constexpr const char* kernel = "kernel";
inline constexpr const char* h2d_d2h = "h2d_d2h";
inline constexpr const char* h2d_kernel = "h2d_kernel";
inline constexpr const char* h2d_d2h_kernel = "h2d_d2h_kernel";
inline constexpr const char* cpu_overlap = "cpu_overlap";
} // namespace configs

namespace streams {
inline constexpr const char* h2d = "h2d";
inline constexpr const char* d2h = "d2h";
inline constexpr const char* kernel = "kernel";
inline constexpr const char* copies = "copies";
inline constexpr const char* cpu = "cpu";
inline constexpr const char* gpu = "gpu";
inline constexpr const char* both = "both";
inline constexpr const char* staged = "staged_copy";
} // namespace streams

/// The device configurations, in the order measured; each names the work its streams run.
struct DeviceConfig {
  const char* name;
  bool h2d, d2h, kernel;
};
inline constexpr DeviceConfig device_configs[] = {
    {configs::h2d, true, false, false},       {configs::d2h, false, true, false},
    {configs::kernel, false, false, true},    {configs::h2d_d2h, true, true, false},
    {configs::h2d_kernel, true, false, true}, {configs::h2d_d2h_kernel, true, true, true},
};

/// Bytes of each buffer: 256 MiB (a copy of several ms at PCIe Gen5 rates, the kernel's buffers
/// far past the L2), 16 MiB with --quick.
size_t buffer_bytes(bool quick);

/// The configurations whose H2D rate re-checks staged_copy's model.
inline constexpr const char* staged_rate_configs[] = {configs::h2d_d2h_kernel, configs::h2d_kernel};
/// staged_copy's nStreams over 1 (its declaration's stream_counts): the stages that overlap.
const std::vector<int>& staged_stream_counts();
/// When the staged re-check exists.
inline constexpr const char* staged_when =
    "staged_copy ran earlier in this run (its medians are the model's other inputs)";

/// A copy's rate over the host link: DMA read against the PCIe line rate per direction.
inline const Metric copy_bandwidth = Metric{.name = "copy_bandwidth",
                                            .unit = "GB/s",
                                            .direction = Direction::higher,
                                            .metric_class = MetricClass::host_link,
                                            .limit = LimitKind::pcie,
                                            .title = "one copy's rate"}
                                         .with_case({.key = "bytes",
                                                     .below = 16.0 * 1024 * 1024,
                                                     .then = MetricClass::host_phase,
                                                     .why = "under 16 MiB a copy's fixed cost "
                                                            "dominates"});
/// Both copies' bytes over the time from their start to the later one's end, against the line
/// rate of both directions (the point's own limit).
inline const Metric total_copy_bandwidth{.name = "total_copy_bandwidth",
                                         .unit = "GB/s",
                                         .direction = Direction::higher,
                                         .metric_class = MetricClass::host_link,
                                         .limit = LimitKind::pcie,
                                         .title = "both copies' total rate"};
/// The kernel's bytes read plus written per second, against the theoretical DRAM bandwidth.
inline const Metric kernel_bandwidth{.name = "kernel_bandwidth",
                                     .unit = "GB/s",
                                     .direction = Direction::higher,
                                     .metric_class = MetricClass::device_memory,
                                     .limit = LimitKind::dram,
                                     .title = "the kernel's rate"};
/// A stream's rate beside the others over its rate alone (sample i with sample i).
inline const Metric rate_ratio{.name = "rate_ratio",
                               .unit = "1",
                               .direction = Direction::higher,
                               .metric_class = MetricClass::derived,
                               .title = "rate beside the others / rate alone"};
/// Both copies' total rate over the sum of the two copies' rates alone: 1 when two copy
/// engines each keep their one-direction rate, 0.5 when the copies take turns.
inline const Metric bidirectional_ratio{.name = "bidirectional_ratio",
                                        .unit = "1",
                                        .direction = Direction::higher,
                                        .metric_class = MetricClass::derived,
                                        .title = "both copies' total / (H2D alone + D2H alone)"};
/// The cpuFunction() overlap's host-side timings (steady clock, issue to synchronise).
inline const Metric host_time_ms{.name = "host_time_ms",
                                 .unit = "ms",
                                 .direction = Direction::lower,
                                 .metric_class = MetricClass::host_phase,
                                 .title = "host time"};
/// (cpu + gpu - both) / min(cpu, gpu): 1 when the shorter part hides wholly behind the other.
inline const Metric overlap_fraction{.name = "overlap_fraction",
                                     .unit = "1",
                                     .direction = Direction::higher,
                                     .metric_class = MetricClass::derived,
                                     .title = "the shorter part's share hidden"};
/// staged_copy's model with its copy slowed by the H2D rate measured beside other work.
inline const Metric staged_model_ms{.name = "staged_model_ms",
                                    .unit = "ms",
                                    .direction = Direction::lower,
                                    .metric_class = MetricClass::derived,
                                    .title = "staged_copy's model at the measured rate"};
/// staged_copy's measured total over that model, less 1.
inline const Metric staged_residual{.name = "staged_residual",
                                    .unit = "1",
                                    .direction = Direction::lower,
                                    .metric_class = MetricClass::derived,
                                    .title = "staged_copy's total / the model - 1"};

} // namespace apod::engines
