// The roofline (notes on CUDA, shared/seeds/002_...: peak FLOPS = clock x SMs x lanes x 2, peak
// FLOPS / peak bandwidth = the operations a kernel must do per byte to stop being memory-bound,
// achievable GFLOPS = actual bandwidth / GMAC). One kernel reads a large array, runs k fused
// multiply-adds on each element and writes it back; k is swept from 1 (memory-bound) to well past
// the machine balance (compute-bound), in FP32 and FP64. Each point stores its FLOPs and bytes, the
// theoretical roofline min(peak, intensity x theoretical DRAM bandwidth) as its limit and the
// achievable one (the same run's peak_copy bandwidth) as its model; the best point per precision
// is stored against the theoretical peak with the machine balance.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/theory.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr int chains_per_thread = 4; // independent chains per thread: FMA latency is hidden
constexpr uint64_t seed = 0x2007F11E;
constexpr size_t host_check_elements = size_t(1) << 14; // checked on the host at each end
constexpr double point_time_cap_s = 0.1; // ~26 points: ~2.6 s at most, if none converges
// Launches per timed sample: the first launch's dirty lines are written back while the second
// runs, inside the events; only the last launch's (at most one L2 of the 2 x 1 GiB it moves)
// can fall after the stop event: under 1.5% of a sample's traffic on an H100 or H200.
constexpr int launches_per_sample = 2;
constexpr size_t min_array_bytes = size_t(1) << 30;
// The DRAM latency the soft-knee model takes when memory_latency did not run earlier in the run:
// what memory_latency measured on the H100 and the H200 (347-350 ns, 2026-11-23 batches).
constexpr double fallback_dram_latency_ns = 350;

using roofline::flop_rate;
using roofline::peak_flop_rate;

// Correctly rounded fused multiply-adds, never contracted or split by the compiler.
__device__ inline float fused(float x, float a, float b) {
  return __fmaf_rn(x, a, b);
}
__device__ inline double fused(double x, double a, double b) {
  return __fma_rn(x, a, b);
}

// Which of the chain_table_size input values element i holds (host and device agree).
__host__ __device__ inline uint32_t table_index(size_t i) {
  return uint32_t(fill_value(seed, i) & (chain_table_size - 1));
}

template <class T> __global__ void fill_from_table_kernel(T* out, size_t n, const T* table) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = table[table_index(i)];
}

// Each thread loads chains_per_thread elements (a warp's k-th loads are consecutive, so coalesced),
// runs `steps` FMAs on each, the chains interleaved, and stores them. The coefficients are
// arguments, so the compiler cannot fold steps together; the unrolled loop keeps the loop's own
// instructions to ~2% of the issue slots at large k.
template <class T>
__global__ void __launch_bounds__(block_size)
    fma_kernel(T* __restrict__ out, const T* __restrict__ in, int steps, T multiplier, T addend) {
  const size_t base = blockIdx.x * size_t(block_size * chains_per_thread) + threadIdx.x;
  T v[chains_per_thread];
#pragma unroll
  for (int c = 0; c < chains_per_thread; ++c)
    v[c] = in[base + c * block_size];
#pragma unroll 32
  for (int k = 0; k < steps; ++k) {
#pragma unroll
    for (int c = 0; c < chains_per_thread; ++c)
      v[c] = fused(v[c], multiplier, addend);
  }
#pragma unroll
  for (int c = 0; c < chains_per_thread; ++c)
    out[base + c * block_size] = v[c];
}

// Every output against the host's chain for its input value: exact, see model.hpp.
template <class T>
__global__ void count_wrong_kernel(const T* out, size_t n, const T* expected,
                                   unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    local += !(out[i] == expected[table_index(i)]); // NaN (the poison) never matches
  if (local)
    atomicAdd(wrong, local);
}

