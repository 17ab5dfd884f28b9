// The L2 persisting access window, CUDA C++ Best Practices Guide 9.2.2 (shared/seeds/000_...):
// the sliding-window benchmark of 9.2.2.2, read against the kernel with no set-aside at all. The
// guide reserves persistingL2CacheMaxSize; on Hopper that carve-out alone slows every streaming
// kernel (an outside review measured a plain copy at 2670 GB/s with none set aside and 1110 GB/s
// with 31.2 MB), so a speed-up over "no window" at the maximum set-aside is a speed-up over a
// crippled baseline. Here the set-aside (cudaLimitPersistingL2CacheSize) is swept from 0 to the
// maximum; at each, a plain copy that uses no window is timed, then each thread of the sliding-
// window kernel reads one word of a persistent region and updates one word of a large streaming
// one, under three windows: none, the guide's first (the whole region, hitRatio 1.0) and its
// tuned one (hitRatio = set-aside / region). Every sample starts from a cold L2 (persisting lines
// reset with cudaCtxResetPersistingL2Cache, then the L2 flushed); each speed-up is the time with
// no set-aside and no window over the point's time, sample by sample (fixed counts). The device's
// limit is restored when the experiment ends, failed or not.
#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"
#include "persisting_l2.cuh"

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

namespace p = persistence;

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

// A plain copy that never uses an access window: the streaming work a program runs beside the
// one that reserved the set-aside.
__global__ void __launch_bounds__(block_size)
    copy_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

struct Setup {
  size_t max_set_aside = 0;
  size_t granted = 0; // the set-aside now in force
  DeviceBuffer<uint32_t> persistent, streaming, copy;
  DeviceBuffer<unsigned long long> wrong{1};
  unsigned grid = 0, copy_grid = 0;
  OwnedStream stream;
};

