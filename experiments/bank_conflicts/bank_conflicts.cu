// Shared-memory bank conflicts (Stich, Advanced CUDA Programming, shared/seeds/001_...: "Bank
// Addressing Examples", no / 2-way / 8-way conflicts, and the trick of making every lane read one
// address to see what the conflicts cost). Each warp reads 4-byte words of a shared array, lane l
// at word l x stride (plus a per-iteration offset all lanes share), so the stride sets the
// conflict degree: 1 (none), 2, 4, 8, 16, 32 ways; stride 0 is the broadcast. The figure is the
// bytes the lanes asked for per clock per SM, from each block's own cycle counter, against the
// 128 bytes per clock per SM of 32 four-byte banks; the model, the conflict-free figure over the
// degree, is stored beside each point. Every thread's sum is checked on the host.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr uint32_t tile_words = 2048; // > 32 lanes x stride 32, so no two lanes share a word
constexpr int unroll = 8;             // reads per loop trip, at immediate offsets
constexpr uint64_t seed = 0xBA4C0F1C;
constexpr double point_time_cap_s = 0.2; // 7 points: 1.4 s at most

using banks::shared_throughput;

// Where thread `thread` of block `block` starts reading: lane x stride, plus an offset the whole
// warp shares (it leaves the banks' pattern as it is, and makes warps read different words).
__host__ __device__ inline uint32_t thread_base(uint32_t block, uint32_t thread, int stride) {
  const uint32_t warp = block * (block_size / 32) + thread / 32;
  return (thread % 32) * uint32_t(stride) + warp * 37;
}

// The tile is followed by a copy of its first `unroll` words, so a trip's reads at p[0..unroll)
// never wrap: word (x mod tile_words) + u holds the value of word (x + u) mod tile_words. All
// lanes advance together, so the banks' pattern, hence the conflict degree, holds on every read.
__global__ void __launch_bounds__(block_size)
    shared_read_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out,
                       unsigned long long* __restrict__ clocks, int stride, int iterations) {
  __shared__ uint32_t tile[tile_words + unroll];
  for (uint32_t i = threadIdx.x; i < tile_words + unroll; i += block_size)
    tile[i] = in[i % tile_words];
  __syncthreads();
  const uint32_t base = thread_base(blockIdx.x, threadIdx.x, stride);
  uint32_t acc[unroll] = {};
  const unsigned long long start = clock64();
  for (int it = 0; it < iterations; it += unroll) {
    const uint32_t* p = tile + ((base + uint32_t(it)) & (tile_words - 1));
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      acc[u] += p[u];
  }
  __syncthreads();
  const unsigned long long end = clock64();
  uint32_t sum = 0;
#pragma unroll
  for (int u = 0; u < unroll; ++u)
    sum += acc[u];
  out[blockIdx.x * size_t(block_size) + threadIdx.x] = sum;
  if (threadIdx.x == 0) {
    uint32_t sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    clocks[3 * blockIdx.x] = sm, clocks[3 * blockIdx.x + 1] = start,
               clocks[3 * blockIdx.x + 2] = end;
  }
}

struct Launch {
  unsigned grid = 0;
  int blocks_per_sm = 0;
  DeviceBuffer<uint32_t> in{tile_words}, out;
  DeviceBuffer<unsigned long long> clocks;
  std::vector<unsigned long long> raw;

  /// One launch; returns its bytes per clock per SM from the blocks' clock readings.
  double run(int stride, int iterations) {
    shared_read_kernel<<<grid, block_size>>>(in.get(), out.get(), clocks.get(), stride, iterations);
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaMemcpy(raw.data(), clocks.get(), clocks.bytes(), cudaMemcpyDeviceToHost));
    std::vector<BlockClock> blocks(grid);
    for (unsigned b = 0; b < grid; ++b)
      blocks[b] = {uint32_t(raw[3 * b]), raw[3 * b + 1], raw[3 * b + 2]};
    return bytes_per_clock_per_sm(blocks, double(block_size) * iterations * shared_bank_bytes);
  }
};

