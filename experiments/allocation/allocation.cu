// Allocation costs (Best Practices Guide 9.1.1: pinning host memory is "a heavyweight
// operation"; 9.3: cudaMalloc and cudaFree "are expensive operations", cudaMallocAsync and
// cudaFreeAsync, stream-ordered pool allocators, are recommended). Each allocator's allocating
// and freeing calls are timed on the host with steady_clock, per size: cudaHostAlloc, the
// registration of malloc'ed memory, cudaMalloc, and cudaMallocAsync from the default pool warm
// (release threshold raised, so freed memory stays in it) and cold (trimmed first). Between the
// calls every allocation is used and checked (untimed), and free device memory must come back.
#include "alloc_math.hpp"
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/in_flight.hpp"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "declaration.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace apod {
namespace {

using alloc::Api;

constexpr size_t host_probe_bytes = 4096;  // a DMA copy per probe into pinned memory
constexpr size_t device_probe_bytes = 256; // read back per probe after the memset
constexpr size_t freed_slack_bytes = 64 * alloc::mib;
constexpr uint64_t seed = 0xA110CA7E;

using clock_type = std::chrono::steady_clock;

double us_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

size_t host_available_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
}

size_t device_free_bytes() {
  size_t free = 0, total = 0;
  APOD_CUDA(cudaMemGetInfo(&free, &total));
  return free;
}

/// The default pool of the device, its release threshold raised for the experiment (so memory
/// freed with cudaFreeAsync stays in the pool) and restored, the pool trimmed, when it ends.
class PoolThreshold {
public:
  explicit PoolThreshold(int device) {
    APOD_CUDA(cudaDeviceGetDefaultMemPool(&pool_, device));
    APOD_CUDA(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &old_));
    uint64_t keep_all = std::numeric_limits<uint64_t>::max();
    APOD_CUDA(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_all));
  }
  ~PoolThreshold() {
    cudaDeviceSynchronize();
    cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &old_);
    cudaMemPoolTrimTo(pool_, 0);
  }
  PoolThreshold(const PoolThreshold&) = delete;
  PoolThreshold& operator=(const PoolThreshold&) = delete;
  cudaMemPool_t pool() const { return pool_; }

private:
  cudaMemPool_t pool_ = nullptr;
  uint64_t old_ = 0;
};

/// Frees whatever a sample still holds when a check throws between the two timed calls.
struct Held {
  void* p = nullptr;
  const Api* api = nullptr;
  cudaStream_t stream = nullptr;
  ~Held() {
    if (!p)
      return;
    if (api->name == "host_alloc")
      cudaFreeHost(p);
    else if (api->name == "host_register")
      cudaHostUnregister(p);
    else if (api->name == "malloc")
      cudaFree(p);
    else {
      cudaFreeAsync(p, stream);
      cudaStreamSynchronize(stream);
    }
  }
};

/// What the experiment shares across points: the stream, the pool, the probe's source.
struct Context {
  explicit Context(int device) : pool(device), probe_source(host_probe_bytes) {
    fill_device(probe_source.get(), host_probe_bytes, seed, stream.get());
    for (size_t i = 0; i < host_probe_bytes; ++i)
      expected.push_back(expected_fill<uint8_t>(seed, i));
    APOD_CUDA(cudaStreamSynchronize(stream.get()));
  }
  OwnedStream stream;
  PoolThreshold pool;
  DeviceBuffer<uint8_t> probe_source;
  std::vector<uint8_t> expected;
};

/// One point's allocate-and-free pairs: each returns the two calls' times and counts what read
/// wrong.
struct Point {
  Context& c;
  const Api& api;
  size_t bytes;
  std::unique_ptr<uint8_t, decltype(&std::free)> registered{nullptr, &std::free};
  size_t pairs = 0, wrong = 0, probe_bytes_checked = 0;

