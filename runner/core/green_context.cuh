// Contexts through the driver API: green contexts (CUDA 12.4+), a stream whose kernels run on a
// chosen set of SMs, and ordinary contexts created beside the primary one (cuCtxCreate; the Best
// Practices Guide, 10.6 "Multiple contexts", says such contexts are time-sliced). The driver API
// is reached through the runtime's entry points (cudaGetDriverEntryPointByVersion), so apod does
// not link libcuda and still starts, and says "no device", where no driver is installed. Used by
// experiments/scaling (SM partitions) and experiments/concurrency (contexts sharing a GPU).
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

/// The driver's handle of device `ordinal` (cuDeviceGet).
CUdevice driver_device(int ordinal);

/// Every SM of `device` as a resource to split (cuDeviceGetDevResource). Throws
/// ExperimentSkipped where the driver or the device has no green contexts.
CUdevResource device_sm_resource(CUdevice device);

/// Splits `all` into at most `groups` disjoint groups of at least `min_count` SMs each
/// (cuDevSmResourceSplitByCount); returns the groups the driver made (possibly fewer) and puts
/// the SMs left over into `rest` when it is not null.
std::vector<CUdevResource> split_sm_resource(const CUdevResource& all, unsigned groups,
                                             unsigned min_count, CUdevResource* rest = nullptr);

/// An ordinary context on device `ordinal` created with cuCtxCreate next to the primary context
/// the runtime uses; destroyed with it. Creating it leaves the calling thread's current context
/// as it was. Throws CudaError where the driver refuses.
class CreatedContext {
public:
  explicit CreatedContext(int ordinal);
  ~CreatedContext();
  CreatedContext(const CreatedContext&) = delete;
  CreatedContext& operator=(const CreatedContext&) = delete;
  CUcontext get() const { return context_; }

private:
  CUcontext context_ = nullptr;
};

/// Makes `context` current on the calling thread for its lifetime (cuCtxPushCurrent, then
/// cuCtxPopCurrent): runtime calls made meanwhile (cudaStreamCreate, launches) use it.
class ContextScope {
public:
  explicit ContextScope(CUcontext context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
};

} // namespace apod
