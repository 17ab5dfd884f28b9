// Block size and grid size (CUDA C++ Best Practices Guide, shared/seeds/000_..., 10.3 "Thread and
// Block Heuristics"; Stich's slides, 001_..., "Hiding Latency" and "Launch Configuration:
// Summary"). A grid-stride float4 copy (memory-bound) and 4 FMA chains per thread
// (compute-bound), each launched with 32 to 1024 threads per block on one block per SM, one wave
// and 8 waves; the copy's bandwidth and the FMA rate with each point's resident threads per SM,
// waves and occupancy. Every output is verified.
#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/theory.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

namespace bs = apod::block_size;

// The copy's input: word i of the float view is i mod 2^24, exact in a float.
struct CopyPattern {
  __host__ __device__ float operator()(size_t i) const { return float(i & 0xFFFFFF); }
};

__global__ void fill_pattern(float* data, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] = CopyPattern{}(i);
}

__global__ void __launch_bounds__(1024)
    grid_stride_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
    out[i] = in[i];
}

__global__ void __launch_bounds__(1024) fma_chains(float* __restrict__ out, int steps) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = bs::input_value(int(tid % bs::fma_inputs));
  float c[bs::fma_chains];
#pragma unroll
  for (int i = 0; i < bs::fma_chains; ++i)
    c[i] = x + float(i) / 8.0f;
    // Unrolled 16 steps (64 FMAs) per loop turn, so the loop's own instructions are a few percent.
#pragma unroll 16
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < bs::fma_chains; ++i)
      c[i] = __fmaf_rn(c[i], bs::fma_multiplier, bs::fma_addend);
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < bs::fma_chains; ++i)
    sum += c[i];
  out[tid] = sum;
}

} // namespace

namespace apod {
namespace {

constexpr double point_time_cap_s = 0.03;        // 42 points: ~1.3 s of sampling at most
constexpr double quick_point_time_cap_s = 0.005; // --quick: 12 points
constexpr size_t copy_float4s = size_t(1) << 22; // 64 MiB each way
constexpr size_t quick_copy_float4s = size_t(1) << 20;
constexpr double total_fmas = double(1 << 30), quick_total_fmas = double(1 << 26);

struct Launch {
  int blocks_per_sm = 0;
  int64_t grid = 0;
  json facts(const ExperimentContext& ctx, const bs::Shape& s) const {
    int max_threads = 0;
    APOD_CUDA(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                     ctx.device.ordinal));
    const int per_sm = bs::resident_threads_per_sm(s.grid, s.block_size, blocks_per_sm);
    return {{"grid_size", grid},
            {"blocks_per_sm", blocks_per_sm},
            {"threads_per_sm", per_sm},
            {"waves", double(grid) / (double(blocks_per_sm) * ctx.device.sm_count)},
            {"theoretical_occupancy", max_threads ? double(per_sm) / max_threads : 0.0}};
  }
};

template <class Kernel>
Launch launch_of(const ExperimentContext& ctx, Kernel k, const bs::Shape& s) {
  Launch l;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&l.blocks_per_sm, k, s.block_size, 0));
  l.grid = bs::grid_blocks(s.grid, ctx.device.sm_count, l.blocks_per_sm);
  return l;
}

