// Hiding latency, Stich's slides ("Hiding Latency": streaming 16M words, each thread reads,
// increments and writes one element; "need enough threads", 512+ per SM on GT200;
// shared/seeds/001_...) and the Best Practices Guide 10.1 (occupancy): one element per thread
// over a 1 GiB array of 4-byte words, with the resident threads per SM set by block size x
// resident blocks, the blocks held down by dynamic shared memory the kernel never touches.
// Bytes counted: every word read once and written once per launch.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/theory.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"
#include "declaration.hpp"
#include "memory_latency/declaration.hpp"
#include "residency.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0x1A7E1C7;
constexpr size_t shared_granularity = 128;
constexpr size_t host_window_words = size_t(1) << 16; // checked on the host after each point
constexpr double point_time_cap_s = 0.3; // the slowest point (64 threads per SM) is ~50 ms a sample

// The slides' kernel. The dynamic shared memory is only there to limit residency.
__global__ void increment_kernel(uint32_t* data) {
  data[blockIdx.x * size_t(blockDim.x) + threadIdx.x] += 1;
}

// Counts the words that are not their fill value plus `launches`, on the device: 1 GiB per point
// is too much to bring back each time; the host checks windows per point and all of it once.
__global__ void count_wrong_kernel(const uint32_t* data, size_t n, uint64_t fill_seed,
                                   uint32_t launches, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    local += data[i] != uint32_t(fill_value(fill_seed, i)) + launches;
  if (local)
    atomicAdd(wrong, local);
}

struct Array {
  DeviceBuffer<uint32_t> words;
  DeviceBuffer<unsigned long long> wrong{1};
  uint32_t launches = 0; // every word has been incremented this many times

  size_t device_wrong(int sm_count) {
    APOD_CUDA(cudaMemset(wrong.get(), 0, sizeof(unsigned long long)));
    count_wrong_kernel<<<4 * sm_count, 512>>>(words.get(), words.size(), seed, launches,
                                              wrong.get());
    APOD_CUDA_LAUNCH();
    unsigned long long n = 0;
    APOD_CUDA(cudaMemcpy(&n, wrong.get(), sizeof n, cudaMemcpyDeviceToHost));
    return n;
  }
  /// Host check of words [first, first + count).
  size_t host_wrong(size_t first, size_t count) const {
    std::unique_ptr<uint32_t[]> host(new uint32_t[count]);
    APOD_CUDA(cudaMemcpy(host.get(), words.get() + first, count * sizeof(uint32_t),
                         cudaMemcpyDeviceToHost));
    return parallel_count(count, [&](size_t b, size_t e) {
      size_t bad = 0;
      for (size_t i = b; i < e; ++i)
        bad += host[i] != expected_fill<uint32_t>(seed, first + i) + launches;
      return bad;
    });
  }
};

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

// Little's law for this shape (theory.cpp): one 4-byte load in flight per resident thread, two
// bytes moved per byte loaded; from the same run's DRAM latency and achievable peak.
json model_facts(const ExperimentContext& ctx, int threads_per_sm) {
  const auto latency_ns = latency::earlier_dram_ns(ctx);
  const auto peak_gbs = latency::earlier_peak_gbs(ctx);
  if (!latency_ns || !peak_gbs)
    return {{keys::model, "none: memory_latency and peak_copy did not run earlier in this run"}};
  return {{keys::model_gbs, littles_law_bandwidth_gbs(ctx.device.sm_count, threads_per_sm * 4.0,
                                                      *latency_ns, *peak_gbs, 2.0)},
          {"model_latency_ns", *latency_ns},
          {"model_peak_gbs", *peak_gbs}};
}

Measurement measure_shape(ExperimentContext& ctx, Array& array, const HidingShape& shape,
                          int max_threads_per_sm) {
  const int device = ctx.device.ordinal;
  const size_t max_shared = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const auto blocks_at = [&](size_t bytes) {
    int blocks = 0;
    APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, increment_kernel,
                                                            shape.block_size, bytes));
    return blocks;
  };
  const auto shared =
      shared_bytes_for_blocks(shape.blocks_per_sm, max_shared, shared_granularity, blocks_at);
  const json params = {{hiding::block_size.key, shape.block_size},
                       {hiding::threads_per_sm.key, shape.threads_per_sm()}};
  if (!shared) { // cannot happen within hiding_shapes' limits; a failed point if it does
    Measurement m = make_measurement(params, metrics::effective_bandwidth, Series(), false);
    m.error = "no dynamic shared memory holds the kernel to this many resident blocks";
    return m;
  }
  const unsigned grid = unsigned(array.words.size() / shape.block_size);
  SamplingPolicy policy = ctx.options.sampling;
  policy.warmup = std::min(policy.warmup, 1); // each launch streams 2 GiB: one warms up
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
    increment_kernel<<<grid, shape.block_size, *shared, s>>>(array.words.get());
    APOD_CUDA_LAUNCH();
    ++array.launches;
  });
  const size_t n = array.words.size();
  const size_t wrong = array.device_wrong(ctx.device.sm_count) +
                       array.host_wrong(0, host_window_words) +
                       array.host_wrong(n - host_window_words, host_window_words);

  // shared_bytes_for_blocks made the occupancy API's answer equal to the shape's blocks.
  const int resident_threads = blocks_at(*shared) * shape.block_size;
  json extra = model_facts(ctx, resident_threads);
  extra["in_flight_bytes_per_sm"] = resident_threads * 4;
  extra["resident_blocks_per_sm"] = resident_threads / shape.block_size;
  extra["occupancy"] = double(resident_threads) / max_threads_per_sm;
  extra["dynamic_shared_bytes"] = *shared;
  extra["words"] = n;
  extra[keys::words_wrong] = wrong;
  extra[keys::seed] = seed;
  extra["kernel"] = kernel_facts(increment_kernel, shape.block_size, grid, *shared);
  return bandwidth_measurement(params, 2.0 * n * sizeof(uint32_t), Series(t), wrong == 0,
                               std::move(extra));
}

void run(ExperimentContext& ctx) {
  const int device = ctx.device.ordinal;
  APOD_CUDA(cudaSetDevice(device));
  APOD_CUDA(cudaFuncSetAttribute(increment_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device)));
  // All of the unified array as shared memory, so residency follows the allocation alone.
  APOD_CUDA(cudaFuncSetAttribute(increment_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared));
  const int max_threads = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int max_blocks = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, device);

  // 1 GiB (2^28 words, 16x the slides' 16M); quick: 256 MiB, still 4x a 60 MiB L2.
  const size_t words = ctx.options.quick ? (size_t(1) << 26) : (size_t(1) << 28);
  Array array{DeviceBuffer<uint32_t>(words)};
  fill_device(array.words.get(), words, seed);

  std::vector<Measurement> points;
  for (const HidingShape& shape : hiding_shapes(max_threads, max_blocks, ctx.options.quick))
    points.push_back(measure_shape(ctx, array, shape, max_threads));
  // Every word of the array on the host once: all the launches of every point have added one.
  const size_t wrong = array.host_wrong(0, words);
  for (Measurement& m : points) {
    m.extra["launches_in_final_check"] = array.launches;
    m.extra["final_host_check_words_wrong"] = wrong;
    m.verified = m.verified && wrong == 0;
    ctx.record(std::move(m));
  }
}

} // namespace

APOD_EXPERIMENT(hiding::experiment, run);

} // namespace apod
