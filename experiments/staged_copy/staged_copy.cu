// Staged concurrent copy and execute, CUDA C++ Best Practices Guide 9.1.2 (shared/seeds/000_...):
// one array copied host-to-device from pinned memory and processed by a kernel, either
// sequentially (the whole copy, then the kernel over all of it) or in nStreams stages, each stream
// copying its own chunk and running the kernel on it, so that one stage's kernel overlaps the next
// stage's copy. The guide's estimate (model.cpp) assumes tE and tT comparable, so the kernel's
// work per element is calibrated at run time until its time matches the measured copy.
#include "declaration.hpp"
#include "model.hpp"

#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace apod {
namespace {

constexpr int threads_per_block = 256; // the guide's nThreads
using staged::stream_counts;
constexpr uint64_t seed = 0x57A6ED;
// Numerical Recipes' LCG step. Its k-fold composition is again affine, so the host checks every
// element with one multiply-add however many steps the kernel took (AffineMap32, affine_power).
constexpr AffineMap32 lcg_step{1664525u, 1013904223u};

// Every sample of a fixed-count timing, with the monitor's flags.
Series series_of(const TimedSamples& t) {
  return Series(t);
}

// The guide's kernel is unspecified; this one does `iterations` dependent integer multiply-adds
// per element, in place, so its time can be set to match the copy's. The step's coefficients are
// arguments, not constants, so the compiler cannot fold several steps into one.
__global__ void lcg_kernel(uint32_t* data, int iterations, uint32_t multiplier,
                           uint32_t increment) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  uint32_t x = data[i];
  for (int k = 0; k < iterations; ++k)
    x = x * multiplier + increment;
  data[i] = x;
}

