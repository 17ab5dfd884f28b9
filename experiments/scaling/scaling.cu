// Amdahl's and Gustafson's laws measured, CUDA C++ Best Practices Guide 3.1.3 (shared/seeds/000_...).
// A workload of a fixed serial host phase (a reduction over a fixed array, whose result the GPU
// phase uses) followed by a compute-bound GPU phase (a chain of FMAs per element) runs with the
// GPU phase confined to N SMs by green contexts (CUDA 12.4+ driver API). Strong scaling keeps the
// problem fixed; weak scaling grows it with the SM count. The measured speed-ups are fitted to the
// laws (runner/fit.cpp) for the parallel fraction P. Shrinking the grid instead of the SMs would
// measure something else (fewer waves, not fewer processors), so without green contexts the
// experiment fails rather than pretend.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "fit.hpp"
#include "green_context.cuh"
#include "core/sampling.hpp"
#include "core/theory.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr uint64_t seed = 0x5CA11AB1E;
constexpr float fma_addend = 0.5f;
constexpr size_t verified_samples = 1024;  // elements per point recomputed on the host

/// The SM partitions (runner/green_context.cu): every size the driver can split below the total,
/// then all SMs. Quick mode: the two smallest and all.
std::vector<std::unique_ptr<SmPartition>> make_partitions(const ExperimentContext& ctx, json& facts) {
  auto parts = sm_partitions(ctx.device.ordinal, ctx.options.quick ? 2 : 0, facts);
  if (parts.size() < 3) throw std::runtime_error("green contexts gave fewer than 2 SM partitions below the total");
  return parts;
}

// ---- The workload.
__host__ __device__ inline float input_value(uint64_t i) {
  return 1.0f + float(fill_value(seed, i) >> 40) * 0x1p-24f;  // [1, 2): never zero
}

__global__ void init_input_kernel(float* in, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    in[i] = input_value(i);
}

// One dependent FMA chain per element: compute-bound (one load and one store per `iterations`
// FMAs), and each element's result is exactly reproducible on the host with std::fmaf.
__global__ void __launch_bounds__(block_size) fma_chain_kernel(float* out, const float* in, size_t n, float a,
                                                               float b, int iterations) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
#pragma unroll 16  // keeps loop overhead out of the FMA pipe's issue slots
  for (int k = 0; k < iterations; ++k) x = fmaf(x, a, b);
  out[i] = x;
}

/// The serial phase: a host reduction (the mean of a fixed array), sized once so that it takes
/// about target_ms on this host. Its result sets the GPU phase's multiplier, as a serial setup
/// step feeds a parallel one.
class SerialPhase {
 public:
  explicit SerialPhase(double target_ms) {
    resize(size_t(1) << 20);
    double best_ms = 1e30;
    for (int i = 0; i < 5; ++i) best_ms = std::min(best_ms, timed().ms);
    resize(std::clamp<size_t>(size_t(double(data_.size()) * target_ms / best_ms), 1 << 12, size_t(1) << 27));
  }
  struct Result { double ms; float multiplier; };
  Result timed() const {
    const auto t0 = std::chrono::steady_clock::now();
    double sum = 0;
    for (double v : data_) sum += v;  // in order: a dependent chain the compiler may not reorder
    sink_ = sum;  // observed, so the reduction is never elided (calibration ignores the result)
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return {ms, 1.0f - float(sum / double(data_.size())) * 1e-3f};
  }
  size_t elements() const { return data_.size(); }

 private:
  void resize(size_t n) {
    data_.resize(n);
    for (size_t i = 0; i < n; ++i) data_[i] = double(fill_value(seed ^ 0xF00D, i) >> 11) * 0x1p-53;
  }
  std::vector<double> data_;
  mutable volatile double sink_ = 0;
};

struct Point {
  Point(std::string law, const SmPartition* part, double n, size_t elements)
      : law(std::move(law)), part(part), n(n), elements(elements) {}
  std::string law;  // strong | weak
  const SmPartition* part;
  double n;         // SMs over the smallest partition's SMs
  size_t elements;
  std::vector<double> serial_ms, parallel_ms, speedup;
  std::vector<uint8_t> excluded, speedup_excluded;  // the monitor's flags per repetition
  bool verified = false;
};

struct Workload {
  DeviceBuffer<float> in, out;
  int iterations;
};

std::pair<double, double> run_once(const Point& p, const SerialPhase& serial, Workload& w, EventPair& events) {
  const auto s = serial.timed();
  const cudaStream_t stream = p.part->stream();
  events.start(stream);
  fma_chain_kernel<<<unsigned((p.elements + block_size - 1) / block_size), block_size, 0, stream>>>(
      w.out.get(), w.in.get(), p.elements, s.multiplier, fma_addend, w.iterations);
  APOD_CUDA_LAUNCH();
  events.stop(stream);
  return {s.ms, events.elapsed_ms()};
}

