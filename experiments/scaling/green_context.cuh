// SM partitions through green contexts (CUDA 12.4+ driver API): a stream whose kernels run on a
// chosen number of SMs. The driver API is reached through the runtime's entry points
// (cudaGetDriverEntryPointByVersion), so apod does not link libcuda and still starts, and says
// "no device", where no driver is installed.
#pragma once

#include "core/measurement.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <memory>
#include <vector>

namespace apod {

/// A stream whose kernels run on a set of SMs: a green context over one group of an SM split,
/// or, for every SM, an ordinary stream of the primary context (which already has them all).
class SmPartition {
public:
  /// Every SM: a non-blocking stream of the current device's primary context.
  explicit SmPartition(int all_sms);
  /// One group of an SM split, in its own green context with one non-blocking stream.
  SmPartition(CUdevice device, CUdevResource group);
  ~SmPartition();
  SmPartition(const SmPartition&) = delete;
  SmPartition& operator=(const SmPartition&) = delete;
  cudaStream_t stream() const { return stream_; }
  int sm_count() const { return sm_count_; }
  bool green() const { return green_ != nullptr; }

private:
  CUgreenCtx green_ = nullptr;
  CUstream stream_ = nullptr;
  int sm_count_ = 0;
};

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
