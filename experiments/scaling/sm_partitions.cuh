// scaling's SM partitions: a green context per partition size (runner/core/green_context.cuh owns
// the driver API; experiments/concurrency uses it too).
#pragma once

#include "core/green_context.cuh"
#include "core/measurement.hpp"

#include <memory>
#include <vector>

namespace apod {

/// Partitions of step, 2 x step, ... SMs below the total, at most `max_below_total` of them, then
/// one with every SM. `smallest`: step is the driver's smallest partition (8 on Hopper), so the
/// smallest sizes are taken; else the smallest multiple of it that spreads at most
/// `max_below_total` sizes over the whole range (model.hpp's partition_step). Sizes the driver
/// cannot split are left out. `facts` receives the device's SM resource figures (sm_total,
/// min_sm_partition, sm_coscheduled_alignment, partition_step). Throws ExperimentSkipped where
/// the driver or the device has no green contexts, CudaError for any other driver failure.
std::vector<std::unique_ptr<SmPartition>> sm_partitions(int ordinal, int max_below_total,
                                                        bool smallest, json& facts);

} // namespace apod