// The samples are the kernel's own cycle counts turned into bytes per clock, not event times, so
// the loop is the timing core's without events; the stopping rule and the monitor are the same.
Series sample(const ExperimentContext& ctx, Launch& launch, int stride, int iterations) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  for (int i = 0; i < policy.warmup; ++i)
    launch.run(stride, iterations);
  AdaptiveSampler sampler(policy);
  while (sampler.want_more()) {
    const double value = launch.run(stride, iterations);
    sampler.add(value, policy.check_sample());
  }
  const TimedSamples t = sampler.finish(); // values in B/clk/SM, not ms
  return Series(t);
}

// Every thread's sum against the host's: the circular sum of the words it read.
size_t count_wrong(const Launch& launch, int stride, int iterations) {
  std::vector<uint32_t> words(tile_words), got(launch.out.size());
  for (uint32_t i = 0; i < tile_words; ++i)
    words[i] = expected_fill<uint32_t>(seed, i);
  APOD_CUDA(cudaMemcpy(got.data(), launch.out.get(), launch.out.bytes(), cudaMemcpyDeviceToHost));
  const CircularSums sums(words);
  size_t wrong = 0;
  for (uint32_t b = 0; b < launch.grid; ++b)
    for (uint32_t t = 0; t < block_size; ++t)
      wrong += got[b * size_t(block_size) + t] != sums.sum(thread_base(b, t, stride), iterations);
  return wrong;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  Launch launch;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&launch.blocks_per_sm, shared_read_kernel,
                                                          block_size, 0));
  launch.grid = unsigned(launch.blocks_per_sm * ctx.device.sm_count); // one wave, every SM full
  launch.out = DeviceBuffer<uint32_t>(size_t(launch.grid) * block_size);
  launch.clocks = DeviceBuffer<unsigned long long>(3 * size_t(launch.grid));
  launch.raw.resize(3 * size_t(launch.grid));
  fill_device(launch.in.get(), tile_words, seed);

  // ~64 warps x 8192 reads per SM at no conflict; fewer reads as the degree grows, so every
  // point takes about as many cycles (~0.3 ms on an H100).
  const int reads = ctx.options.quick ? 2048 : 8192;
  const double limit = shared_bytes_per_clock_limit();
  std::vector<Measurement> records;
  double conflict_free = 0;
  for (const auto& pattern : banks::patterns()) {
    const int degree = conflict_degree(pattern.stride);
    const int iterations = std::max(8 * unroll, reads / degree);
    APOD_CUDA(cudaMemset(launch.out.get(), 0xA5, launch.out.bytes()));
    const Series s = sample(ctx, launch, pattern.stride, iterations);
    const size_t wrong = count_wrong(launch, pattern.stride, iterations);
    const double median = s.summary().median;
    if (pattern.stride == 1 && wrong == 0)
      conflict_free = median;
    json extra = {
        {"elements_wrong", wrong},
        {"iterations", iterations},
        {"bytes_per_launch", double(launch.grid) * block_size * iterations * shared_bank_bytes},
        {keys::limit, limit},
        {keys::limit_label, "32 banks x 4 bytes per clock per SM"},
        {"model_theoretical", conflict_model(limit, degree)},
        {"blocks_per_sm", launch.blocks_per_sm},
        {"kernel", kernel_facts(shared_read_kernel, block_size, launch.grid)}};
    if (conflict_free > 0) {
      extra[keys::model] = conflict_model(conflict_free, degree);
      extra["slowdown_vs_conflict_free"] = median > 0 ? conflict_free / median : 0.0;
    }
    ctx.record(make_measurement({{banks::access.key, pattern.access},
                                 {banks::stride.key, pattern.stride},
                                 {banks::degree.key, degree}},
                                shared_throughput, s, wrong == 0, std::move(extra)));
  }
}

} // namespace

APOD_EXPERIMENT(banks::experiment, run);

} // namespace apod
