// Copy engines, CUDA C++ Best Practices Guide 9.1.2 (shared/seeds/000_...): "GPUs with two copy
// engines can simultaneously perform one asynchronous data transfer from the host to the device,
// one asynchronous data transfer from the device to the host, and execute kernels". Each kind of
// work runs on its own stream, alone and beside the others; the streams fork from one origin
// stream whose events bracket a sample, and each stream's own events time its work. The guide's
// cpuFunction() example (host work while an asynchronous copy and a kernel run) is timed on the
// host. staged_copy's model, which takes the copy's rate alone, is recomputed at the rate
// measured here beside other work (run_staged_check).
#include "declaration.hpp"
#include "model.hpp"

#include "staged_copy/declaration.hpp"

#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace apod {
namespace {

using namespace engines;

constexpr uint64_t h2d_seed = 0xC0E1A2D, d2h_seed = 0xC0E2D2A, kernel_seed = 0xC0E3CE1,
                   key_seed = 0xC0E4EE7;
constexpr int threads_per_block = 256;
constexpr int max_passes = 512;
constexpr double kernel_over_copy = 1.25; // the kernel alone over the H2D copy alone
// The H2D copy of sample r reads the pinned source from word (r mod slots) x 512 (4 KiB steps,
// page-aligned), so every sample lands a different pattern at each position.
constexpr size_t offset_step_words = 512;
constexpr size_t offset_slots = 16;

// One pass of the device-memory-bound kernel: 16-byte words read from `src`, xor-ed with the
// pass's key and written to `dst`. The key is an argument of each launch, so no pass can be
// folded into another; every pass reads and writes the whole buffer.
__global__ void xor_copy_kernel(ulonglong2* dst, const ulonglong2* src, size_t n, uint64_t key) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const ulonglong2 v = src[i];
    dst[i] = make_ulonglong2(v.x ^ key, v.y ^ key);
  }
}

/// The word expected at index i: the fill at i + offset, xor-ed with a key.
struct ShiftedFill {
  uint64_t seed = 0, offset = 0, key = 0;
  __host__ __device__ uint64_t operator()(size_t i) const {
    return fill_value(seed, i + offset) ^ key;
  }
};

uint64_t pass_key(uint64_t sample, int pass) {
  return fill_value(key_seed, sample * max_passes + uint64_t(pass));
}

class OwnedEvent {
public:
  OwnedEvent() { APOD_CUDA(cudaEventCreate(&event_)); }
  ~OwnedEvent() {
    if (event_)
      cudaEventDestroy(event_);
  }
  OwnedEvent(OwnedEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  cudaEvent_t get() const { return event_; }

private:
  cudaEvent_t event_ = nullptr;
};

float ms_between(const OwnedEvent& a, const OwnedEvent& b) {
  float ms = 0;
  APOD_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return ms;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The buffers, the streams and the work each stream does, with its check.
struct Rig {
  size_t words;        // 8-byte words per copy buffer
  size_t kernel_words; // 8-byte words of the kernel's input and output
  int blocks;
  int passes = 1;
  // The CPU never reads or writes the copies' pinned buffers after they are allocated: a DMA
  // read of lines the cores hold dirty, or a DMA write to lines they hold, waits for the cores
  // (the first --quick run on the H100, CPU-filled source and CPU-checked destination, 16 MiB:
  // H2D 24 and D2H 11 GB/s against 55 at 256 MiB). The source is filled by a copy from the
  // device; the destination is checked by the device through its mapping.
  PinnedBuffer<uint64_t> h2d_src, d2h_dst;
  uint64_t* d2h_dst_mapped = nullptr; // d2h_dst as the device sees it
  DeviceBuffer<uint64_t> h2d_dst, d2h_src, kernel_src, kernel_dst;
  OwnedStream origin, h2d_stream, d2h_stream, kernel_stream;
  uint64_t sample = 0; // every timed or untimed run of any work takes the next number

  Rig(size_t bytes, size_t kernel_bytes, int sm_count)
      : words(bytes / sizeof(uint64_t)), kernel_words(kernel_bytes / sizeof(uint64_t)),
        blocks(sm_count * 8), h2d_src(words + offset_slots * offset_step_words),
        d2h_dst(words, cudaHostAllocMapped), h2d_dst(words), d2h_src(words),
        kernel_src(kernel_words), kernel_dst(kernel_words) {
    APOD_CUDA(
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&d2h_dst_mapped), d2h_dst.get(), 0));
    {
      DeviceBuffer<uint64_t> staging(h2d_src.size());
      fill_device(staging.get(), staging.size(), h2d_seed);
      APOD_CUDA(cudaMemcpy(h2d_src.get(), staging.get(), staging.bytes(), cudaMemcpyDeviceToHost));
    }
    fill_device(kernel_src.get(), kernel_words, kernel_seed);
    APOD_CUDA(cudaDeviceSynchronize());
  }
  size_t bytes() const { return words * sizeof(uint64_t); }
  size_t kernel_bytes() const { return kernel_words * sizeof(uint64_t); }
  size_t offset(uint64_t r) const { return (r % offset_slots) * offset_step_words; }

