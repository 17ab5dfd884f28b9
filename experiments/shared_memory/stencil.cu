// The slides' 1-D stencil (Stich, seed 001, "Example of Using Shared Memory", "Implementation
// with Shared Memory", "Kernel code"): each output the sum of the 7 inputs within radius 3. The
// slides' kernel stages a block's inputs and their halo in a shared tile (BLOCK_DIMX + 2 x
// RADIUS elements) and sums from it; the other variant reads the 7 inputs from global memory
// directly, leaving the reuse to the L1 cache. Both over an array larger than the L2, so both
// are bound by DRAM: the figure is the effective bandwidth (input and output once). Every output
// is compared with the host's sums.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"
#include "parts.hpp"

#include <string>
#include <vector>

namespace apod::smem {
namespace {

constexpr int stencil_block = 256;
constexpr int radius = stencil_radius;
constexpr uint64_t stencil_seed = 0x57E7C113;

// The slides' kernel, with its halo store fixed: the slide writes the right halo at
// s_a[local_ix + BLOCK_DIMX + RADIUS] from input[global_ix + RADIUS], past the tile's end; the
// right halo is s_a[local_ix + BLOCK_DIMX] = input[global_ix + BLOCK_DIMX]. Here `in` carries
// the halo (output i is centred on in[i + radius]), so every index is in range.
__global__ void __launch_bounds__(stencil_block)
    stencil_shared_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint32_t s_a[stencil_block + 2 * radius];
  const size_t global_ix = blockIdx.x * size_t(stencil_block) + threadIdx.x;
  const int local_ix = threadIdx.x + radius;
  s_a[local_ix] = in[global_ix + radius];
  if (threadIdx.x < radius) {
    s_a[local_ix - radius] = in[global_ix];
    s_a[local_ix + stencil_block] = in[global_ix + radius + stencil_block];
  }
  __syncthreads();
  uint32_t value = 0;
#pragma unroll
  for (int offset = -radius; offset <= radius; ++offset)
    value += s_a[local_ix + offset];
  out[global_ix] = value;
}

__global__ void __launch_bounds__(stencil_block)
    stencil_global_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  const size_t global_ix = blockIdx.x * size_t(stencil_block) + threadIdx.x;
  uint32_t value = 0;
#pragma unroll
  for (int k = 0; k <= 2 * radius; ++k)
    value += in[global_ix + k];
  out[global_ix] = value;
}

} // namespace

void measure_stencil(ExperimentContext& ctx) {
  // 16 Mi outputs (64 MiB in, 64 MiB out): past the H100's and H200's 50 MiB L2.
  const size_t outputs = ctx.options.quick ? (size_t(1) << 20) : (size_t(1) << 24);
  const size_t inputs = outputs + 2 * radius;
  DeviceBuffer<uint32_t> in(inputs), out(outputs);
  fill_device(in.get(), inputs, stencil_seed);
  std::vector<uint32_t> host_in(inputs);
  for (size_t i = 0; i < inputs; ++i)
    host_in[i] = expected_fill<uint32_t>(stencil_seed, i);
  const std::vector<uint32_t> expected = stencil_reference(host_in, radius);
  const unsigned grid = unsigned(outputs / stencil_block);
  const double bytes = double(inputs + outputs) * sizeof(uint32_t);

  for (const char* v : {shared_tile, global_direct}) {
    const bool shared = std::string(v) == shared_tile;
    const auto launch = [&](cudaStream_t s) {
      if (shared)
        stencil_shared_kernel<<<grid, stencil_block, 0, s>>>(in.get(), out.get());
      else
        stencil_global_kernel<<<grid, stencil_block, 0, s>>>(in.get(), out.get());
      APOD_CUDA_LAUNCH();
    };
    APOD_CUDA(cudaMemset(out.get(), 0xA5, out.bytes()));
    const TimedSamples t = time_samples_ms(point_policy(ctx, true), nullptr, launch);
    const Series rate = Series(t).map([&](double ms) { return gbs(bytes, ms); });
    std::vector<uint32_t> got(outputs);
    APOD_CUDA(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < outputs; ++i)
      wrong += got[i] != expected[i];
    json extra = {{"elements_wrong", wrong},
                  {keys::bytes_moved, bytes},
                  {"radius", radius},
                  {"outputs", outputs}};
    extra["kernel"] = shared ? kernel_facts(stencil_shared_kernel, stencil_block, grid)
                             : kernel_facts(stencil_global_kernel, stencil_block, grid);
    ctx.record(make_measurement({{test.key, stencil}, {variant.key, v}}, stencil_bandwidth, rate,
                                wrong == 0, std::move(extra)));
  }
}

} // namespace apod::smem
