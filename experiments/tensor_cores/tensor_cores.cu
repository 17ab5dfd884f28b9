// Tensor cores (issue 21): the dense matrix-multiply rate of each input precision two ways, the
// instruction's peak from apod's own mma.sync loop (mma_peak.cu) and the library's achievable
// rate from cuBLASLt GEMMs (cublaslt_gemm.cu), each against the theoretical dense rate
// (tensor_model.cpp) and, for the GEMMs, the roofline of their arithmetic intensity. The headline
// points (each precision's mma loop and its largest GEMM) sample for at least 0.12 s, so the
// GPU's energy counter gives the power drawn during them and the rate per watt.
#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "cublaslt_gemm.cuh"
#include "declaration.hpp"
#include "mma_peak.cuh"
#include "power_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod::tensor {
namespace {

constexpr uint64_t seed_a = 0xA11CE5;
constexpr uint64_t seed_b = 0xB0B5EED;
constexpr int entries_checked = 64;
constexpr size_t workspace_bytes = size_t(32) << 20;
// A headline sample lasts about this long, so 10 samples span >= 0.25 s: at least two steps of
// the energy counter (about 0.1 s apart on an H100) fall inside.
constexpr double headline_sample_ms = 25;
constexpr double quick_sample_ms = 2;
constexpr double headline_point_cap_s = 0.3;
constexpr int max_samples = 40;            // a point whose samples all stay noisy ends here
constexpr double sweep_point_cap_s = 0.05; // the smaller GEMMs: a short look, no power figure

/// The theoretical dense rate of a precision on this device, if known.
struct Theory {
  std::optional<int> ops_per_clock_per_sm;
  std::optional<double> peak_tflops;
};

Theory theory_of(const DeviceInfo& d, Precision p) {
  Theory t;
  t.ops_per_clock_per_sm = dense_ops_per_clock_per_sm(p, d.cc_major, d.cc_minor);
  if (t.ops_per_clock_per_sm && d.sm_clock_khz > 0)
    t.peak_tflops = peak_tflops(d.sm_count, *t.ops_per_clock_per_sm, d.sm_clock_khz);
  return t;
}

// Each element of a matrix holds the bit pattern of a small integer, input_value(seed, i).
template <class Word>
__global__ void fill_matrix_kernel(Word* out, size_t n, Precision p, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = Word(encode_bits(p, input_value(seed, i)));
}

void fill_matrix(void* out, size_t elements, Precision p, uint64_t seed) {
  switch (input_bytes(p)) {
  case 1:
    fill_matrix_kernel<<<1024, 256>>>(static_cast<uint8_t*>(out), elements, p, seed);
    break;
  case 2:
    fill_matrix_kernel<<<1024, 256>>>(static_cast<uint16_t*>(out), elements, p, seed);
    break;
  case 4:
    fill_matrix_kernel<<<1024, 256>>>(static_cast<uint32_t*>(out), elements, p, seed);
    break;
  default:
    fill_matrix_kernel<<<1024, 256>>>(static_cast<uint64_t*>(out), elements, p, seed);
  }
  APOD_CUDA_LAUNCH();
}

/// The power during the point's sampling (step-aligned energy, power_window.hpp) and the rate
/// per watt; nothing when the counter made fewer than two steps during it.
json power_of(const Series& rate, std::optional<double> watts, double span_s) {
  json j = json::object();
  if (watts && *watts > 0) {
    j["watts"] = *watts;
    j["tflops_per_watt"] = rate.summary().median / *watts;
    j["energy_span_s"] = span_s;
  }
  return j;
}

/// The median of the SM clocks measured over the samples (at the power cap, well under the
/// maximum the theoretical rate is computed at); nothing when none was measured.
json clock_of(const Series& rate) {
  std::vector<double> clocks;
  for (const double mhz : rate.sm_clock_mhz())
    if (mhz == mhz)
      clocks.push_back(mhz);
  if (clocks.empty())
    return json::object();
  return {{"sm_clock_median_mhz", summarize(clocks).median}};
}

json theory_extra(const Theory& t, const DeviceInfo& d) {
  json j = json::object();
  if (t.peak_tflops) {
    j["peak_tflops"] = *t.peak_tflops;
    j["ops_per_clock_per_sm"] = *t.ops_per_clock_per_sm;
    j["sm_clock_khz"] = d.sm_clock_khz;
  }
  return j;
}

// 64 entries (i, j) of D, computed in double on the host from the same inputs.
json check_gemm(Precision p, int n, const void* d, bool& ok) {
  uint64_t state = 0xC0FFEE ^ uint64_t(n);
  size_t wrong = 0;
  double max_error = 0;
  for (int e = 0; e < entries_checked; ++e) {
    const int i = int(input_hash(state, 2 * e) % uint64_t(n));
    const int j = int(input_hash(state, 2 * e + 1) % uint64_t(n));
    double sum = 0, abs_sum = 0;
    for (int k = 0; k < n; ++k) {
      const double product = double(input_value(seed_a, uint64_t(i) * n + k)) *
                             input_value(seed_b, uint64_t(j) * n + k);
      sum += product, abs_sum += std::fabs(product);
    }
    const size_t at = size_t(j) * n + i; // D is column major
    double got = 0;
    if (p == Precision::fp64) {
      APOD_CUDA(cudaMemcpy(&got, static_cast<const double*>(d) + at, 8, cudaMemcpyDeviceToHost));
    } else if (p == Precision::int8) {
      int32_t v = 0;
      APOD_CUDA(cudaMemcpy(&v, static_cast<const int32_t*>(d) + at, 4, cudaMemcpyDeviceToHost));
      got = v;
    } else {
      float v = 0;
      APOD_CUDA(cudaMemcpy(&v, static_cast<const float*>(d) + at, 4, cudaMemcpyDeviceToHost));
      got = v;
    }
    const double error = std::fabs(got - sum);
    wrong += !(error <= tolerance(p, n, abs_sum)); // NaN (the poison) counts
    if (error == error)
      max_error = std::max(max_error, error);
  }
  ok = wrong == 0;
  return {{"elements_wrong", wrong},
          {"elements_checked", entries_checked},
          {"max_abs_error", max_error},
          {"tolerance", "exact while sum|a b| < 2^24 (2^53 for fp64; int8 always), else 2 k u "
                        "sum|a b|, u the accumulator's unit roundoff (tensor_model.hpp)"}};
}

/// The best verified point among `records`, as the precision's and method's peak.
Measurement peak_of(const std::vector<Measurement>& records, Precision p, const char* how,
                    const Theory& t, const DeviceInfo& d) {
  const Measurement* best = nullptr;
  double best_median = 0;
  for (const auto& m : records) {
    const double median = summarize(m.used_samples()).median;
    if (m.ok() && (!best || median > best_median))
      best = &m, best_median = median;
  }
  const json params = {{precision.key, precision_name(p)}, {method.key, how}};
  json extra = theory_extra(t, d);
  if (t.peak_tflops) {
    extra[keys::limit] = *t.peak_tflops;
    extra[keys::limit_label] = "theoretical dense rate: SM clock x SMs x ops per clock per SM";
  }
  if (!best) {
    Measurement m = make_measurement(params, peak_tensor_rate, Series(), false, std::move(extra));
    m.error = "no point verified";
    return m;
  }
  extra["winner"] = best->params;
  for (const char* key : {"watts", "tflops_per_watt"})
    if (best->extra.contains(key))
      extra[key] = best->extra[key];
  const Series s(best->samples, best->excluded, best->stop_reason, best->noisy);
  return make_measurement(params, peak_tensor_rate, s, true, std::move(extra));
}

/// Each precision's mma.sync loop: its point and its peak.
void run_mma(ExperimentContext& ctx, Precision p, const std::string& library,
             std::vector<Measurement>& peaks) {
  const Theory t = theory_of(ctx.device, p);
  MmaPoint point = measure_mma(ctx, p, ctx.options.quick ? quick_sample_ms : headline_sample_ms);
  const double flops = point.flops_per_launch;
  const Series rate = point.ms.map([flops](double ms) { return flops / (ms * 1e9); });
  json extra = point.facts;
  extra.update(theory_extra(t, ctx.device));
  extra.update(power_of(rate, point.watts, point.energy_span_s));
  extra.update(clock_of(rate));
  extra["flops"] = flops;
  extra["library"] = library;
  if (t.peak_tflops) {
    extra[keys::limit] = *t.peak_tflops;
    extra[keys::limit_label] = "theoretical dense rate: SM clock x SMs x ops per clock per SM";
  }
  std::vector<Measurement> records;
  records.push_back(make_measurement({{precision.key, precision_name(p)}, {method.key, method_mma}},
                                     tensor_rate, rate, point.verified, std::move(extra)));
  peaks.push_back(peak_of(records, p, method_mma, t, ctx.device));
  ctx.record(std::move(records.front()));
}

/// Buffers for the largest GEMM of any precision, allocated once.
struct GemmBuffers {
  explicit GemmBuffers(size_t max_elements)
      : a(max_elements), b(max_elements), d(max_elements), workspace(workspace_bytes) {}
  DeviceBuffer<uint64_t> a, b, d; // 8 bytes per element: room for FP64
  DeviceBuffer<unsigned char> workspace;
};

/// Each precision's cuBLASLt sweep over sizes: its points and its peak. Returns why the
/// precision has no library points ("" when it has).
std::string run_library(ExperimentContext& ctx, CublasLt& lt, GemmBuffers& buffers, Precision p,
                        std::vector<Measurement>& peaks) {
  const DeviceInfo& d = ctx.device;
  const Theory t = theory_of(d, p);
  const std::vector<int> sizes = gemm_sizes(ctx.options.quick);
  const size_t max_elements = size_t(sizes.back()) * sizes.back();
  fill_matrix(buffers.a.get(), max_elements, p, seed_a);
  fill_matrix(buffers.b.get(), max_elements, p, seed_b);
  const double dram_gbs = d.theoretical_bandwidth_gbs();
  std::vector<Measurement> records;
  for (const int n : sizes) {
    LtGemm gemm{.precision = p, .n = n};
    lt.prepare(gemm, workspace_bytes);
    if (!gemm.ready) {
      lt.release(gemm);
      if (records.empty())
        return "cuBLASLt " + std::string(precision_name(p)) + " n=" + std::to_string(n) + ": " +
               gemm.why;
      break;
    }
    const auto gemm_once = [&](cudaStream_t s) {
      lt.run(gemm, buffers.a.get(), buffers.b.get(), buffers.d.get(), buffers.workspace.get(),
             workspace_bytes, s);
    };
    const bool headline = n == sizes.back();
    // Calibration: one untimed GEMM (the library's first call loads its kernel), one timed.
    gemm_once(nullptr);
    EventPair events;
    events.start(nullptr);
    gemm_once(nullptr);
    events.stop(nullptr);
    const double one_ms = std::max(events.elapsed_ms(), 1e-3);
    const double target_ms = ctx.options.quick ? quick_sample_ms : headline_sample_ms;
    const int reps = headline ? std::clamp(int(std::ceil(target_ms / one_ms)), 1, 1000) : 1;
    APOD_CUDA(cudaMemset(buffers.d.get(), 0xFF, size_t(n) * n * output_bytes(p)));
    SamplingPolicy policy = ctx.options.sampling;
    policy.warmup = std::min(policy.warmup, 1);
    policy.max_point_s =
        std::min(policy.max_point_s, headline ? headline_point_cap_s : sweep_point_cap_s);
    policy.max_samples = std::min(policy.max_samples, max_samples);
    CappedMonitor monitor(policy.monitor);
    policy.monitor = &monitor;
    EnergyTicks ticks;
    const Series ms(time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
      for (int r = 0; r < reps; ++r)
        gemm_once(s);
    }));
    const std::optional<double> watts = ticks.stop();
    bool ok = false;
    json extra = check_gemm(p, n, buffers.d.get(), ok);
    extra["samples_throttled"] = monitor.throttled();
    extra["samples_low_clock"] = monitor.low_clock();
    lt.release(gemm);
    const double flops = gemm_flops(n) * reps;
    const Series rate = ms.map([flops](double v) { return flops / (v * 1e9); });
    const double flops_per_byte = gemm_flops_per_byte(n, p);
    extra.update(theory_extra(t, d));
    if (headline)
      extra.update(power_of(rate, watts, ticks.span_s()));
    extra.update(clock_of(rate));
    extra.update({{"flops", flops},
                  {keys::bytes_moved, gemm_bytes(n, p) * reps},
                  {"launches_per_sample", reps},
                  {"library", lt.status()},
                  {"workspace_bytes", workspace_bytes},
                  {"dram_gbs", dram_gbs}});
    if (t.peak_tflops) {
      extra[keys::limit] = std::min(*t.peak_tflops, flops_per_byte * dram_gbs / 1000);
      extra[keys::limit_label] =
          "roofline: min(dense peak, intensity x theoretical DRAM bandwidth)";
    }
    records.push_back(make_measurement({{precision.key, precision_name(p)},
                                        {method.key, method_library},
                                        {size.key, n},
                                        {intensity.key, flops_per_byte}},
                                       tensor_rate, rate, ok, std::move(extra)));
  }
  peaks.push_back(peak_of(records, p, method_library, t, d));
  for (auto& m : records)
    ctx.record(std::move(m));
  return "";
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceInfo& d = ctx.device;
  bool any = false;
  for (const Precision p : all_precisions)
    any = any || mma_supported(p, d.cc_major, d.cc_minor) ||
          library_supported(p, d.cc_major, d.cc_minor);
  if (!any)
    throw ExperimentSkipped("no tensor-core precision measured here runs below compute "
                            "capability 7.5");
  CublasLt lt; // loaded once: its handle and first heuristics are the slow part
  std::vector<Measurement> peaks;
  std::vector<std::string> library_notes(std::size(all_precisions));
  if (lt.loaded()) {
    const std::vector<int> sizes = gemm_sizes(ctx.options.quick);
    GemmBuffers buffers(size_t(sizes.back()) * sizes.back());
    for (size_t i = 0; i < std::size(all_precisions); ++i)
      if (library_supported(all_precisions[i], d.cc_major, d.cc_minor))
        library_notes[i] = run_library(ctx, lt, buffers, all_precisions[i], peaks);
  }
  for (size_t i = 0; i < std::size(all_precisions); ++i) {
    const Precision p = all_precisions[i];
    if (!mma_supported(p, d.cc_major, d.cc_minor))
      continue;
    std::string library = lt.status();
    if (!library_notes[i].empty())
      library += "; " + library_notes[i];
    run_mma(ctx, p, library, peaks);
  }
  // The point that stands for the experiment: FP16's library peak (the buyer's figure), else its
  // instruction peak.
  Measurement* headline = nullptr;
  for (auto& m : peaks)
    if (m.ok() && m.params[precision.key] == precision_name(Precision::fp16) &&
        (!headline || m.params[method.key] == method_library))
      headline = &m;
  if (headline)
    headline->extra[keys::headline] = true;
  for (auto& m : peaks)
    ctx.record(std::move(m));
}

} // namespace

APOD_EXPERIMENT(experiment, run);

} // namespace apod::tensor