  /// Poisons the outputs of sample r and refills the D2H source with r's pattern (untimed).
  void prepare(uint64_t r) {
    const int poison = int(0x5A ^ (r & 0xFF));
    APOD_CUDA(cudaMemset(h2d_dst.get(), poison, bytes()));
    APOD_CUDA(cudaMemset(kernel_dst.get(), poison, kernel_bytes()));
    fill_device(d2h_src.get(), words, d2h_seed + r);
    APOD_CUDA(cudaDeviceSynchronize());
  }
  void h2d(uint64_t r, cudaStream_t s) {
    APOD_CUDA(cudaMemcpyAsync(h2d_dst.get(), h2d_src.get() + offset(r), bytes(),
                              cudaMemcpyHostToDevice, s));
  }
  void d2h(cudaStream_t s) {
    APOD_CUDA(cudaMemcpyAsync(d2h_dst.get(), d2h_src.get(), bytes(), cudaMemcpyDeviceToHost, s));
  }
  /// `count` passes of the kernel over the first `n` words of `src` into kernel_dst, keyed by
  /// sample r.
  void kernel(uint64_t r, int count, const uint64_t* src, size_t n, cudaStream_t s) {
    for (int p = 0; p < count; ++p) {
      xor_copy_kernel<<<blocks, threads_per_block, 0, s>>>(
          reinterpret_cast<ulonglong2*>(kernel_dst.get()), reinterpret_cast<const ulonglong2*>(src),
          n / 2, pass_key(r, p));
      APOD_CUDA_LAUNCH();
    }
  }

  // The checks of sample r, after it finished: words wrong.
  uint64_t h2d_wrong(uint64_t r) {
    const OutputCheck c = check_output(h2d_dst.get(), words, ShiftedFill{h2d_seed, offset(r), 0});
    return c.device_wrong + c.host_wrong;
  }
  /// Every word of the D2H destination compared by the device through its mapping (zero copy
  /// reads over the link), and the first and last 4 Ki words again by the host.
  uint64_t d2h_wrong(uint64_t r) {
    const ShiftedFill expected{d2h_seed + r, 0, 0};
    DeviceBuffer<unsigned long long> wrong(1);
    APOD_CUDA(cudaMemset(wrong.get(), 0, sizeof(unsigned long long)));
    const size_t grid = std::clamp<size_t>((words + 255) / 256, 1, 32768);
    count_wrong_kernel<<<unsigned(grid), 256>>>(d2h_dst_mapped, words, expected, wrong.get());
    APOD_CUDA_LAUNCH();
    unsigned long long device_wrong = 0;
    APOD_CUDA(cudaMemcpy(&device_wrong, wrong.get(), sizeof device_wrong, cudaMemcpyDeviceToHost));
    uint64_t host_wrong = 0;
    const size_t window = std::min<size_t>(words / 2, size_t(1) << 12); // little for the caches
    for (size_t i = 0; i < window; ++i)
      host_wrong +=
          (d2h_dst[i] != expected(i)) + (d2h_dst[words - 1 - i] != expected(words - 1 - i));
    return device_wrong + host_wrong;
  }
  /// The kernel's first `n` output words after `count` passes over `expected_input` (the rule
  /// of its input).
  uint64_t kernel_wrong(uint64_t r, int count, ShiftedFill expected_input, size_t n) {
    expected_input.key ^= pass_key(r, count - 1);
    const OutputCheck c = check_output(kernel_dst.get(), n, expected_input);
    return c.device_wrong + c.host_wrong;
  }
};

/// One configuration's samples: the span over all its streams, each stream's own time and the
/// copies' span (first start to the later copy's end), with the words found wrong per work.
struct ConfigRun {
  Series span, h2d, d2h, kernel, copies;
  uint64_t h2d_wrong = 0, d2h_wrong = 0, kernel_wrong = 0;
};