  Point(Context& context, const Api& a, size_t size) : c(context), api(a), bytes(size) {
    if (api.name == "host_register") { // malloc'ed memory, touched once so its pages exist
      registered.reset(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes)));
      if (!registered)
        throw std::bad_alloc();
      std::memset(registered.get(), 0x5A, bytes);
    }
  }

  /// DMA copies of the probe source into pinned host memory at its start, middle and end.
  void check_pinned(uint8_t* host) {
    const size_t n = std::min(host_probe_bytes, bytes);
    const std::vector<size_t> offsets = alloc::probe_offsets(bytes, host_probe_bytes);
    for (size_t off : offsets) {
      for (size_t i = 0; i < n; ++i)
        host[off + i] = uint8_t(~c.expected[i]); // poison: a copy that did not land reads wrong
      APOD_CUDA(cudaMemcpyAsync(host + off, c.probe_source.get(), n, cudaMemcpyDeviceToHost,
                                c.stream.get()));
    }
    APOD_CUDA(cudaStreamSynchronize(c.stream.get()));
    for (size_t off : offsets)
      for (size_t i = 0; i < n; ++i)
        wrong += host[off + i] != c.expected[i];
    probe_bytes_checked += offsets.size() * n;
  }

  /// Sets the whole allocation to this pair's byte and reads its start, middle and end back.
  void check_device(void* p) {
    const uint8_t value = alloc::pattern_byte(pairs);
    APOD_CUDA(cudaMemsetAsync(p, value, bytes, c.stream.get()));
    const size_t n = std::min(device_probe_bytes, bytes);
    const std::vector<size_t> offsets = alloc::probe_offsets(bytes, device_probe_bytes);
    std::vector<uint8_t> got(offsets.size() * n, uint8_t(~value));
    for (size_t k = 0; k < offsets.size(); ++k)
      APOD_CUDA(cudaMemcpyAsync(got.data() + k * n, static_cast<uint8_t*>(p) + offsets[k], n,
                                cudaMemcpyDeviceToHost, c.stream.get()));
    APOD_CUDA(cudaStreamSynchronize(c.stream.get()));
    wrong += size_t(std::count_if(got.begin(), got.end(), [&](uint8_t b) { return b != value; }));
    probe_bytes_checked += got.size();
  }

  /// The memory type cudaPointerGetAttributes reports for `p`.
  static cudaMemoryType type_of(const void* p) {
    cudaPointerAttributes attributes{};
    APOD_CUDA(cudaPointerGetAttributes(&attributes, p));
    return attributes.type;
  }

  /// One allocate-and-free pair: {allocating call, freeing call} in microseconds.
  std::pair<double, double> pair() {
    cudaStream_t s = c.stream.get();
    Held held{nullptr, &api, s};
    clock_type::time_point t0, t1, t2, t3;
    if (api.name == "host_alloc") {
      t0 = clock_type::now();
      APOD_CUDA(cudaHostAlloc(&held.p, bytes, cudaHostAllocDefault));
      t1 = clock_type::now();
      check_pinned(static_cast<uint8_t*>(held.p));
      void* p = std::exchange(held.p, nullptr);
      t2 = clock_type::now();
      APOD_CUDA(cudaFreeHost(p));
      t3 = clock_type::now();
    } else if (api.name == "host_register") {
      void* p = registered.get();
      t0 = clock_type::now();
      APOD_CUDA(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
      t1 = clock_type::now();
      held.p = p;
      wrong += type_of(p) != cudaMemoryTypeHost;
      check_pinned(registered.get());
      held.p = nullptr;
      t2 = clock_type::now();
      APOD_CUDA(cudaHostUnregister(p));
      t3 = clock_type::now();
      wrong += type_of(p) != cudaMemoryTypeUnregistered;
    } else if (api.name == "malloc") {
      t0 = clock_type::now();
      APOD_CUDA(cudaMalloc(&held.p, bytes));
      t1 = clock_type::now();
      check_device(held.p);
      void* p = std::exchange(held.p, nullptr);
      t2 = clock_type::now();
      APOD_CUDA(cudaFree(p));
      t3 = clock_type::now();
    } else { // pool_warm, pool_cold: the calls' own time; the stream runs the work after
      if (api.name == "pool_cold") {
        APOD_CUDA(cudaStreamSynchronize(s));
        APOD_CUDA(cudaMemPoolTrimTo(c.pool.pool(), 0));
      }
      t0 = clock_type::now();
      APOD_CUDA(cudaMallocAsync(&held.p, bytes, s));
      t1 = clock_type::now();
      check_device(held.p);
      void* p = std::exchange(held.p, nullptr);
      t2 = clock_type::now();
      APOD_CUDA(cudaFreeAsync(p, s));
      t3 = clock_type::now();
      APOD_CUDA(cudaStreamSynchronize(s));
    }
    ++pairs;
    return {us_between(t0, t1), us_between(t2, t3)};
  }
};

