// The L2 persisting access window, CUDA C++ Best Practices Guide 9.2.2 (shared/seeds/000_...):
// the sliding-window benchmark of 9.2.2.2. A part of the L2 is set aside for persisting accesses
// (cudaLimitPersistingL2CacheSize, at persistingL2CacheMaxSize as the guide does); each thread
// reads one word of a small persistent region and updates one word of a large streaming one, the
// region swept from well inside the set-aside to twice it. Three windows on the stream: none, the
// guide's first (the whole region, hitRatio 1.0) and its tuned one (hitRatio = set-aside /
// region). Each trial times the three in turn, every sample from a cold L2 (persisting lines reset
// with cudaCtxResetPersistingL2Cache, then the L2 flushed), so the speed-up over no window is
// stored sample by sample. The set-aside is given back when the experiment ends, failed or not.
#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr int unroll = 4; // words of each region in flight per thread
constexpr uint64_t streaming_seed = 0x5EED5742, persistent_seed = 0x9E451575;
constexpr size_t host_check_words = size_t(1) << 16; // at each end of the streaming region
constexpr std::array<Window, 3> windows = {Window::none, Window::hit_ratio_1, Window::tuned};

using persistence::speedup;

// The guide's kernel updates data_persistent[tid % freqSize] in place from every thread that maps
// to it, a race whose result cannot be checked; here each thread reads the persistent word and
// adds it to its streaming word, so the persistent region is read as often as there and every
// word's final value is known. A persistent grid walks the elements in launch order like the
// guide's threads, with the persistent index stepped instead of one division per element.
__global__ void __launch_bounds__(block_size)
    sliding_window_kernel(const uint32_t* __restrict__ persistent, uint32_t* __restrict__ streaming,
                          size_t n, uint32_t region_words) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  const uint32_t step = uint32_t(threads % region_words);
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  uint32_t j = uint32_t(i % region_words);
  const auto advance = [&](uint32_t at) {
    return at + step >= region_words ? at + step - region_words : at + step;
  };
  for (; i + (unroll - 1) * threads < n; i += unroll * threads) {
    uint32_t at[unroll], p[unroll], s[unroll];
    at[0] = j;
#pragma unroll
    for (int u = 1; u < unroll; ++u)
      at[u] = advance(at[u - 1]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      p[u] = persistent[at[u]], s[u] = streaming[i + u * threads];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      streaming[i + u * threads] = s[u] + p[u];
    j = advance(at[unroll - 1]);
  }
  for (; i < n; i += threads, j = advance(j))
    streaming[i] += persistent[j];
}

__global__ void count_wrong_kernel(const uint32_t* streaming, size_t n, uint32_t region_words,
                                   uint64_t launches, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t p = uint32_t(fill_value(persistent_seed, i % region_words));
    local += streaming[i] != uint32_t(fill_value(streaming_seed, i)) + uint32_t(launches) * p;
  }
  if (local)
    atomicAdd(wrong, local);
}

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

private:
  size_t previous_ = 0;
};