/// Checks every word of `words` on the device against the streaming formula after `launches`
/// launches (0: the fill itself), and the first and last host_check_words again on the host.
json check(const Setup& s, const uint32_t* words, uint32_t region_words, uint64_t launches,
           bool& ok) {
  const size_t n = s.streaming.size();
  APOD_CUDA(cudaMemset(s.wrong.get(), 0, sizeof(unsigned long long)));
  count_wrong_kernel<<<1024, 256>>>(words, n, region_words, launches, s.wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long wrong = 0;
  APOD_CUDA(cudaMemcpy(&wrong, s.wrong.get(), sizeof wrong, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> head(host_check_words), tail(host_check_words);
  APOD_CUDA(cudaMemcpy(head.data(), words, host_check_words * 4, cudaMemcpyDeviceToHost));
  APOD_CUDA(cudaMemcpy(tail.data(), words + n - host_check_words, host_check_words * 4,
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

/// `policy.min_samples` samples of `launch`, each from a cold L2 with the persisting lines reset
/// and `before` run first (a window set): a fixed count, so the speed-ups pair sample by sample.
template <class Before, class Launch>
Series time_cold(const SamplingPolicy& policy, cudaStream_t stream, Before&& before,
                 Launch&& launch) {
  EventPair events;
  Series ms;
  for (int trial = 0; trial < policy.min_samples; ++trial) {
    APOD_CUDA(cudaStreamSynchronize(stream));
    APOD_CUDA(cudaCtxResetPersistingL2Cache()); // the last sample's persisting lines: normal
    before();
    flush_l2(stream); // ... and then evicted; the host enqueues the rest while this runs
    events.start(stream);
    launch();
    events.stop(stream);
    ms.add(events.elapsed_ms(), policy.check_sample());
  }
  return ms;
}

/// What the points of one set-aside are read against: the same work with nothing set aside.
struct Reference {
  Series copy_ms;
  std::vector<Series> none_ms; // per region, no window
  double copy_gbs = 0;
  std::vector<double> none_gbs;
};

/// A plain copy at the set-aside in force (no window on its stream); its times.
Series measure_copy(ExperimentContext& ctx, Setup& s, bool& ok, json& facts) {
  const size_t n = s.streaming.size();
  const cudaStream_t stream = s.stream.get();
  fill_device(s.streaming.get(), n, streaming_seed, stream);
  set_window(stream, s.persistent.get(), 0, 0.0);
  const auto launch = [&] {
    copy_kernel<<<s.copy_grid, block_size, 0, stream>>>(s.streaming.get(), s.copy.get(), n);
    APOD_CUDA_LAUNCH();
  };
  const SamplingPolicy& policy = ctx.options.sampling;
  for (int i = 0; i < policy.warmup; ++i)
    launch();
  APOD_CUDA(cudaMemset(s.copy.get(), 0xFF, s.copy.bytes())); // a copy that did nothing fails
  Series ms = time_cold(
      policy, stream, [] {}, launch);
  facts = check(s, s.copy.get(), 1, 0, ok);
  facts["kernel"] = kernel_facts(copy_kernel, block_size, s.copy_grid);
  return ms;
}

/// The three windows at one region size (only none with no set-aside), each timed in turn in
/// every trial; returns each window's times and the check's facts.
std::array<Series, windows.size()> measure_region(ExperimentContext& ctx, Setup& s, size_t region,
                                                  size_t n_windows, bool& ok, json& facts) {
  const uint32_t region_words = uint32_t(region / sizeof(uint32_t));
  const size_t n = s.streaming.size();
  const cudaStream_t stream = s.stream.get();
  fill_device(s.streaming.get(), n, streaming_seed, stream);
  const auto use_window = [&](Window w) { // none: a window of 0 bytes, i.e. no window
    set_window(stream, s.persistent.get(), w == Window::none ? 0 : region,
               hit_ratio(w, s.granted, region));
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
    for (size_t k = 0; k < n_windows; ++k)
      use_window(windows[k]), launch();
  // One trial times every window in turn, so a drift in the device's state meets all of them.
  std::array<Series, windows.size()> ms;
  SamplingPolicy one = policy;
  one.min_samples = 1;
  for (int trial = 0; trial < policy.min_samples; ++trial)
    for (size_t k = 0; k < n_windows; ++k) {
      const Series sample = time_cold(
          one, stream, [&] { use_window(windows[k]); }, launch);
      ms[k].add(sample.values()[0], sample.flag(0));
    }
  facts = check(s, s.streaming.get(), region_words, launches, ok);
  facts["launches"] = launches;
  facts["kernel"] = kernel_facts(sliding_window_kernel, block_size, s.grid);
  return ms;
}

double median_of(const Series& s) {
  return s.summary().median;
}

/// Everything measured at one set-aside, recorded against the reference (measured first, at 0).
void measure_set_aside(ExperimentContext& ctx, Setup& s, PersistingL2Limit& limit, size_t asked,
                       const std::vector<double>& ratios, Reference& ref,
                       std::vector<Measurement>& speedups) {
  s.granted = asked == 0 ? limit.set(0) : limit.set(asked);
  const bool reference = asked == 0;
  const json common = {{p::granted_key, s.granted},
                       {"max_set_aside_bytes", s.max_set_aside},
                       {"streaming_bytes", s.streaming.bytes()}};
  const double copy_bytes = 2.0 * double(s.streaming.bytes());
  bool copy_ok = false;
  json copy_facts;
  const Series copy_ms = measure_copy(ctx, s, copy_ok, copy_facts);
  if (reference) {
    ref.copy_ms = copy_ms, ref.copy_gbs = copy_bytes / (median_of(copy_ms) * 1e6);
  } else {
    json extra = common;
    extra.update(copy_facts);
    extra.update({{"copy_gbs", copy_bytes / (median_of(copy_ms) * 1e6)},
                  {"copy_gbs_no_set_aside", ref.copy_gbs}});
    ctx.record(make_measurement(
        {{p::set_aside.key, asked}}, p::copy_ratio,
        Series::zip(ref.copy_ms, copy_ms, [](double none, double with) { return none / with; }),
        copy_ok, extra));
    if (asked == set_aside_bytes(s.max_set_aside, 1.0)) {
      extra["winner"] = {{p::set_aside.key, asked}};
      ctx.record(make_measurement(
          json::object(), p::copy_at_max,
          Series::zip(ref.copy_ms, copy_ms, [](double none, double with) { return none / with; }),
          copy_ok, extra));
    }
  }
  for (size_t r = 0; r < ratios.size(); ++r) {
    const size_t region = region_bytes(s.max_set_aside, ratios[r]);
    const size_t n_windows = reference ? 1 : windows.size();
    bool ok = false;
    json facts;
    const auto ms = measure_region(ctx, s, region, n_windows, ok, facts);
    const double bytes = compulsory_bytes(s.streaming.size(), region);
    if (reference)
      ref.none_ms.push_back(ms[0]), ref.none_gbs.push_back(bytes / (median_of(ms[0]) * 1e6));
    for (size_t k = 0; k < n_windows; ++k) {
      const json params = {{p::window.key, window_name(windows[k])},
                           {p::set_aside.key, asked},
                           {p::region.key, region}};
      json extra = common;
      extra.update(facts);
      extra.update({{"hit_ratio", hit_ratio(windows[k], s.granted, region)},
                    {"window_bytes", windows[k] == Window::none ? 0 : region},
                    {"reference_gbs", ref.none_gbs[r]}});
      ctx.record(bandwidth_measurement(params, bytes, ms[k], ok, extra));
      if (reference)
        continue;
      extra.update({{"reference", {{p::window.key, "none"}, {p::set_aside.key, 0}}},
                    {"plain_gbs", bytes / (median_of(ms[0]) * 1e6)},
                    {"speedup_vs_no_window", median_of(ms[0]) / median_of(ms[k])}});
      speedups.push_back(make_measurement(
          params, p::speedup,
          Series::zip(ref.none_ms[r], ms[k], [](double none, double with) { return none / with; }),
          ok, extra));
    }
  }
}

/// The best windowed speed-up, carried as its own point: what the page states as the net gain.
Measurement best_of(const std::vector<Measurement>& speedups) {
  std::vector<GainCandidate> candidates;
  for (const auto& m : speedups)
    candidates.push_back({summarize(m.used_samples()).median,
                          m.params[p::window.key] != window_name(Window::none), m.ok()});
  const auto best = best_net_gain(candidates);
  if (!best) {
    Measurement m = make_measurement(json::object(), p::best_gain, Series(), false);
    m.error = "no windowed point verified";
    return m;
  }
  const Measurement& w = speedups[*best];
  json extra = w.extra;
  extra["winner"] = w.params;
  const Series s(w.samples, w.excluded, w.stop_reason, w.noisy);
  return make_measurement(json::object(), p::best_gain, s, true, extra);
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

  PersistingL2Limit limit; // from here on the device's limit is given back whatever happens
  Setup s;
  s.max_set_aside = size_t(max_persisting);
  std::vector<double> ratios; // the region sizes that fit in one access window
  for (double r : region_ratios(ctx.options.quick))
    if (region_bytes(s.max_set_aside, r) <= size_t(max_window))
      ratios.push_back(r);
  if (ratios.empty())
    throw ExperimentSkipped("no persistent region fits the largest access window");
  // The guide streams 1024 MB; at least 4x the L2 wherever that is more.
  const size_t streaming =
      std::max(ctx.options.quick ? size_t(256) << 20 : size_t(1) << 30, 4 * size_t(d.l2_bytes));
  s.persistent = DeviceBuffer<uint32_t>(region_bytes(s.max_set_aside, ratios.back()) / 4);
  s.streaming = DeviceBuffer<uint32_t>(streaming / 4);
  s.copy = DeviceBuffer<uint32_t>(streaming / 4);
  fill_device(s.persistent.get(), s.persistent.size(), persistent_seed);
  int blocks_per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sliding_window_kernel,
                                                          block_size, 0));
  s.grid = unsigned(blocks_per_sm * d.sm_count);
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, copy_kernel, block_size, 0));
  s.copy_grid = unsigned(blocks_per_sm * d.sm_count);
  Reference ref;
  std::vector<Measurement> speedups;
  for (double f : set_aside_fractions(ctx.options.quick)) // 0 first: the reference
    measure_set_aside(ctx, s, limit, set_aside_bytes(s.max_set_aside, f), ratios, ref, speedups);
  limit.restore();
  Measurement best = best_of(speedups);
  for (auto& m : speedups)
    ctx.record(std::move(m));
  ctx.record(std::move(best));
}

} // namespace

APOD_EXPERIMENT(persistence::experiment, run);

} // namespace apod