SamplingPolicy policy_of(const ExperimentContext& ctx, bool flush) {
  SamplingPolicy p = ctx.options.sampling;
  p.max_point_s =
      std::min(p.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  p.flush_l2 = flush;
  return p;
}

json params_of(const bs::Shape& s) {
  return {{bs::kernel.key, s.kernel}, {bs::threads.key, s.block_size}, {bs::grid.key, s.grid}};
}

void measure_copy(ExperimentContext& ctx, const DeviceBuffer<float4>& in,
                  const DeviceBuffer<float4>& out, const bs::Shape& s) {
  const Launch l = launch_of(ctx, grid_stride_copy, s);
  APOD_CUDA(cudaMemset(out.get(), 0xFF, out.bytes())); // NaN: a skipped word shows
  const TimedSamples ms = time_samples_ms(policy_of(ctx, true), nullptr, [&](cudaStream_t st) {
    grid_stride_copy<<<unsigned(l.grid), s.block_size, 0, st>>>(in.get(), out.get(), in.size());
    APOD_CUDA_LAUNCH();
  });
  const double bytes = 2.0 * double(out.bytes());
  const Series gbs = bandwidth_gbs(Series(ms), bytes);
  const OutputCheck check =
      check_output(reinterpret_cast<const float*>(out.get()), out.size() * 4, CopyPattern{});
  json extra = l.facts(ctx, s);
  extra.update(check.facts());
  extra[keys::bytes_moved] = bytes;
  extra[keys::access_type] = access::copy;
  if (const auto peak = ctx.achievable_peak_gbs(access::copy))
    extra["fraction_of_achievable_peak"] = gbs.summary().median / *peak;
  extra[keys::launch] = kernel_facts(grid_stride_copy, s.block_size, unsigned(l.grid));
  ctx.record(make_measurement(params_of(s), metrics::effective_bandwidth, gbs, check.ok(),
                              std::move(extra)));
}

void measure_fma(ExperimentContext& ctx, DeviceBuffer<float>& out, const bs::Shape& s) {
  const Launch l = launch_of(ctx, fma_chains, s);
  const int64_t threads = l.grid * s.block_size;
  const int steps = bs::fma_steps(ctx.options.quick ? quick_total_fmas : total_fmas, threads);
  if (out.size() < size_t(threads))
    out = DeviceBuffer<float>(size_t(threads));
  APOD_CUDA(cudaMemset(out.get(), 0xFF, size_t(threads) * sizeof(float)));
  const TimedSamples ms = time_samples_ms(policy_of(ctx, false), nullptr, [&](cudaStream_t st) {
    fma_chains<<<unsigned(l.grid), s.block_size, 0, st>>>(out.get(), steps);
    APOD_CUDA_LAUNCH();
  });
  const double fmas = double(threads) * steps * bs::fma_chains;
  const Series gflops = Series(ms).map([&](double v) { return 2.0 * fmas / (v * 1e6); });

  std::vector<float> got(static_cast<size_t>(threads));
  APOD_CUDA(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> expected(bs::fma_inputs);
  for (int v = 0; v < bs::fma_inputs; ++v)
    expected[v] = bs::fma_output(bs::input_value(v), steps);
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    wrong += !(got[i] == expected[i % bs::fma_inputs]); // NaN (the poison) never matches

  json extra = l.facts(ctx, s);
  extra["elements_wrong"] = wrong;
  extra["steps_per_thread"] = steps;
  extra["fmas_per_launch"] = fmas;
  if (const auto lanes = fma_lanes_per_sm(ctx.device.cc_major, ctx.device.cc_minor)) {
    const double limit = peak_gflops(ctx.device.sm_count, lanes->fp32, ctx.device.sm_clock_khz);
    extra[keys::limit] = limit;
    extra[keys::limit_label] = "FP32 lanes per SM x SMs x SM clock x 2";
    extra["fraction_of_limit"] = gflops.summary().median / limit;
  }
  extra[keys::launch] = kernel_facts(fma_chains, s.block_size, unsigned(l.grid));
  ctx.record(make_measurement(params_of(s), bs::flop_rate, gflops, wrong == 0, std::move(extra)));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const size_t n = ctx.options.quick ? quick_copy_float4s : copy_float4s;
  DeviceBuffer<float4> in(n), out(n);
  fill_pattern<<<1024, 256>>>(reinterpret_cast<float*>(in.get()), n * 4);
  APOD_CUDA_LAUNCH();
  DeviceBuffer<float> fma_out;
  for (const bs::Shape& s : bs::shapes(ctx.options.quick, ctx.options.full)) {
    if (s.kernel == bs::copy_kernel)
      measure_copy(ctx, in, out, s);
    else
      measure_fma(ctx, fma_out, s);
  }
}

} // namespace

APOD_EXPERIMENT(block_size::experiment, run);

} // namespace apod
