// One checking helper for every CUDA runtime call: throws apod::CudaError with the call's text,
// file and line, so a failed experiment is recorded with a message that says what failed.
#pragma once

#include "core/errors.hpp"

#include <cuda_runtime.h>

#include <string>

namespace apod {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
  throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                      cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")",
                  static_cast<int>(err));
}

} // namespace apod

#define APOD_CUDA(call)                                                                            \
  do {                                                                                             \
    const cudaError_t apod_err_ = (call);                                                          \
    if (apod_err_ != cudaSuccess)                                                                  \
      ::apod::throw_cuda_error(apod_err_, #call, __FILE__, __LINE__);                              \
  } while (0)

/// After a kernel launch: catches launch-configuration errors at once.
#define APOD_CUDA_LAUNCH() APOD_CUDA(cudaGetLastError())