// A series with `base`'s flags, clocks and window over other values (one sample per trial).
Series alongside(const TimedSamples& base, std::vector<double> ms, const SamplingPolicy& policy) {
  TimedSamples t = base;
  t.ms = std::move(ms);
  finish_fixed(t, policy);
  t.window = base.window;
  return Series(t);
}

ConfigRun run_config(const ExperimentContext& ctx, Rig& rig, const DeviceConfig& c) {
  const SamplingPolicy& policy = ctx.options.sampling;
  const cudaStream_t s0 = rig.origin.get();
  OwnedEvent start, stop, h2d_start, h2d_stop, d2h_start, d2h_stop, k_start, k_stop;
  // Each stream waits for the origin's start, records its own events around its work, and the
  // origin waits for it before its stop.
  const auto fork = [&](cudaStream_t s, const OwnedEvent& own_start) {
    APOD_CUDA(cudaStreamWaitEvent(s, start.get(), 0));
    APOD_CUDA(cudaEventRecord(own_start.get(), s));
  };
  const auto join = [&](cudaStream_t s, const OwnedEvent& own_stop) {
    APOD_CUDA(cudaEventRecord(own_stop.get(), s));
    APOD_CUDA(cudaStreamWaitEvent(s0, own_stop.get(), 0));
  };
  const auto issue = [&](uint64_t r) {
    APOD_CUDA(cudaEventRecord(start.get(), s0));
    if (c.h2d) {
      fork(rig.h2d_stream.get(), h2d_start);
      rig.h2d(r, rig.h2d_stream.get());
      join(rig.h2d_stream.get(), h2d_stop);
    }
    if (c.d2h) {
      fork(rig.d2h_stream.get(), d2h_start);
      rig.d2h(rig.d2h_stream.get());
      join(rig.d2h_stream.get(), d2h_stop);
    }
    if (c.kernel) {
      fork(rig.kernel_stream.get(), k_start);
      rig.kernel(r, rig.passes, rig.kernel_src.get(), rig.kernel_words, rig.kernel_stream.get());
      join(rig.kernel_stream.get(), k_stop);
    }
    APOD_CUDA(cudaEventRecord(stop.get(), s0));
  };

  ConfigRun out;
  for (int i = 0; i < policy.warmup; ++i) {
    rig.prepare(rig.sample);
    issue(rig.sample++);
  }
  APOD_CUDA(cudaDeviceSynchronize());
  in_flight::PointScope point;
  SmClockProbe clock;
  TimedSamples span;
  std::vector<double> h2d_ms, d2h_ms, k_ms, copies_ms;
  for (int i = 0; i < policy.min_samples; ++i) {
    const uint64_t r = rig.sample++;
    rig.prepare(r);
    clock.start(s0);
    issue(r);
    clock.stop(s0);
    APOD_CUDA(cudaEventSynchronize(stop.get()));
    span.ms.push_back(ms_between(start, stop));
    const double mhz = clock.read_mhz(s0);
    span.sm_clock_mhz.push_back(mhz);
    span.excluded.push_back(policy.check_sample(mhz));
    if (c.h2d)
      h2d_ms.push_back(ms_between(h2d_start, h2d_stop));
    if (c.d2h)
      d2h_ms.push_back(ms_between(d2h_start, d2h_stop));
    if (c.kernel)
      k_ms.push_back(ms_between(k_start, k_stop));
    if (c.h2d && c.d2h)
      copies_ms.push_back(std::max(ms_between(start, h2d_stop), ms_between(start, d2h_stop)));
    // Checked after the sample, outside its events.
    if (c.h2d)
      out.h2d_wrong += rig.h2d_wrong(r);
    if (c.d2h)
      out.d2h_wrong += rig.d2h_wrong(r);
    if (c.kernel)
      out.kernel_wrong +=
          rig.kernel_wrong(r, rig.passes, ShiftedFill{kernel_seed, 0, 0}, rig.kernel_words);
  }
  APOD_CUDA(cudaGetLastError());
  finish_fixed(span, policy);
  span.window = point.finish();
  out.span = Series(span);
  if (c.h2d)
    out.h2d = alongside(span, h2d_ms, policy);
  if (c.d2h)
    out.d2h = alongside(span, d2h_ms, policy);
  if (c.kernel)
    out.kernel = alongside(span, k_ms, policy);
  if (c.h2d && c.d2h)
    out.copies = alongside(span, copies_ms, policy);
  return out;
}

