// The persisting L2 set-aside's guard and the stream's access window (Best Practices Guide
// 9.2.2.1), for l2_persistence.cu: the experiment changes a device-wide limit, so one owner puts
// it back however the experiment ends.
#pragma once

#include "core/cuda_check.cuh"
#include "core/errors.hpp"

#include <cuda_runtime.h>

namespace apod {

// Owns the persisting set-aside: the limit found at construction is put back, and every
// persisting line reset to normal, when it goes out of scope, however the experiment ends.
class PersistingL2Limit {
public:
  PersistingL2Limit() { APOD_CUDA(cudaDeviceGetLimit(&previous_, cudaLimitPersistingL2CacheSize)); }
  ~PersistingL2Limit() {
    cudaCtxResetPersistingL2Cache();
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_);
  }
  PersistingL2Limit(const PersistingL2Limit&) = delete;
  PersistingL2Limit& operator=(const PersistingL2Limit&) = delete;
  /// Sets the set-aside; returns what the driver granted. Skips the experiment where the driver
  /// refuses the limit itself (e.g. under MIG).
  size_t set(size_t bytes) {
    const cudaError_t err = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes);
    if (err == cudaErrorUnsupportedLimit) {
      cudaGetLastError();
      throw ExperimentSkipped("the driver does not support cudaLimitPersistingL2CacheSize here");
    }
    APOD_CUDA(err);
    size_t granted = 0;
    APOD_CUDA(cudaDeviceGetLimit(&granted, cudaLimitPersistingL2CacheSize));
    return granted;
  }

  /// Puts the device's limit back now (the destructor does it again, harmlessly).
  void restore() {
    APOD_CUDA(cudaCtxResetPersistingL2Cache());
    APOD_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_));
  }

private:
  size_t previous_ = 0;
};

/// Marks `bytes` from `base` persisting with `hit_ratio` on `stream` (0 bytes: no window).
inline void set_window(cudaStream_t stream, void* base, size_t bytes, double hit_ratio) {
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = base;
  value.accessPolicyWindow.num_bytes = bytes; // 0: no window
  value.accessPolicyWindow.hitRatio = float(hit_ratio);
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  APOD_CUDA(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
}

} // namespace apod
