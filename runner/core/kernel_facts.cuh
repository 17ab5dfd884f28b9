// A kernel's launch configuration and the resources it uses, for the provenance of every
// measurement (registers, shared and local memory, occupancy at the block size used).
#pragma once

#include "core/cuda_check.cuh"
#include "core/measurement.hpp"
#include "core/vocabulary.hpp"

namespace apod {

template <class Kernel>
json kernel_facts(Kernel kernel, int block_size, unsigned grid_size,
                  size_t dynamic_shared_bytes = 0) {
  cudaFuncAttributes attr{};
  APOD_CUDA(cudaFuncGetAttributes(&attr, kernel));
  int blocks_per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_size,
                                                          dynamic_shared_bytes));
  int device = 0, max_threads_per_sm = 0;
  APOD_CUDA(cudaGetDevice(&device));
  APOD_CUDA(
      cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return {{launch_keys::block_size, block_size},
          {launch_keys::grid_size, grid_size},
          {"registers_per_thread", attr.numRegs},
          {"static_shared_bytes", attr.sharedSizeBytes},
          {"local_bytes_per_thread", attr.localSizeBytes},
          {"ptx_version", attr.ptxVersion},
          {"binary_version", attr.binaryVersion},
          {launch_keys::max_active_blocks_per_sm, blocks_per_sm},
          {"theoretical_occupancy",
           max_threads_per_sm ? double(blocks_per_sm * block_size) / max_threads_per_sm : 0.0}};
}

} // namespace apod