/// One pass of the kernel alone, the median of five after one untimed.
double pass_ms(Rig& rig) {
  const cudaStream_t s = rig.kernel_stream.get();
  rig.kernel(0, 1, rig.kernel_src.get(), rig.kernel_words, s);
  EventPair events;
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    events.start(s);
    rig.kernel(0, 1, rig.kernel_src.get(), rig.kernel_words, s);
    events.stop(s);
    ms.push_back(events.elapsed_ms());
  }
  std::nth_element(ms.begin(), ms.begin() + 2, ms.end());
  return ms[2];
}

struct Recorded {
  std::vector<ConfigRun> runs; // by device_configs' order
  const ConfigRun& of(const char* name) const {
    for (size_t i = 0; i < std::size(device_configs); ++i)
      if (std::string(device_configs[i].name) == name)
        return runs[i];
    throw std::logic_error("copy_engines: no configuration " + std::string(name));
  }
};

json pcie_both_limit(const DeviceInfo& d) {
  json e = json::object();
  if (const auto line = d.theoretical_pcie_gbs()) {
    e[keys::limit_gbs] = 2 * *line;
    e[keys::limit_label] = pcie_both_directions_phrase;
  }
  return e;
}

void record_device_configs(ExperimentContext& ctx, const Rig& rig, const Recorded& rec,
                           const json& base) {
  const double bytes = double(rig.bytes()),
               kernel_bytes = 2.0 * rig.passes * double(rig.kernel_bytes());
  const ConfigRun &h2d_alone = rec.of(configs::h2d), &d2h_alone = rec.of(configs::d2h),
                  &kernel_alone = rec.of(configs::kernel);
  const Series h2d_alone_gbs = bandwidth_gbs(h2d_alone.h2d, bytes),
               d2h_alone_gbs = bandwidth_gbs(d2h_alone.d2h, bytes),
               kernel_alone_gbs = bandwidth_gbs(kernel_alone.kernel, kernel_bytes);
  const auto ratio = [](const Series& a, const Series& b) {
    return Series::zip(a, b, [](double x, double y) { return x / y; });
  };
  for (size_t i = 0; i < std::size(device_configs); ++i) {
    const DeviceConfig& c = device_configs[i];
    const ConfigRun& run = rec.runs[i];
    const bool several = int(c.h2d) + int(c.d2h) + int(c.kernel) > 1;
    json extra = base;
    extra["span_ms"] = run.span.summary().median;
    const auto params = [&](const char* s) -> json {
      return {{config.key, c.name}, {stream.key, s}};
    };
    const auto put = [&](const char* s, const Metric& m, const Series& v, uint64_t wrong,
                         json more = json::object()) {
      json e = extra;
      e["elements_wrong"] = wrong;
      e.update(more);
      ctx.record(make_measurement(params(s), m, v, wrong == 0, std::move(e)));
    };
    if (c.h2d) {
      const Series gbs = bandwidth_gbs(run.h2d, bytes);
      put(streams::h2d, copy_bandwidth, gbs, run.h2d_wrong, {{keys::bytes_moved, bytes}});
      if (several)
        put(streams::h2d, rate_ratio, ratio(gbs, h2d_alone_gbs), run.h2d_wrong);
    }
    if (c.d2h) {
      const Series gbs = bandwidth_gbs(run.d2h, bytes);
      put(streams::d2h, copy_bandwidth, gbs, run.d2h_wrong, {{keys::bytes_moved, bytes}});
      if (several)
        put(streams::d2h, rate_ratio, ratio(gbs, d2h_alone_gbs), run.d2h_wrong);
    }
    if (c.kernel) {
      const Series gbs = bandwidth_gbs(run.kernel, kernel_bytes);
      put(streams::kernel, kernel_bandwidth, gbs, run.kernel_wrong,
          {{keys::bytes_moved, kernel_bytes}, {keys::access_type, access::copy}});
      if (several)
        put(streams::kernel, rate_ratio, ratio(gbs, kernel_alone_gbs), run.kernel_wrong);
    }
    if (c.h2d && c.d2h) {
      const uint64_t wrong = run.h2d_wrong + run.d2h_wrong;
      const Series total = bandwidth_gbs(run.copies, 2 * bytes);
      json more = pcie_both_limit(ctx.device);
      more[keys::bytes_moved] = 2 * bytes;
      put(streams::copies, total_copy_bandwidth, total, wrong, more);
      // Sample i of the total with sample i of each direction alone; flags OR-ed as zip does.
      Series bidir;
      for (size_t k = 0; k < total.size(); ++k)
        bidir.add(bidirectional_ratio_of(total.values()[k], h2d_alone_gbs.values()[k],
                                         d2h_alone_gbs.values()[k]),
                  total.flag(k) | h2d_alone_gbs.flag(k) | d2h_alone_gbs.flag(k));
      bidir.set_stop(stop_fixed, total.noisy());
      json headline = json::object();
      if (!c.kernel)
        headline[keys::headline] = true;
      put(streams::copies, bidirectional_ratio, bidir, wrong, headline);
    }
  }
}

