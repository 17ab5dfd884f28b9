#include "core/kernel_facts.cuh"
#include "core/timing.cuh"
#include "in_flight.hpp"
#include "shapes.cuh"

#include <functional>
#include <stdexcept>
#include <string>

namespace apod {
namespace {

constexpr size_t host_window_words = size_t(1) << 16;
constexpr int guide_block_size = 256;

// All `Loads` loads of a tile are issued before its first store, so each thread keeps Loads
// loads in flight; a warp's k-th accesses are consecutive, so every access is coalesced.
template <class Vec, int Loads>
__global__ void __launch_bounds__(flight_block_size)
    flight_copy_kernel(Vec* __restrict__ out, const Vec* __restrict__ in, size_t tiles) {
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const size_t base = tile * (flight_block_size * Loads) + threadIdx.x;
    Vec v[Loads];
#pragma unroll
    for (int k = 0; k < Loads; ++k)
      v[k] = in[base + k * flight_block_size];
#pragma unroll
    for (int k = 0; k < Loads; ++k)
      out[base + k * flight_block_size] = v[k];
  }
}

// The guide's offsetCopy at offset 0, launched as the guide launches it: a full grid.
__global__ void guide_copy_kernel(uint32_t* odata, const uint32_t* idata) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  odata[i] = idata[i];
}

__global__ void count_wrong_kernel(const uint64_t* out, size_t words, uint64_t fill_seed,
                                   unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words;
       i += size_t(gridDim.x) * blockDim.x)
    local += out[i] != fill_value(fill_seed, i);
  if (local)
    atomicAdd(wrong, local);
}

struct FlightKernel {
  const void* func;
  void (*launch)(CopyBuffers&, unsigned grid, cudaStream_t);
};

template <class Vec, int Loads> FlightKernel flight_kernel_of() {
  return {reinterpret_cast<const void*>(flight_copy_kernel<Vec, Loads>),
          [](CopyBuffers& buf, unsigned grid, cudaStream_t s) {
            const size_t tiles = buf.bytes() / (sizeof(Vec) * flight_block_size * Loads);
            flight_copy_kernel<Vec, Loads><<<grid, flight_block_size, 0, s>>>(
                reinterpret_cast<Vec*>(buf.out.get()), reinterpret_cast<const Vec*>(buf.in.get()),
                tiles);
            APOD_CUDA_LAUNCH();
          }};
}

template <class Vec> FlightKernel flight_kernel_with(int loads) {
  switch (loads) {
  case 1:
    return flight_kernel_of<Vec, 1>();
  case 2:
    return flight_kernel_of<Vec, 2>();
  case 4:
    return flight_kernel_of<Vec, 4>();
  case 8:
    return flight_kernel_of<Vec, 8>();
  }
  throw std::logic_error("littles_law: no kernel for " + std::to_string(loads) + " loads");
}

FlightKernel flight_kernel(const FlightShape& shape) {
  switch (shape.word_bytes) {
  case 4:
    return flight_kernel_with<uint32_t>(shape.loads_per_thread);
  case 8:
    return flight_kernel_with<uint2>(shape.loads_per_thread);
  case 16:
    return flight_kernel_with<uint4>(shape.loads_per_thread);
  }
  throw std::logic_error("littles_law: no kernel for " + std::to_string(shape.word_bytes) + " B");
}

int resident_blocks(const void* func, int block_size) {
  int blocks = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, block_size, 0));
  return blocks;
}

using littles::shape_params;

ShapePoint measure(ExperimentContext& ctx, CopyBuffers& buf, ShapePoint point,
                   const std::function<void(cudaStream_t)>& launch) {
  APOD_CUDA(cudaMemset(buf.out.get(), 0xA5, buf.bytes()));
  // No L2 flush: a sample copies many times the L2 (timing.cuh's fixed-count rule).
  const TimedSamples t = time_fixed_ms(ctx.options.sampling, nullptr, launch);
  point.ms = Series(t);
  point.wrong = buf.words_wrong(ctx.device.sm_count);
  return point;
}

} // namespace

size_t CopyBuffers::words_wrong(int sm_count) {
  APOD_CUDA(cudaMemset(wrong.get(), 0, sizeof(unsigned long long)));
  count_wrong_kernel<<<4 * sm_count, 512>>>(out.get(), out.size(), seed, wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long n = 0;
  APOD_CUDA(cudaMemcpy(&n, wrong.get(), sizeof n, cudaMemcpyDeviceToHost));
  std::vector<uint64_t> window(host_window_words);
  for (const size_t first : {size_t(0), out.size() - host_window_words}) {
    APOD_CUDA(cudaMemcpy(window.data(), out.get() + first, host_window_words * sizeof(uint64_t),
                         cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < host_window_words; ++i)
      n += window[i] != expected_fill<uint64_t>(seed, first + i);
  }
  return n;
}

std::vector<ShapePoint> measure_shapes(ExperimentContext& ctx, CopyBuffers& buf,
                                       json& not_resident) {
  int max_threads = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                   ctx.device.ordinal));
  std::vector<ShapePoint> points;
  for (const FlightShape& shape : flight_shapes(max_threads, ctx.options.quick)) {
    const FlightKernel kernel = flight_kernel(shape);
    // A persistent grid of blocks_per_sm blocks per SM: the block scheduler places them
    // breadth-first, so each SM holds that many as long as they can be resident together.
    const int blocks_per_sm = shape.threads_per_sm / flight_block_size;
    const int resident = resident_blocks(kernel.func, flight_block_size);
    if (resident < blocks_per_sm) { // e.g. registers: 8 loads of 16 bytes at 2048 threads
      not_resident.push_back(shape_params(persistent_launch, shape.word_bytes,
                                          shape.loads_per_thread, shape.threads_per_sm));
      not_resident.back()["resident_blocks_per_sm"] = resident;
      continue;
    }
    const unsigned grid = unsigned(blocks_per_sm * ctx.device.sm_count);
    ShapePoint point{shape_params(persistent_launch, shape.word_bytes, shape.loads_per_thread,
                                  shape.threads_per_sm),
                     double(shape.in_flight_bytes())};
    point.kernel = kernel_facts(kernel.func, flight_block_size, grid);
    points.push_back(
        measure(ctx, buf, std::move(point), [&](cudaStream_t s) { kernel.launch(buf, grid, s); }));
  }
  // The guide's launch: as many 256-thread blocks resident as fit, one 4-byte load per thread.
  const int guide_threads =
      resident_blocks(reinterpret_cast<const void*>(guide_copy_kernel), guide_block_size) *
      guide_block_size;
  const unsigned grid = unsigned(buf.bytes() / sizeof(uint32_t) / guide_block_size);
  ShapePoint guide{shape_params(guide_launch, 4, 1, guide_threads), guide_threads * 4.0, false};
  guide.kernel = kernel_facts(guide_copy_kernel, guide_block_size, grid);
  points.push_back(measure(ctx, buf, std::move(guide), [&](cudaStream_t s) {
    guide_copy_kernel<<<grid, guide_block_size, 0, s>>>(
        reinterpret_cast<uint32_t*>(buf.out.get()),
        reinterpret_cast<const uint32_t*>(buf.in.get()));
    APOD_CUDA_LAUNCH();
  }));
  return points;
}

} // namespace apod