void measure(ExperimentContext& ctx, Context& c, const Api& api, size_t bytes) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = alloc::point_cap_s(bytes, policy.max_point_s);
  const size_t free_before = device_free_bytes();
  Point point(c, api, bytes);
  if (api.name == "pool_warm") // the pool holds the size before the first sample
    point.pair();
  double pair_s = 0;
  for (int i = 0; i < alloc::warmup_pairs(bytes, policy.warmup); ++i) {
    const auto [a, f] = point.pair();
    pair_s = (a + f) / 1e6;
  }
  policy.min_samples = alloc::min_samples(pair_s, policy.max_point_s, policy.min_samples);

  in_flight::PointScope scope;
  AdaptiveSampler sampler(policy);
  std::vector<double> alloc_us, free_us;
  while (sampler.want_more()) {
    const auto [a, f] = point.pair();
    alloc_us.push_back(a), free_us.push_back(f);
    sampler.add((a + f) / 1000.0, policy.check_sample()); // the pair, in ms
  }
  TimedSamples pair_ms = sampler.finish();
  pair_ms.window = scope.finish();

  APOD_CUDA(cudaDeviceSynchronize());
  APOD_CUDA(cudaMemPoolTrimTo(c.pool.pool(), 0));
  const size_t free_after = device_free_bytes();
  const bool came_back = alloc::freed(free_before, free_after, freed_slack_bytes);
  const size_t wrong = point.wrong + (came_back ? 0 : 1);
  const bool verified = wrong == 0 && point.probe_bytes_checked > 0;

  json extra = {{"elements_wrong", wrong},
                {"allocations", point.pairs},
                {"probe_bytes_checked", point.probe_bytes_checked},
                {"device_free_change_bytes", double(free_after) - double(free_before)}};
  if (!api.host)
    extra["pool_release_threshold"] =
        api.name == "malloc" ? "not used" : "UINT64_MAX (raised; restored after)";
  const json params = {{alloc::api.key, api.name}, {alloc::bytes.key, bytes}};
  // Each call's series: the pair's samples with their flags and window, the values replaced.
  const auto call_series = [&](const std::vector<double>& us) {
    TimedSamples t = pair_ms;
    t.ms = us;
    return Series(t);
  };
  ctx.record(make_measurement(params, alloc::alloc_time, call_series(alloc_us), verified, extra));
  ctx.record(make_measurement(params, alloc::free_time, call_series(free_us), verified, extra));
  if (api.name == "host_alloc" && bytes == 64 * alloc::mib) // pinning: 'heavyweight' (9.1.1)
    extra[keys::headline] = true;
  if (alloc::per_gib_point(api, bytes))
    ctx.record(make_measurement(params, alloc::time_per_gib, Series(pair_ms).map([&](double ms) {
      return alloc::ms_per_gib(ms * 1000.0, bytes);
    }),
                                verified, extra));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  int pools = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ctx.device.ordinal));
  Context c(ctx.device.ordinal);
  const size_t device_free = device_free_bytes(), host_available = host_available_bytes();
  for (const Api& api : alloc::apis()) {
    const bool pool = api.name == "pool_warm" || api.name == "pool_cold";
    if (pool && !pools)
      continue;
    for (const size_t bytes : alloc::sizes(api, ctx.options.quick, ctx.options.full))
      if (alloc::safe_size(api, bytes, device_free, host_available))
        measure(ctx, c, api, bytes);
  }
}

} // namespace

APOD_EXPERIMENT(alloc::experiment, run);

} // namespace apod