void set_window(cudaStream_t stream, void* base, size_t bytes, double hit_ratio) {
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = base;
  value.accessPolicyWindow.num_bytes = bytes; // 0: no window
  value.accessPolicyWindow.hitRatio = float(hit_ratio);
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  APOD_CUDA(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
}

struct Setup {
  size_t set_aside = 0;
  DeviceBuffer<uint32_t> persistent, streaming;
  DeviceBuffer<unsigned long long> wrong{1};
  unsigned grid = 0;
  OwnedStream stream;
};

/// Checks every streaming word on the device against the formula, and the first and last
/// host_check_words again on the host.
json check(const Setup& s, uint32_t region_words, uint64_t launches, bool& ok) {
  const size_t n = s.streaming.size();
  APOD_CUDA(cudaMemset(s.wrong.get(), 0, sizeof(unsigned long long)));
  count_wrong_kernel<<<1024, 256>>>(s.streaming.get(), n, region_words, launches, s.wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long wrong = 0;
  APOD_CUDA(cudaMemcpy(&wrong, s.wrong.get(), sizeof wrong, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> head(host_check_words), tail(host_check_words);
  APOD_CUDA(
      cudaMemcpy(head.data(), s.streaming.get(), host_check_words * 4, cudaMemcpyDeviceToHost));
  APOD_CUDA(cudaMemcpy(tail.data(), s.streaming.get() + n - host_check_words, host_check_words * 4,
                       cudaMemcpyDeviceToHost));
  const auto expected = [&](size_t i) {
    return streaming_after(expected_fill<uint32_t>(streaming_seed, i),
                           expected_fill<uint32_t>(persistent_seed, i % region_words), launches);
  };
  size_t host_wrong = 0;
  for (size_t k = 0; k < host_check_words; ++k)
    host_wrong += (head[k] != expected(k)) + (tail[k] != expected(n - host_check_words + k));
  ok = wrong == 0 && host_wrong == 0;
  return {{"elements_wrong", wrong}, {"host_elements_wrong", host_wrong}};
}

/// The three windows at one region size, timed in turn in every trial (fixed count, so the
/// speed-up is taken sample by sample), then recorded.
void measure_region(ExperimentContext& ctx, Setup& s, double ratio) {
  const size_t region = region_bytes(s.set_aside, ratio);
  const uint32_t region_words = uint32_t(region / sizeof(uint32_t));
  const size_t n = s.streaming.size();
  const cudaStream_t stream = s.stream.get();
  fill_device(s.streaming.get(), n, streaming_seed, stream);
  const auto use_window = [&](Window w) { // none: a window of 0 bytes, i.e. no window
    set_window(stream, s.persistent.get(), w == Window::none ? 0 : region,
               hit_ratio(w, s.set_aside, region));
  };
  uint64_t launches = 0;
  const auto launch = [&] {
    sliding_window_kernel<<<s.grid, block_size, 0, stream>>>(s.persistent.get(), s.streaming.get(),
                                                             n, region_words);
    APOD_CUDA_LAUNCH();
    ++launches;
  };
  const SamplingPolicy& policy = ctx.options.sampling;
  for (int i = 0; i < policy.warmup; ++i)
    for (Window w : windows)
      use_window(w), launch();
  EventPair events;
  std::array<Series, windows.size()> ms;
  for (int trial = 0; trial < policy.min_samples; ++trial)
    for (size_t k = 0; k < windows.size(); ++k) {
      APOD_CUDA(cudaStreamSynchronize(stream));
      APOD_CUDA(cudaCtxResetPersistingL2Cache()); // the last sample's persisting lines: normal
      use_window(windows[k]);
      flush_l2(stream); // ... and then evicted; the host enqueues the rest while this runs
      events.start(stream);
      launch();
      events.stop(stream);
      ms[k].add(events.elapsed_ms(), policy.check_sample());
    }
  bool ok = false;
  const json facts = check(s, region_words, launches, ok);
  const double bytes = compulsory_bytes(n, region);
  for (size_t k = 0; k < windows.size(); ++k) {
    const json params = {{persistence::window.key, window_name(windows[k])},
                         {persistence::region.key, region},
                         {persistence::ratio.key, ratio}};
    json extra = facts;
    extra.update({{persistence::set_aside_key, s.set_aside},
                  {"streaming_bytes", s.streaming.bytes()},
                  {"hit_ratio", hit_ratio(windows[k], s.set_aside, region)},
                  {"window_bytes", windows[k] == Window::none ? 0 : region},
                  {"launches", launches},
                  {"kernel", kernel_facts(sliding_window_kernel, block_size, s.grid)}});
    ctx.record(bandwidth_measurement(params, bytes, ms[k], ok, extra));
    if (windows[k] != Window::none)
      ctx.record(make_measurement(
          params, speedup,
          Series::zip(ms[0], ms[k], [](double none, double with) { return none / with; }), ok,
          extra));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceInfo& d = ctx.device;
  if (d.cc_major < 8)
    throw ExperimentSkipped("persisting L2 accesses need compute capability 8.0 (Best Practices "
                            "Guide 9.2.2); this device is " +
                            std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  int max_persisting = 0, max_window = 0;
  APOD_CUDA(
      cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, d.ordinal));
  APOD_CUDA(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, d.ordinal));
  if (max_persisting <= 0 || max_window <= 0)
    throw ExperimentSkipped(
        "the device offers no persisting L2 set-aside (persistingL2CacheMaxSize "
        "or accessPolicyMaxWindowSize is 0)");

  PersistingL2Limit limit; // from here on the set-aside is given back whatever happens
  Setup s;
  s.set_aside = limit.set(size_t(max_persisting)); // the guide sets aside the most it may
  if (s.set_aside == 0)
    throw ExperimentSkipped("the driver granted no persisting set-aside");
  std::vector<double> ratios; // the guide's sizes that fit in one access window
  for (double r : region_ratios(ctx.options.quick))
    if (region_bytes(s.set_aside, r) <= size_t(max_window))
      ratios.push_back(r);
  if (ratios.empty())
    throw ExperimentSkipped("no persistent region fits the largest access window");
  // The guide streams 1024 MB; at least 4x the L2 wherever that is more.
  const size_t streaming =
      std::max(ctx.options.quick ? size_t(256) << 20 : size_t(1) << 30, 4 * size_t(d.l2_bytes));
  s.persistent = DeviceBuffer<uint32_t>(region_bytes(s.set_aside, ratios.back()) / 4);
  s.streaming = DeviceBuffer<uint32_t>(streaming / 4);
  fill_device(s.persistent.get(), s.persistent.size(), persistent_seed);
  int blocks_per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sliding_window_kernel,
                                                          block_size, 0));
  s.grid = unsigned(blocks_per_sm * d.sm_count);
  for (double r : ratios)
    measure_region(ctx, s, r);
}

} // namespace

APOD_EXPERIMENT(persistence::experiment, run);

} // namespace apod