/// The device's roof for one precision; bandwidths in GB/s.
struct Roof {
  std::optional<double> peak_gflops; // theoretical, from the lanes table
  double theoretical_gbs = 0;
  double model_gbs = 0; // achievable: peak_copy's, or this sweep's best
  std::string model_source;
  double latency_ns = fallback_dram_latency_ns; // DRAM latency, for the soft knee
  std::string latency_source;
  int warps_per_sm = 0; // resident warps of the kernel
};

/// One timed point before it becomes a record.
struct Point {
  int fma_per_element = 0;
  size_t elements = 0;
  Series ms;
  bool verified = false;
  json facts;
};

template <class T> struct Arrays {
  explicit Arrays(size_t bytes)
      : in(bytes / sizeof(T)), out(bytes / sizeof(T)), table(chain_table_size) {}
  DeviceBuffer<T> in, out, table;
  DeviceBuffer<unsigned long long> wrong{1};
};

// Counts wrong outputs on the device, then compares the first and last host_check_elements on the
// host, independently of the device's comparison.
template <class T>
json check(ExperimentContext& ctx, Arrays<T>& a, const std::vector<T>& expected, bool& ok) {
  const size_t n = a.out.size();
  APOD_CUDA(cudaMemcpy(a.table.get(), expected.data(), expected.size() * sizeof(T),
                       cudaMemcpyHostToDevice));
  APOD_CUDA(cudaMemset(a.wrong.get(), 0, sizeof(unsigned long long)));
  count_wrong_kernel<<<4 * ctx.device.sm_count, 512>>>(a.out.get(), n, a.table.get(),
                                                       a.wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long wrong = 0;
  APOD_CUDA(cudaMemcpy(&wrong, a.wrong.get(), sizeof wrong, cudaMemcpyDeviceToHost));
  std::vector<T> head(host_check_elements), tail(host_check_elements);
  APOD_CUDA(cudaMemcpy(head.data(), a.out.get(), head.size() * sizeof(T), cudaMemcpyDeviceToHost));
  APOD_CUDA(cudaMemcpy(tail.data(), a.out.get() + n - tail.size(), tail.size() * sizeof(T),
                       cudaMemcpyDeviceToHost));
  size_t host_wrong = 0;
  for (size_t i = 0; i < host_check_elements; ++i) {
    host_wrong += !(head[i] == expected[table_index(i)]);
    host_wrong += !(tail[i] == expected[table_index(n - host_check_elements + i)]);
  }
  ok = wrong == 0 && host_wrong == 0;
  return {{"elements_wrong", wrong},
          {"host_elements_wrong", host_wrong},
          {"host_elements_checked", 2 * host_check_elements}};
}

template <class T>
std::vector<Point> sweep(ExperimentContext& ctx, size_t array_bytes,
                         const std::vector<int>& counts) {
  Arrays<T> a(array_bytes);
  const size_t n = a.in.size();
  const std::vector<T> inputs = chain_inputs<T>();
  APOD_CUDA(
      cudaMemcpy(a.table.get(), inputs.data(), inputs.size() * sizeof(T), cudaMemcpyHostToDevice));
  fill_from_table_kernel<<<1024, 256>>>(a.in.get(), n, a.table.get());
  APOD_CUDA_LAUNCH();
  const unsigned grid = unsigned(n / (block_size * chains_per_thread));
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);

  std::vector<Point> points;
  const auto measure = [&](int steps) {
    APOD_CUDA(cudaMemset(a.out.get(), 0xFF, a.out.bytes())); // NaN in either precision
    const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
      for (int l = 0; l < launches_per_sample; ++l) // idempotent: out = chain(in)
        fma_kernel<T><<<grid, block_size, 0, s>>>(a.out.get(), a.in.get(), steps,
                                                  T(chain_multiplier), T(chain_addend));
      APOD_CUDA_LAUNCH();
    });
    Point p{steps, n, Series(t).map([](double ms) { return ms / launches_per_sample; })};
    p.facts = check(ctx, a, chain_outputs(inputs, steps), p.verified);
    p.facts["kernel"] = kernel_facts(fma_kernel<T>, block_size, grid);
    p.facts["launches_per_sample"] = launches_per_sample;
    points.push_back(std::move(p));
  };
  std::vector<int> done;
  std::vector<double> rates; // FMAs per ms: proportional to FLOP/s at a fixed array
  const auto measure_rate = [&](int steps) {
    measure(steps);
    done.push_back(steps), rates.push_back(steps / points.back().ms.summary().median);
  };
  for (int steps : counts)
    measure_rate(steps);
  // Past the planned counts while the curve still climbs: the peak is where it is flat.
  while (const auto next = next_fma_count(done, rates))
    measure_rate(*next);
  return points;
}