/// Poisons the output, runs the point once more, and checks every element was written and a
/// spread of elements equals the host's std::fmaf chain bit for bit.
bool verify(const Point& p, const SerialPhase& serial, Workload& w, EventPair& events) {
  APOD_CUDA(cudaMemsetAsync(w.out.get(), 0xFF, p.elements * sizeof(float), p.part->stream()));
  run_once(p, serial, w, events);
  APOD_CUDA(cudaStreamSynchronize(p.part->stream()));
  std::vector<float> got(p.elements);
  APOD_CUDA(cudaMemcpy(got.data(), w.out.get(), p.elements * sizeof(float), cudaMemcpyDeviceToHost));
  const float a = serial.timed().multiplier;
  const size_t unwritten = parallel_count(p.elements, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &got[i], 4);
      bad += bits == 0xFFFFFFFFu;
    }
    return bad;
  });
  const size_t wrong = parallel_count(verified_samples, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t j = b; j < e; ++j) {
      const size_t i = j == verified_samples - 1 ? p.elements - 1 : j * (p.elements / verified_samples);
      float x = input_value(i);
      for (int k = 0; k < w.iterations; ++k) x = std::fmaf(x, a, fma_addend);
      bad += std::memcmp(&x, &got[i], 4) != 0;
    }
    return bad;
  });
  return unwritten == 0 && wrong == 0;
}

Measurement make(const Point& p, const char* metric, const char* unit, Direction dir, std::vector<double> samples,
                 const std::vector<uint8_t>& excluded) {
  Measurement m;
  m.params = {{"law", p.law}, {"sm_count", p.part->sm_count()}};
  m.metric = metric;
  m.unit = unit;
  m.direction = dir;
  m.samples = std::move(samples);
  m.verified = p.verified;
  m.extra = {{"n", p.n}, {"elements", p.elements}, {"context", p.part->green() ? "green" : "primary"}};
  apply_fixed_exclusions(m, excluded);
  return m;
}

