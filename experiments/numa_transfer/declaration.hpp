// numa_transfer's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which numa_transfer.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <cstddef>

namespace apod::numa {

inline constexpr const char* experiment = "numa_transfer";

inline const Param direction{.key = "direction", .title = "direction"};
inline const Param node{
    .key = "host_node",
    .title = "host memory's NUMA node",
    .labels = {{"near", "the GPU's own node"}, {"far", "the node farthest from the GPU"}}};
inline const Param bytes{.key = "bytes", .title = "transfer size", .unit = "bytes"};

/// Pinned cudaMemcpyAsync from or to memory placed on one node, read against the PCIe line rate.
inline const Metric bandwidth{.name = "numa_bandwidth",
                              .unit = "GB/s",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::host_link,
                              .limit = LimitKind::pcie,
                              .title = "pinned transfer bandwidth by NUMA node"};
/// The far node's rate over the near node's, sample by sample.
inline const Metric far_over_near{.name = "far_over_near",
                                  .unit = "1",
                                  .direction = Direction::higher,
                                  .metric_class = MetricClass::derived,
                                  .title = "far node's bandwidth over the near node's"};

/// The transfer's size: 64 MiB (--quick: 8 MiB), well past the per-transfer fixed cost.
size_t transfer_bytes(bool quick);

} // namespace apod::numa
