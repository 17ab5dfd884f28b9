// latency_hiding's declaration (declaration.cpp registers it): its params and metrics as named
// constants.
#pragma once

#include "core/catalog.hpp"

namespace apod::hiding {

inline constexpr const char* experiment = "latency_hiding";

inline const Param block_size{.key = "block_size", .title = "block size (threads)"};
inline const Param threads_per_sm{.key = "threads_per_sm", .title = "resident threads per SM"};
inline const Param grid_blocks{.key = "grid_blocks", .title = "blocks per launch"};

/// Blocks a second the GPU starts for a near-empty kernel of many small blocks: what bounds any
/// launch that gives each block little work (one element per thread of 64-thread blocks).
inline const Metric block_launch_rate{.name = "block_launch_rate",
                                      .unit = "G blocks/s",
                                      .direction = Direction::higher,
                                      .metric_class = MetricClass::on_chip,
                                      .title = "block launch rate"};

} // namespace apod::hiding