/// Per-repetition fits (the samples) and one fit of the points' medians (the residuals).
void record_fits(ExperimentContext& ctx, const std::string& law, const std::vector<Point*>& points, int reps,
                 const json& facts) {
  const ScalingLaw model = law == "strong" ? ScalingLaw::amdahl : ScalingLaw::gustafson;
  std::vector<double> n, medians, fractions;
  for (const Point* p : points)
    n.push_back(p->n), medians.push_back(summarize(used_values(p->speedup, p->speedup_excluded)).median);
  std::vector<uint8_t> excluded;  // a repetition's fit is left out when any of its points was
  for (const Point* p : points) merge_excluded(excluded, p->speedup_excluded);
  for (int r = 0; r < reps; ++r) {
    std::vector<double> s;
    for (const Point* p : points) s.push_back(p->speedup[r]);
    fractions.push_back(fit_parallel_fraction(model, n, s).parallel_fraction);
  }
  const ScalingFit fit = fit_parallel_fraction(model, n, medians);
  json residuals = json::array();
  for (size_t i = 0; i < points.size(); ++i)
    residuals.push_back({{"sm_count", points[i]->part->sm_count()}, {"n", n[i]}, {"measured", medians[i]},
                         {"fitted", fit.fitted[i]}, {"residual", fit.residuals[i]}});
  const bool all_verified = std::all_of(points.begin(), points.end(), [](const Point* p) { return p->verified; });

  Measurement m;
  m.params = {{"law", law}};
  m.metric = "fitted_parallel_fraction";
  m.unit = "1";
  m.direction = Direction::higher;
  m.samples = fractions;
  m.verified = all_verified;
  m.extra = facts;
  m.extra["model"] = law == "strong" ? "Amdahl: S = 1 / ((1 - P) + P / N)" : "Gustafson: S = N + (1 - P)(1 - N)";
  m.extra["samples_are"] = "one least-squares fit per repetition";
  m.extra["fit_of_medians"] = fit.parallel_fraction;
  m.extra["rms_residual"] = fit.rms_residual;
  m.extra["residuals"] = residuals;
  apply_fixed_exclusions(m, excluded);
  if (law == "strong") {
    Measurement limit = m;
    limit.metric = "amdahl_limit";
    limit.unit = "x";
    limit.samples.clear();
    for (double p : fractions) limit.samples.push_back(amdahl_limit(p));
    limit.extra["fit_of_medians"] = amdahl_limit(fit.parallel_fraction);
    if (!std::all_of(limit.samples.begin(), limit.samples.end(), [](double v) { return std::isfinite(v); }))
      limit.error = "a fit gave P = 1: no finite Amdahl limit";
    ctx.record(std::move(m));
    ctx.record(std::move(limit));
  } else {
    ctx.record(std::move(m));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  APOD_CUDA(cudaFree(nullptr));  // the primary context first, as cuGreenCtxCreate advises
  const bool quick = ctx.options.quick;
  json facts;
  const auto parts = make_partitions(ctx, facts);

  int resident_blocks = 0;  // blocks of the chain kernel one SM holds at once
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, fma_chain_kernel, block_size, 0));
  const SerialPhase serial(quick ? 0.2 : 2.0);
  const int base_sms = parts.front()->sm_count(), total_sms = parts.back()->sm_count();
  // Strong: 16 full waves on the whole GPU (tens of ms on 8 SMs against ~2 ms serial: P > 0.9).
  // Weak: 64 full waves on every partition, so each point's GPU phase ideally takes the same time.
  const size_t wave = size_t(resident_blocks) * block_size;
  const size_t strong_elements = wave * total_sms * (quick ? 4 : 16);
  std::vector<Point> points;
  for (const auto& part : parts)
    points.emplace_back("strong", part.get(), double(part->sm_count()) / base_sms, strong_elements);
  for (const auto& part : parts)
    points.emplace_back("weak", part.get(), double(part->sm_count()) / base_sms,
                        wave * part->sm_count() * (quick ? 8 : 64));
  size_t max_elements = 0;
  for (const auto& p : points) max_elements = std::max(max_elements, p.elements);
  Workload w{DeviceBuffer<float>(max_elements), DeviceBuffer<float>(max_elements), quick ? 1024 : 8192};
  init_input_kernel<<<1024, 256>>>(w.in.get(), max_elements);
  APOD_CUDA_LAUNCH();
  APOD_CUDA(cudaDeviceSynchronize());

  // Repetitions outer, points inner: drift in clocks or host load spreads over every point alike,
  // and repetition r of every point forms one curve to fit.
  EventPair events;
  const int warmup = std::max(1, ctx.options.sampling.warmup), reps = std::max(1, ctx.options.sampling.min_samples);
  for (int r = -warmup; r < reps; ++r)
    for (auto& p : points) {
      const auto [serial_ms, parallel_ms] = run_once(p, serial, w, events);
      if (r < 0) continue;  // warm-up
      p.serial_ms.push_back(serial_ms), p.parallel_ms.push_back(parallel_ms);
      p.excluded.push_back(ctx.options.sampling.check_sample());
    }
  for (auto& p : points) p.verified = verify(p, serial, w, events);

  for (const std::string law : {"strong", "weak"}) {
    std::vector<Point*> curve;
    for (auto& p : points)
      if (p.law == law) curve.push_back(&p);
    const Point& base = *curve.front();
    for (Point* p : curve) {
      for (int r = 0; r < reps; ++r) {
        const double t = p->serial_ms[r] + p->parallel_ms[r];
        p->speedup.push_back(law == "strong" ? (base.serial_ms[r] + base.parallel_ms[r]) / t
                                             : (p->serial_ms[r] + p->n * base.parallel_ms[r]) / t);
      }
      p->speedup_excluded = p->excluded;
      merge_excluded(p->speedup_excluded, base.excluded);
      Measurement s = make(*p, "speedup", "x", Direction::higher, p->speedup, p->speedup_excluded);
      s.extra["base_sm_count"] = base_sms;
      s.extra["iterations"] = w.iterations;
      s.extra["serial_elements"] = serial.elements();
      s.extra["resident_blocks_per_sm"] = resident_blocks;
      ctx.record(std::move(s));
      ctx.record(make(*p, "serial_ms", "ms", Direction::lower, p->serial_ms, p->excluded));
      ctx.record(make(*p, "parallel_ms", "ms", Direction::lower, p->parallel_ms, p->excluded));
    }
    record_fits(ctx, law, curve, reps, facts);
  }
}

}  // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "scaling",
    .title = "Amdahl and Gustafson: speed-up against SM count",
    .description =
        "A serial host phase (a reduction over a fixed array sized to take ~2 ms, whose result feeds "
        "the GPU phase) followed by a compute-bound GPU phase (8192 dependent FMAs per element) whose "
        "SMs are limited with green contexts: partitions of 8, 16, ... SMs, and all SMs through the "
        "primary context (sm_count). "
        "N = sm_count / the smallest partition's SM count (8 on Hopper). Strong scaling: a fixed "
        "problem, S(N) = T(base) / T(N) with T = serial + parallel time. Weak scaling: the problem "
        "grows with the SMs, S(N) = (serial + N x parallel time at the base) / (serial + parallel), "
        "Gustafson's scaled speed-up. Repetitions run every point in turn; each repetition's curve "
        "is fitted by least squares for P (fitted_parallel_fraction samples; amdahl_limit = "
        "1 / (1 - P) for strong scaling); extra holds each fit's residuals at the points' medians. "
        "Each point's output is checked: every element written, 1024 of them equal to the host's "
        "std::fmaf chain bit for bit.",
    .citation = "CUDA C++ Best Practices Guide 3.1.3 (Amdahl's law, Gustafson's law); CUDA Driver API, Green Contexts",
    .version = 1,
    .order = 80,
    .chart = {.metric = "speedup", .x = "sm_count", .x_title = "SMs (green-context partition)", .color = "law",
              .limit = LimitKind::none},
    .run = run,
});

}  // namespace apod