/// The guide's cpuFunction() example: host work while an asynchronous copy and a kernel run.
void run_cpu_overlap(ExperimentContext& ctx, Rig& rig, double target_ms, const json& base) {
  const SamplingPolicy& policy = ctx.options.sampling;
  const cudaStream_t s = rig.h2d_stream.get();
  // The step comes from memory the compiler cannot see through, so the chain is computed.
  volatile uint64_t multiplier = Lcg64{}.multiplier;
  const Lcg64 step{multiplier, Lcg64{}.increment};
  // Calibrate: time a chain, scale it to the target, time again and scale once more.
  uint64_t iterations = 1 << 20;
  for (int round = 0; round < 2; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t x = cpu_function(round + 1, iterations, step);
    const double ms = ms_since(t0);
    if (x == 0x5EED) // keeps the chain's result alive
      iterations += 1;
    iterations = iterations_for_ms(iterations, std::max(ms, 1e-3), target_ms);
  }
  // The guide's device part: the copy into the device buffer, then a kernel over it.
  const auto gpu_issue = [&](uint64_t r) {
    rig.h2d(r, s);
    rig.kernel(r, 1, rig.h2d_dst.get(), rig.words, s);
  };
  uint64_t wrong = 0;
  const auto check_gpu = [&](uint64_t r) {
    wrong += rig.h2d_wrong(r) +
             rig.kernel_wrong(r, 1, ShiftedFill{h2d_seed, rig.offset(r), 0}, rig.words);
  };
  for (int i = 0; i < policy.warmup; ++i) {
    const uint64_t r = rig.sample++;
    rig.prepare(r);
    gpu_issue(r);
    wrong += cpu_function(r, iterations, step) != cpu_function_closed_form(r, iterations, step);
    APOD_CUDA(cudaStreamSynchronize(s));
  }
  in_flight::PointScope point;
  TimedSamples cpu, gpu, both;
  for (int i = 0; i < policy.min_samples; ++i) {
    // The host part alone.
    uint64_t r = rig.sample++;
    auto t0 = std::chrono::steady_clock::now();
    uint64_t x = cpu_function(r, iterations, step);
    cpu.ms.push_back(ms_since(t0));
    wrong += x != cpu_function_closed_form(r, iterations, step);
    // The device part alone, issue to synchronise.
    rig.prepare(r);
    t0 = std::chrono::steady_clock::now();
    gpu_issue(r);
    APOD_CUDA(cudaStreamSynchronize(s));
    gpu.ms.push_back(ms_since(t0));
    check_gpu(r);
    // Both, as the guide issues them: copy, kernel, then cpuFunction(), then synchronise.
    r = rig.sample++;
    rig.prepare(r);
    t0 = std::chrono::steady_clock::now();
    gpu_issue(r);
    x = cpu_function(r, iterations, step);
    APOD_CUDA(cudaStreamSynchronize(s));
    both.ms.push_back(ms_since(t0));
    wrong += x != cpu_function_closed_form(r, iterations, step);
    check_gpu(r);
    const uint8_t flags = policy.check_sample();
    for (TimedSamples* t : {&cpu, &gpu, &both})
      t->excluded.push_back(flags);
  }
  const SamplingWindow window = point.finish();
  for (TimedSamples* t : {&cpu, &gpu, &both}) {
    finish_fixed(*t, policy);
    t->window = window;
  }
  const Series cpu_s(cpu), gpu_s(gpu), both_s(both);
  Series fraction;
  for (size_t i = 0; i < both_s.size(); ++i)
    fraction.add(overlap_fraction_of(cpu.ms[i], gpu.ms[i], both.ms[i]), both.excluded[i]);
  fraction.set_stop(stop_fixed, false);

  json extra = base;
  extra["elements_wrong"] = wrong;
  extra["cpu_iterations"] = iterations;
  extra["kernel_passes"] = 1;
  const auto params = [](const char* st) -> json {
    return {{config.key, configs::cpu_overlap}, {stream.key, st}};
  };
  const bool ok = wrong == 0;
  ctx.record(make_measurement(params(streams::cpu), host_time_ms, cpu_s, ok, extra));
  ctx.record(make_measurement(params(streams::gpu), host_time_ms, gpu_s, ok, extra));
  ctx.record(make_measurement(params(streams::both), host_time_ms, both_s, ok, extra));
  ctx.record(make_measurement(params(streams::both), overlap_fraction, fraction, ok, extra));
}

