// Hiding latency, Stich's slides ("Hiding Latency": streaming 16M words, each thread reads,
// increments and writes one element; "need enough threads", 512+ per SM on GT200;
// shared/seeds/001_...) and the Best Practices Guide 10.1 (occupancy): read-increment-write over
// a 1 GiB array of 4-byte words, with the resident threads per SM set by block size x resident
// blocks, the blocks held down by dynamic shared memory the kernel never touches. The grid is
// persistent (resident blocks x SMs, each thread looping over the array, one load in flight):
// one block per 64 elements would measure how fast the GPU starts blocks, not latency hiding
// (the rate is measured here too, as block_launch_rate). Bytes counted: every word read once and
// written once per launch.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"
#include "declaration.hpp"
#include "littles_law/declaration.hpp"
#include "littles_law/loaded.hpp"
#include "residency.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0x1A7E1C7;
constexpr size_t shared_granularity = 128;
constexpr size_t host_window_words = size_t(1) << 16; // checked on the host after each point
constexpr double point_time_cap_s = 0.2; // the slowest point (64 threads per SM): ~20 ms a launch
constexpr unsigned launch_rate_blocks = 1u << 20; // ~0.6 ms a launch at 1.65 G blocks/s

// The slides' kernel on a persistent grid. The loop keeps one load in flight per thread: the
// next load may alias the store before it, so it is not hoisted. The dynamic shared memory is
// only there to limit residency.
__global__ void increment_kernel(uint32_t* data, size_t n) {
#pragma unroll 1
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] += 1;
}

// As little as a block can do and still be checked: its first thread writes its index.
__global__ void launch_probe_kernel(unsigned* out, unsigned tag) {
  if (threadIdx.x == 0)
    out[blockIdx.x] = blockIdx.x ^ tag;
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

/// Blocks per second of launch_probe_kernel at each block size, in G blocks/s, recorded; the
/// medians returned by block size.
std::vector<std::pair<int, double>> measure_launch_rate(ExperimentContext& ctx) {
  DeviceBuffer<unsigned> out(launch_rate_blocks);
  std::vector<std::pair<int, double>> rates;
  unsigned tag = 0;
  for (int block : launch_rate_block_sizes()) {
    SamplingPolicy policy = ctx.options.sampling;
    policy.flush_l2 = false; // no data to speak of: 4 MiB of block indices
    policy.max_point_s = std::min(policy.max_point_s, 0.1);
    const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
      launch_probe_kernel<<<launch_rate_blocks, block, 0, s>>>(out.get(), ++tag);
      APOD_CUDA_LAUNCH();
    });
    std::vector<unsigned> host(launch_rate_blocks);
    APOD_CUDA(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (unsigned b = 0; b < launch_rate_blocks; ++b)
      wrong += host[b] != (b ^ tag);
    const Series rate = Series(t).map([](double ms) { return launch_rate_blocks / (ms * 1e6); });
    json extra = {{keys::words_wrong, wrong},
                  {"kernel", kernel_facts(launch_probe_kernel, block, launch_rate_blocks)}};
    Measurement m = make_measurement(
        {{hiding::block_size.key, block}, {hiding::grid_blocks.key, launch_rate_blocks}},
        hiding::block_launch_rate, rate, wrong == 0, std::move(extra));
    rates.push_back({block, rate.summary().median});
    ctx.record(std::move(m));
  }
  return rates;
}

/// littles_law's loaded-latency curve from earlier in this run (empty when it did not run).
std::vector<LoadedPoint> earlier_loaded_curve(const ExperimentContext& ctx) {
  std::vector<LoadedPoint> points;
  const auto level = [&](const char* background, int delay) {
    const json params = {{littles::background.key, background}, {littles::delay.key, delay}};
    const auto ns = ctx.earlier_median(littles::experiment, littles::loaded_latency.name, params);
    const auto gbs =
        ctx.earlier_median(littles::experiment, littles::background_bandwidth.name, params);
    if (ns && gbs)
      points.push_back({*background == 'n' ? 0.0 : *gbs, *ns});
  };
  level(littles::no_background, 0);
  for (int d : background_delays_cycles())
    level(littles::copy_background, d);
  return loaded_curve(points);
}