double median_gbs(const Point& p, int element_bytes) {
  const double bytes = bytes_per_element(element_bytes) * double(p.elements);
  return bandwidth_gbs(p.ms, bytes).summary().median;
}

/// The point's record: GFLOP/s per sample, with its limit (theoretical roofline) and model
/// (achievable roofline) beside it.
Measurement record_of(const Point& p, const char* precision, int element_bytes, const Roof& roof,
                      int sm_count) {
  const double intensity = flops_per_byte(p.fma_per_element, element_bytes);
  const double flops = flops_per_element(p.fma_per_element) * double(p.elements);
  const double bytes = bytes_per_element(element_bytes) * double(p.elements);
  json extra = p.facts;
  extra.update({{"flops", flops},
                {keys::bytes_moved, bytes},
                {"elements", p.elements},
                {"model_bandwidth_gbs", roof.model_gbs},
                {"model_bandwidth_source", roof.model_source}});
  if (roof.peak_gflops) {
    extra["peak_gflops"] = *roof.peak_gflops;
    extra[keys::limit] = roofline_gflops(intensity, *roof.peak_gflops, roof.theoretical_gbs);
    extra[keys::limit_label] = "theoretical roofline: min(peak FLOP/s, intensity x DRAM bandwidth)";
    if (roof.model_gbs > 0 && roof.warps_per_sm > 0) {
      const double share =
          waiting_share(roof.model_gbs, roof.latency_ns, sm_count, roof.warps_per_sm,
                        double(chains_per_thread) * 32 * element_bytes);
      extra["achievable_roofline_gflops"] =
          roofline_gflops(intensity, *roof.peak_gflops, roof.model_gbs);
      extra["waiting_share"] = share;
      extra["dram_latency_ns"] = roof.latency_ns;
      extra["dram_latency_source"] = roof.latency_source;
      extra["warps_per_sm"] = roof.warps_per_sm;
      extra[keys::model] =
          soft_roofline_gflops(intensity, *roof.peak_gflops, roof.model_gbs, share);
    }
  }
  const Series gflops = p.ms.map([flops](double ms) { return flops / (ms * 1e6); });
  return make_measurement({{roofline::precision.key, precision},
                           {roofline::fma.key, p.fma_per_element},
                           {roofline::intensity.key, intensity}},
                          flop_rate, gflops, p.verified, std::move(extra));
}

/// The best verified point of a precision, read against the theoretical peak, with the machine
/// balance (theoretical and against the model's bandwidth).
Measurement peak_of(const std::vector<Measurement>& records, const char* precision,
                    const Roof& roof, int lanes) {
  const Measurement* best = nullptr;
  double best_median = 0;
  for (const auto& m : records) {
    const double median = summarize(m.used_samples()).median;
    if (m.ok() && (!best || median > best_median))
      best = &m, best_median = median;
  }
  json extra = {{"lanes_per_sm", lanes}};
  if (roof.peak_gflops) {
    extra[keys::limit] = *roof.peak_gflops;
    extra[keys::limit_label] = "theoretical peak: SM clock x SMs x lanes per SM x 2";
    extra[roofline::machine_balance_key] = machine_balance(*roof.peak_gflops, roof.theoretical_gbs);
    if (roof.model_gbs > 0)
      extra["machine_balance_achievable"] = machine_balance(*roof.peak_gflops, roof.model_gbs);
  }
  if (!best) {
    Measurement m = make_measurement({{roofline::precision.key, precision}}, peak_flop_rate,
                                     Series(), false, std::move(extra));
    m.error = "no sweep point verified";
    return m;
  }
  extra["winner"] = best->params;
  const Series s(best->samples, best->excluded, best->stop_reason, best->noisy);
  return make_measurement({{roofline::precision.key, precision}}, peak_flop_rate, s, true,
                          std::move(extra));
}