/// staged_copy's model at the H2D rate measured here beside other work, where staged_copy ran
/// earlier in the run: its chunk time, kernel time and measured total are medians of its points.
void run_staged_check(ExperimentContext& ctx, const Recorded& rec, const json& base) {
  const auto kernel_ms =
      ctx.earlier_median(staged::experiment, staged::kernel_ms.name, {{staged::mode.key, "alone"}});
  if (!kernel_ms)
    return;
  const Series& h2d_alone = rec.of(configs::h2d).h2d;
  for (const char* c : staged_rate_configs) {
    const Series slowdown = Series::zip(rec.of(c).h2d, h2d_alone,
                                        [](double beside, double alone) { return beside / alone; });
    for (const int n : staged_stream_counts()) {
      const auto chunk_ms =
          ctx.earlier_median(staged::experiment, staged::chunk_transfer_ms.name,
                             {{staged::n_streams.key, n}, {staged::mode.key, "chunk"}});
      const json staged_params = {{staged::n_streams.key, n}, {staged::mode.key, "staged"}};
      const auto total_ms =
          ctx.earlier_median(staged::experiment, staged::total_ms.name, staged_params);
      const auto own_model_ms =
          ctx.earlier_median(staged::experiment, staged::model_ms.name, staged_params);
      if (!chunk_ms || !total_ms)
        continue;
      const Series model = slowdown.map(
          [&](double s) { return staged_model_at_rate_ms(*chunk_ms, s, *kernel_ms, n); });
      const Series residual = model.map([&](double m) { return *total_ms / m - 1; });
      json extra = base;
      extra["staged_total_ms"] = *total_ms;
      extra["staged_chunk_ms"] = *chunk_ms;
      extra["staged_kernel_ms"] = *kernel_ms;
      if (own_model_ms)
        extra["staged_model_alone_ms"] = *own_model_ms;
      extra["copy_slowdown"] = slowdown.summary().median;
      const json params = {{config.key, c}, {stream.key, streams::staged}, {n_streams.key, n}};
      ctx.record(make_measurement(params, staged_model_ms, model, true, extra));
      ctx.record(make_measurement(params, staged_residual, residual, true, extra));
    }
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // The kernel's buffers at least four times the L2, so that its passes run from DRAM also at
  // --quick sizes.
  const size_t copy_bytes = buffer_bytes(ctx.options.quick);
  const size_t kernel_bytes =
      std::max<size_t>(copy_bytes, (size_t(ctx.device.l2_bytes) * 4 + 4095) / 4096 * 4096);
  Rig rig(copy_bytes, kernel_bytes, std::max(1, ctx.device.sm_count));
  const json base = {{"bytes", rig.bytes()},
                     {"kernel_bytes", rig.kernel_bytes()},
                     {"copy_engines", ctx.device.copy_engines},
                     {"threads_per_block", threads_per_block},
                     {"blocks", rig.blocks}};

  Recorded rec;
  for (const DeviceConfig& c : device_configs) {
    if (std::string(c.name) == configs::kernel) {
      // The kernel lasts a quarter longer than the H2D copy alone, so that it runs through both
      // copies at once too (the first H100 run: 6.1 ms for both against 4.9 for one).
      rig.passes = passes_for(pass_ms(rig),
                              kernel_over_copy * rec.runs.front().h2d.summary().median, max_passes);
    }
    rec.runs.push_back(run_config(ctx, rig, c));
  }
  json device_base = base;
  device_base["kernel_passes"] = rig.passes;
  device_base[keys::seed] = h2d_seed;
  record_device_configs(ctx, rig, rec, device_base);
  run_cpu_overlap(ctx, rig, rec.of(configs::h2d).h2d.summary().median, base);
  run_staged_check(ctx, rec, base);
}

} // namespace

APOD_EXPERIMENT(engines::experiment, run);

} // namespace apod