// Little's law for this shape on the loaded curve (littles_law/loaded.hpp): one 4-byte load in
// flight per resident thread, two bytes moved per byte loaded, capped at the curve's top (the
// unthrottled copy).
json model_facts(const ExperimentContext& ctx, const std::vector<LoadedPoint>& curve,
                 int threads_per_sm) {
  if (curve.size() < 2)
    return {{keys::model, "none: littles_law's loaded-latency curve is not in this run"}};
  const double in_flight = threads_per_sm * 4.0;
  const double b = *littles_fixed_point_gbs(curve, ctx.device.sm_count, in_flight, 2.0);
  const double capped = std::min(b, curve.back().gbs);
  return {{keys::model_gbs, capped},
          {"model_latency_ns", 2.0 * ctx.device.sm_count * in_flight / b},
          {"model_peak_gbs", curve.back().gbs}};
}

Measurement measure_shape(ExperimentContext& ctx, Array& array, const HidingShape& shape,
                          int max_threads_per_sm, const std::vector<LoadedPoint>& curve,
                          double launch_bound) {
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
  // Persistent: exactly the resident blocks, placed breadth-first, blocks_per_sm on each SM.
  const unsigned grid = unsigned(shape.blocks_per_sm * ctx.device.sm_count);
  const size_t n = array.words.size();
  SamplingPolicy policy = ctx.options.sampling;
  policy.warmup = std::min(policy.warmup, 1); // each launch streams 2 GiB: one warms up
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
    increment_kernel<<<grid, shape.block_size, *shared, s>>>(array.words.get(), n);
    APOD_CUDA_LAUNCH();
    ++array.launches;
  });
  const size_t wrong = array.device_wrong(ctx.device.sm_count) +
                       array.host_wrong(0, host_window_words) +
                       array.host_wrong(n - host_window_words, host_window_words);

  // shared_bytes_for_blocks made the occupancy API's answer equal to the shape's blocks.
  const int resident_threads = blocks_at(*shared) * shape.block_size;
  json extra = model_facts(ctx, curve, resident_threads);
  extra["in_flight_bytes_per_sm"] = resident_threads * 4;
  extra["resident_blocks_per_sm"] = resident_threads / shape.block_size;
  extra["occupancy"] = double(resident_threads) / max_threads_per_sm;
  extra["dynamic_shared_bytes"] = *shared;
  extra["words"] = n;
  if (launch_bound > 0)
    extra["launch_bound_gbs"] = launch_bound;
  extra[keys::words_wrong] = wrong;
  extra[keys::seed] = seed;
  extra["kernel"] = kernel_facts(increment_kernel, shape.block_size, grid, *shared);
  return bandwidth_measurement(params, 2.0 * n * sizeof(uint32_t), Series(t), wrong == 0,
                               std::move(extra));
}

void run(ExperimentContext& ctx) {
  const int device = ctx.device.ordinal;
  APOD_CUDA(cudaSetDevice(device));
  const auto rates = measure_launch_rate(ctx);
  APOD_CUDA(cudaFuncSetAttribute(increment_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device)));
  // All of the unified array as shared memory, so residency follows the allocation alone.
  APOD_CUDA(cudaFuncSetAttribute(increment_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared));
  const int max_threads = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int max_blocks = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, device);
  const std::vector<LoadedPoint> curve = earlier_loaded_curve(ctx);

  // 1 GiB (2^28 words, 16x the slides' 16M); quick: 256 MiB, still 4x a 60 MiB L2.
  const size_t words = ctx.options.quick ? (size_t(1) << 26) : (size_t(1) << 28);
  Array array{DeviceBuffer<uint32_t>(words)};
  fill_device(array.words.get(), words, seed);

  std::vector<Measurement> points;
  for (const HidingShape& shape : hiding_shapes(max_threads, max_blocks, ctx.options.quick)) {
    // What one block per block_size elements could reach at the measured launch rate.
    double bound = 0;
    for (const auto& [block, rate] : rates)
      if (block == shape.block_size && rate > 0)
        bound = launch_bound_gbs(rate * 1e9, block, 2 * sizeof(uint32_t));
    points.push_back(measure_shape(ctx, array, shape, max_threads, curve, bound));
  }
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
