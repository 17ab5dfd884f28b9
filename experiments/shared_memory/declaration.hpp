// shared_memory's declaration (declaration.cpp registers it): its params, metrics and points as
// named constants, which shared_memory.cu, stencil.cu and cluster.cu record under.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::smem {

inline constexpr const char* experiment = "shared_memory";

// What a point measures (param `test`).
inline constexpr const char* strided = "strided";     ///< a warp's reads at a stride
inline constexpr const char* padding = "padding";     ///< a 32 x 32 tile read by columns
inline constexpr const char* stencil = "stencil";     ///< the slides' 1-D stencil
inline constexpr const char* distributed = "cluster"; ///< a cluster's shared memory

// Stencil variants and cluster targets.
inline constexpr const char* shared_tile = "shared_tile";
inline constexpr const char* global_direct = "global_direct";
inline constexpr const char* local_block = "local";
inline constexpr const char* neighbour_block = "remote";

inline const Param test{.key = "test",
                        .title = "measurement",
                        .labels = {{strided, "a warp's reads at a stride"},
                                   {padding, "32 x 32 tile read by columns"},
                                   {stencil, "1-D stencil, radius 3"},
                                   {distributed, "thread-block cluster (distributed shared)"}}};
inline const Param access_bytes{.key = "access_bytes", .title = "bytes per lane access"};
inline const Param stride{.key = "stride_elements", .title = "stride (elements of the access)"};
inline const Param pad{
    .key = "pad_words",
    .title = "tile row padding (words)",
    .labels = {{"0", "float[32][32] (stride 32)"}, {"1", "float[32][33] (stride 33)"}}};
inline const Param variant{.key = "variant",
                           .title = "stencil input",
                           .labels = {{shared_tile, "from a shared tile (the slides' kernel)"},
                                      {global_direct, "from global memory directly"}}};
inline const Param target{.key = "target",
                          .title = "whose shared memory",
                          .labels = {{local_block, "the block's own"},
                                     {neighbour_block, "the neighbour block's (map_shared_rank)"}}};

inline const Metric bandwidth_per_sm{.name = "shared_bandwidth_per_sm",
                                     .unit = "GB/s",
                                     .direction = Direction::higher,
                                     .metric_class = MetricClass::on_chip,
                                     .title = "shared-memory bandwidth per SM"};
inline const Metric bandwidth_per_gpu{.name = "shared_bandwidth",
                                      .unit = "GB/s",
                                      .direction = Direction::higher,
                                      .metric_class = MetricClass::on_chip,
                                      .title = "shared-memory bandwidth of the GPU (all SMs)"};
inline const Metric wavefronts{.name = "wavefronts_per_request",
                               .unit = "1",
                               .direction = Direction::lower,
                               .metric_class = MetricClass::derived,
                               .title = "clocks per warp request (measured wavefronts)"};
inline const Metric stencil_bandwidth{.name = "stencil_bandwidth",
                                      .unit = "GB/s",
                                      .direction = Direction::higher,
                                      .metric_class = MetricClass::device_memory,
                                      .limit = LimitKind::dram,
                                      .title = "stencil effective bandwidth (input + output once)"};
inline const Metric latency{.name = "shared_latency",
                            .unit = "clk",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::on_chip,
                            .title = "dependent shared-memory load latency"};

/// One strided point: the access width and the stride in elements of that width.
struct Stride {
  int access_bytes;
  int stride;
};
/// The strided points, in order: 4 bytes 1, 2, 3, 4, 8, 16, 32, 33; 8 bytes 1, 2, 3, 4, 8, 16;
/// 16 bytes 1, 2, 3, 4, 8.
const std::vector<Stride>& strides();
/// The access widths of the cluster bandwidth points.
const std::vector<int>& cluster_access_bytes();

/// Blocks per cluster of the distributed points: a block and its neighbour.
inline constexpr int cluster_blocks = 2;
/// The stencil's radius (the slides' example: 7 inputs per output).
inline constexpr int stencil_radius = 3;

/// Whether the plan has the cluster points: thread-block clusters need compute capability 9.0.
bool plans_clusters(const DeviceInfo& device);
inline constexpr const char* cluster_when =
    "the device has thread-block clusters (compute capability 9.0 or later)";

} // namespace apod::smem