template <class T>
void run_precision(ExperimentContext& ctx, const char* precision, int lanes, size_t array_bytes,
                   Roof roof) {
  int blocks_per_sm = 0;
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fma_kernel<T>, block_size, 0));
  roof.warps_per_sm = blocks_per_sm * block_size / 32;
  std::vector<Point> points =
      sweep<T>(ctx, array_bytes, roofline::counts_for(ctx.device, sizeof(T), ctx.options.quick));
  if (roof.model_gbs <= 0) { // run alone: this sweep's own best bandwidth stands in
    for (const auto& p : points)
      if (p.verified)
        roof.model_gbs = std::max(roof.model_gbs, median_gbs(p, sizeof(T)));
    roof.model_source = "best bandwidth of this sweep (no peak_copy earlier in the run)";
  }
  std::vector<Measurement> records;
  for (const auto& p : points)
    records.push_back(record_of(p, precision, sizeof(T), roof, ctx.device.sm_count));
  Measurement peak = peak_of(records, precision, roof, lanes);
  if (roof.peak_gflops)
    peak.extra["sm_clock_khz"] = ctx.device.sm_clock_khz;
  for (auto& m : records)
    ctx.record(std::move(m));
  ctx.record(std::move(peak));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceInfo& d = ctx.device;
  // Each array at least 1 GiB and 4x the L2 (the working set is twice that), so what the L2
  // still holds dirty at the stop event is a small part of a sample, and whole tiles.
  const size_t tile = size_t(block_size) * chains_per_thread * sizeof(double);
  const size_t wanted = std::max<size_t>(4 * size_t(d.l2_bytes),
                                         ctx.options.quick ? size_t(64) << 20 : min_array_bytes);
  const size_t array_bytes = (wanted + tile - 1) / tile * tile;

  const std::optional<FmaLanesPerSm> lanes = fma_lanes_per_sm(d.cc_major, d.cc_minor);
  Roof roof;
  roof.theoretical_gbs = d.theoretical_bandwidth_gbs();
  if (auto peak = ctx.achievable_peak_gbs(access::copy)) { // reads `in`, writes `out`
    roof.model_gbs = *peak;
    roof.model_source = "peak_copy's achievable copy bandwidth of this run";
  }
  if (auto ns = ctx.earlier_median("memory_latency", "latency_ns", {{"level", "dram"}})) {
    roof.latency_ns = *ns;
    roof.latency_source = "memory_latency's DRAM latency of this run";
  } else {
    roof.latency_source = "memory_latency's H100/H200 figure (it did not run earlier)";
  }
  Roof fp32 = roof, fp64 = roof;
  if (lanes) {
    fp32.peak_gflops = peak_gflops(d.sm_count, lanes->fp32, d.sm_clock_khz);
    fp64.peak_gflops = peak_gflops(d.sm_count, lanes->fp64, d.sm_clock_khz);
  }
  run_precision<float>(ctx, "fp32", lanes ? lanes->fp32 : 0, array_bytes, fp32);
  run_precision<double>(ctx, "fp64", lanes ? lanes->fp64 : 0, array_bytes, fp64);
}

} // namespace

APOD_EXPERIMENT(roofline::experiment, run);

} // namespace apod