class OwnedEvent { // ordering only: no timestamps, so recording one is cheap
public:
  OwnedEvent() { APOD_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
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

struct Setup {
  size_t n = 0; // 4-byte words
  PinnedBuffer<uint32_t>& host;
  DeviceBuffer<uint32_t>& device;
  std::vector<uint32_t> result;
  int iterations = 1;

  size_t bytes() const { return n * sizeof(uint32_t); }
  void copy_in(size_t offset, size_t count, cudaStream_t s) const {
    APOD_CUDA(cudaMemcpyAsync(device.get() + offset, host.get() + offset, count * sizeof(uint32_t),
                              cudaMemcpyHostToDevice, s));
  }
  void kernel(size_t offset, size_t count, int iters, cudaStream_t s) const {
    lcg_kernel<<<unsigned(count / threads_per_block), threads_per_block, 0, s>>>(
        device.get() + offset, iters, lcg_step.multiplier, lcg_step.increment);
    APOD_CUDA_LAUNCH();
  }
  /// Brings the device array back and counts the elements that are not `passes` applications
  /// of the kernel (of `iterations` steps each) to the input.
  size_t count_wrong(uint64_t passes) {
    APOD_CUDA(cudaDeviceSynchronize());
    APOD_CUDA(cudaMemcpy(result.data(), device.get(), bytes(), cudaMemcpyDeviceToHost));
    const AffineMap32 expected = affine_power(lcg_step, uint64_t(iterations) * passes);
    return parallel_count(n, [&](size_t b, size_t e) {
      size_t bad = 0;
      for (size_t i = b; i < e; ++i)
        bad += result[i] != expected(host[i]);
      return bad;
    });
  }
  /// After copies of the first `count` words alone: those words that differ from the input.
  size_t count_wrong_in(size_t count) {
    APOD_CUDA(cudaDeviceSynchronize());
    APOD_CUDA(
        cudaMemcpy(result.data(), device.get(), count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return parallel_count(count, [&](size_t b, size_t e) {
      size_t bad = 0;
      for (size_t i = b; i < e; ++i)
        bad += result[i] != host[i];
      return bad;
    });
  }
  void poison() const { APOD_CUDA(cudaMemset(device.get(), 0xA5, bytes())); }
};

double median_kernel_ms(const ExperimentContext& ctx, Setup& setup, int iters, cudaStream_t s) {
  SamplingPolicy few = ctx.options.sampling;
  few.warmup = 1;
  few.min_samples = 3;
  const auto times =
      time_fixed_ms(few, s, [&](cudaStream_t st) { setup.kernel(0, setup.n, iters, st); });
  return series_of(times).summary().median;
}

// Two timed lengths, a straight line through them, one correction with the chosen length.
json calibrate(const ExperimentContext& ctx, Setup& setup, double target_ms, cudaStream_t s) {
  const int iters_a = 128, iters_b = 512;
  const double t_a = median_kernel_ms(ctx, setup, iters_a, s),
               t_b = median_kernel_ms(ctx, setup, iters_b, s);
  int chosen = int(iterations_for_time(iters_a, t_a, iters_b, t_b, target_ms));
  const double t_chosen = median_kernel_ms(ctx, setup, chosen, s);
  json log = json::array({{iters_a, t_a}, {iters_b, t_b}, {chosen, t_chosen}});
  if (chosen != iters_b && std::abs(t_chosen / target_ms - 1) > 0.03) {
    const bool above = chosen > iters_b;
    chosen = int(iterations_for_time(above ? iters_b : chosen, above ? t_b : t_chosen,
                                     above ? chosen : iters_b, above ? t_chosen : t_b, target_ms));
    log.push_back({chosen, median_kernel_ms(ctx, setup, chosen, s)});
  }
  setup.iterations = chosen;
  return log; // [iterations, median ms] pairs, in the order tried
}

// A point's extra with the count of elements its output check found wrong (0: verified).
json with_wrong(json extra, size_t wrong) {
  extra["elements_wrong"] = wrong;
  return extra;
}

// total_ms, model_ms and Amdahl's P for one configuration, each per sample pair, and for the
// sequential one also 1/(1-P). tE and the total are timed apart, so one late launch (a host
// hiccup inside a 0.1 ms --quick sample) can put a tE sample above its total: seen on the H200
// with two GPUs measured at once. Such a pair has P >= 1 and no finite limit; amdahl_limit keeps
// the other pairs and counts the left-out ones in extra.pairs_without_limit (the point fails only
// when no pair has a limit). In a staged configuration the kernel overlaps the copy, so P is the
// share of the total the kernel covers and comes close to 1 with many streams; 1/(1-P) says
// nothing there that the copy time tT does not bound better, so it is not recorded. Series::zip
// takes the i-th sample of each series and leaves a pair out when either was flagged.
// `chunk_transfer`: one stage's chunk copied alone (the whole array for the sequential version
// and one stream); the model's tT(n) is nStreams x it, sample by sample.
void record_configuration(ExperimentContext& ctx, const json& params, int n_streams,
                          const Series& total, const Series& chunk_transfer, const Series& kernel,
                          const json& extra, size_t wrong) {
  const Series model = Series::zip(chunk_transfer, kernel, [n_streams](double t, double e) {
    return staged_estimate_ms(n_streams * t, e, n_streams);
  });
  // P: the share of the total that is the (parallel) kernel; the rest is the copy.
  const Series fraction = Series::zip(total, kernel, [](double all, double e) { return e / all; });
  const bool verified = wrong == 0;
  json e = with_wrong(extra, wrong);
  e[staged::transfer_n_key] = n_streams * chunk_transfer.summary().median; // tT(n), medians
  ctx.record(make_measurement(params, staged::total_ms, total, verified, e));
  ctx.record(make_measurement(params, staged::model_ms, model, verified, e));
  ctx.record(make_measurement(params, staged::parallel_fraction, fraction, verified, e));
  if (params.value(staged::mode.key, "") != "sequential")
    return;

  size_t left_out = 0;
  const Series limit = amdahl_limits(fraction, left_out);
  json limit_extra = e;
  limit_extra["pairs_without_limit"] = left_out;
  Measurement m = make_measurement(params, staged::amdahl_limit, limit, verified, limit_extra);
  if (limit.empty())
    m.error = "every kernel-alone sample was longer than its total: P >= 1 has no Amdahl limit";
  ctx.record(std::move(m));
}

// tT and tE alone over the whole array, and the copy's rate.
void record_alone(ExperimentContext& ctx, const Series& transfer, size_t transfer_wrong,
                  const Series& kernel, size_t kernel_wrong, double bytes, const json& extra) {
  const json alone = {{staged::n_streams.key, 1}, {staged::mode.key, "alone"}};
  const json transfer_extra = with_wrong(extra, transfer_wrong);
  ctx.record(
      make_measurement(alone, staged::transfer_ms, transfer, transfer_wrong == 0, transfer_extra));
  json bandwidth_extra = transfer_extra;
  bandwidth_extra[keys::bytes_moved] = bytes;
  ctx.record(make_measurement(alone, staged::h2d_bandwidth, bandwidth_gbs(transfer, bytes),
                              transfer_wrong == 0, bandwidth_extra));
  ctx.record(make_measurement(alone, staged::kernel_ms, kernel, kernel_wrong == 0,
                              with_wrong(extra, kernel_wrong)));
}

// One stage's chunk copied alone (mode "chunk"): its time and its rate.
void record_chunk(ExperimentContext& ctx, int n_streams, const Series& chunk_transfer, size_t wrong,
                  double chunk_bytes, json extra) {
  const json params = {{staged::n_streams.key, n_streams}, {staged::mode.key, "chunk"}};
  extra["bytes"] = chunk_bytes; // the class case reads it: a chunk under 16 MiB is host-phase
  extra["chunk_bytes"] = chunk_bytes;
  extra = with_wrong(extra, wrong);
  ctx.record(
      make_measurement(params, staged::chunk_transfer_ms, chunk_transfer, wrong == 0, extra));
  extra[keys::bytes_moved] = chunk_bytes;
  ctx.record(make_measurement(params, staged::h2d_bandwidth,
                              bandwidth_gbs(chunk_transfer, chunk_bytes), wrong == 0, extra));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // 256 MiB: the copy takes a few ms at PCIe Gen5 rates, far above launch and event overheads.
  const size_t n = (ctx.options.quick ? (size_t(4) << 20) : (size_t(256) << 20)) / sizeof(uint32_t);
  PinnedBuffer<uint32_t> host(n); // the guide: overlap needs pinned host memory
  DeviceBuffer<uint32_t> device(n);
  parallel_count(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      host[i] = expected_fill<uint32_t>(seed, i);
    return size_t(0);
  });
  Setup setup{n, host, device, std::vector<uint32_t>(n)};
  OwnedStream origin;
  std::vector<OwnedStream> streams(stream_counts[std::size(stream_counts) - 1]);
  OwnedEvent fork;
  std::vector<OwnedEvent> joins(streams.size());
  const SamplingPolicy& policy = ctx.options.sampling;
  const auto s0 = origin.get();

  // tT: the whole array, host to device.
  setup.poison();
  const Series transfer =
      series_of(time_fixed_ms(policy, s0, [&](cudaStream_t s) { setup.copy_in(0, n, s); }));
  const size_t transfer_wrong = setup.count_wrong(0);
  // The calibration target: the median of the copy samples the monitor did not flag.
  const json calibration = calibrate(ctx, setup, transfer.summary().median, s0);

  // tE: the kernel over the whole array, alone; the data goes through warmup + samples passes.
  setup.copy_in(0, n, s0);
  const Series kernel = series_of(
      time_fixed_ms(policy, s0, [&](cudaStream_t s) { setup.kernel(0, n, setup.iterations, s); }));
  const size_t kernel_wrong = setup.count_wrong(policy.warmup + policy.min_samples);

  const json extra = {{"bytes", setup.bytes()},
                      {"words", n},
                      {"kernel_iterations", setup.iterations},
                      {"calibration_iterations_ms", calibration},
                      {"threads_per_block", threads_per_block},
                      {"copy_engines", ctx.device.copy_engines},
                      {keys::seed, seed}};
  record_alone(ctx, transfer, transfer_wrong, kernel, kernel_wrong, double(setup.bytes()), extra);

  // Sequential copy and execute: one copy of everything, then one kernel over everything.
  setup.poison();
  const Series sequential = series_of(time_fixed_ms(policy, s0, [&](cudaStream_t s) {
    setup.copy_in(0, n, s);
    setup.kernel(0, n, setup.iterations, s);
  }));
  record_configuration(ctx, {{staged::n_streams.key, 1}, {staged::mode.key, "sequential"}}, 1,
                       sequential, transfer, kernel, extra, setup.count_wrong(1));

  // Staged: the guide's loop. The streams fork from and join back to `origin`, whose events
  // bracket the whole of it.
  for (const int n_streams : stream_counts) {
    const size_t chunk = n / n_streams;
    // tT(n) = nStreams x one chunk's copy timed alone, at the chunk's own size: a small copy
    // pays its fixed cost in every stage (the review: 50.4 GB/s at 4 MiB against 55 for 256
    // MiB). Copies queued back to back on one stream hide that cost, which the stages, each
    // copy beside its stream's kernel, do not, so they are no stand-in.
    // Each sample copies the next chunk in turn (0, 1, ...), as the stages copy every chunk
    // once, so no one place in the host buffer stands for all of them.
    Series chunk_transfer = transfer;
    if (n_streams > 1) {
      setup.poison();
      size_t copies = 0;
      chunk_transfer = series_of(time_fixed_ms(policy, s0, [&](cudaStream_t s) {
        setup.copy_in((copies++ % n_streams) * chunk, chunk, s);
      }));
      const size_t copied_words = std::min<size_t>(copies, n_streams) * chunk;
      record_chunk(ctx, n_streams, chunk_transfer, setup.count_wrong_in(copied_words),
                   double(chunk * sizeof(uint32_t)), extra);
    }
    setup.poison();
    const Series staged = series_of(time_fixed_ms(policy, s0, [&](cudaStream_t s) {
      APOD_CUDA(cudaEventRecord(fork.get(), s));
      for (int i = 0; i < n_streams; ++i) {
        const cudaStream_t si = streams[i].get();
        APOD_CUDA(cudaStreamWaitEvent(si, fork.get(), 0));
        setup.copy_in(i * chunk, chunk, si);
        setup.kernel(i * chunk, chunk, setup.iterations, si);
        APOD_CUDA(cudaEventRecord(joins[i].get(), si));
        APOD_CUDA(cudaStreamWaitEvent(s, joins[i].get(), 0));
      }
    }));
    json staged_extra = extra;
    staged_extra["chunk_bytes"] = chunk * sizeof(uint32_t);
    record_configuration(ctx, {{staged::n_streams.key, n_streams}, {staged::mode.key, "staged"}},
                         n_streams, staged, chunk_transfer, kernel, staged_extra,
                         setup.count_wrong(1));
  }
}

} // namespace

APOD_EXPERIMENT(staged::experiment, run);

} // namespace apod
