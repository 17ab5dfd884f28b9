// Occupancy (CUDA C++ Best Practices Guide, shared/seeds/000_..., 10.1 "Occupancy", 10.1.1
// "Calculating Occupancy", 9.2.7.1 "Register Pressure", 9.2.4 "Local Memory"). Theoretical
// occupancy from the occupancy API and from apod's own arithmetic (model.cpp), required equal;
// achieved occupancy from each warp's residency (its SM and the SM's clock64 at its start and
// after its last store); the bandwidth a one-float4-per-thread copy reaches at each occupancy;
// and the FMA rate of 64 chains per thread with and without the spills a register cap forces.
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
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using apod::occupancy::WarpSpan;
namespace oc = apod::occupancy;

__device__ __forceinline__ uint32_t sm_id() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ uint64_t sm_clock() {
  return uint64_t(clock64());
}

// Lane 0 of each warp records its span; warps are numbered by their first thread.
__device__ __forceinline__ void record_span(WarpSpan* trace, uint64_t start) {
  if (trace && (threadIdx.x & 31) == 0) {
    const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    trace[warp] = WarpSpan{sm_id(), start, sm_clock()};
  }
}

// The copy's input: word i of the float view is i mod 2^24, exact in a float.
struct CopyPattern {
  __host__ __device__ float operator()(size_t i) const { return float(i & 0xFFFFFF); }
};

__global__ void fill_pattern(float* data, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] = CopyPattern{}(i);
}

// One float4 per thread, while `Held` values loaded before the copy stay live across it (the
// empty asm makes the compiler believe each may change, so it cannot fold or rematerialise
// them) and are combined after the stores with a value loaded after them (a load the compiler
// cannot move above the stores, which may alias it): registers per thread grow with Held and
// nothing else the copy does changes. The fold's result is written only if it equals a value it
// never takes, so no output depends on it.
// No __launch_bounds__: a bound of 1024 threads would cap the registers at 64 and make the large
// Held variants spill; the largest launched with 1024 threads (the guide's) holds few.
template <int Held>
__global__ void copy_holding(const float4* __restrict__ in, float4* __restrict__ out, size_t n,
                             const float* held_in, float* held_out, WarpSpan* trace) {
  const uint64_t start = sm_clock();
  float held[Held > 0 ? Held : 1];
#pragma unroll
  for (int i = 0; i < Held; ++i)
    held[i] = held_in[i];
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  float4 v = make_float4(0, 0, 0, 0);
  if (i < n)
    v = in[i];
#pragma unroll
  for (int h = 0; h < Held; ++h)
    asm volatile("" : "+f"(held[h]));
  if (i < n)
    out[i] = v;
  if constexpr (Held > 0) {
    float s = held_in[Held];
#pragma unroll
    for (int h = 0; h < Held; ++h)
      s = fmaf(s, held[h], 1.0f);
    if (s == -1.0f) // every held value is 1: s is the count of them plus one, never -1
      held_out[0] = s;
  }
  record_span(trace, start);
}

using CopyKernel = void (*)(const float4*, float4*, size_t, const float*, float*, WarpSpan*);

template <int... H> CopyKernel copy_kernel_for(int held, std::integer_sequence<int, H...>) {
  CopyKernel k = nullptr;
  ((held == H ? (k = copy_holding<H>, 0) : 0), ...);
  return k;
}

CopyKernel copy_kernel(int held) {
  const CopyKernel k = copy_kernel_for(
      held, std::integer_sequence<int, 0, 8, 16, 20, 24, 32, 48, 64, 96, 128, 192>{});
  if (!k)
    throw std::logic_error("occupancy: no copy kernel holding " + std::to_string(held));
  return k;
}

constexpr int max_held = 192;
constexpr int spill_block = 256;

// 64 independent FMA chains per thread; __launch_bounds__(256, MinBlocks) caps the registers at
// 64 Ki / (256 MinBlocks), and under the chains' 64 plus addresses the compiler spills them.
template <int MinBlocks>
__global__ void __launch_bounds__(spill_block, MinBlocks)
    fma_chains(float* __restrict__ out, int steps, WarpSpan* trace) {
  const uint64_t start = sm_clock();
  const uint32_t tid = blockIdx.x * uint32_t(spill_block) + threadIdx.x;
  const float x = oc::input_value(int(tid % oc::spill_inputs));
  float acc[oc::spill_chains];
#pragma unroll
  for (int c = 0; c < oc::spill_chains; ++c)
    acc[c] = x + float(c) / 64.0f;
#pragma unroll 1
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int c = 0; c < oc::spill_chains; ++c)
      acc[c] = __fmaf_rn(acc[c], oc::spill_multiplier, oc::spill_addend);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < oc::spill_chains; ++c)
    sum += acc[c];
  out[tid] = sum;
  record_span(trace, start);
}

using SpillKernel = void (*)(float*, int, WarpSpan*);

SpillKernel spill_kernel(int min_blocks) {
  switch (min_blocks) {
  case 1:
    return fma_chains<1>;
  case 4:
    return fma_chains<4>;
  case 8:
    return fma_chains<8>;
  default:
    throw std::logic_error("occupancy: no spill kernel for " + std::to_string(min_blocks));
  }
}

} // namespace

namespace apod {
namespace {

constexpr double point_time_cap_s = 0.04;        // 24 points: ~1 s of sampling at most
constexpr double quick_point_time_cap_s = 0.008; // --quick
constexpr size_t copy_float4s = size_t(1) << 22; // 64 MiB each way
constexpr size_t quick_copy_float4s = size_t(1) << 20;
constexpr int spill_steps = 256, quick_spill_steps = 32;
constexpr int traced_launches = 3; // achieved occupancy's samples

/// The SM's limits from the device's attributes, with the allocation units of its compute
/// capability (model.cpp's table); the table itself is compared with them (an extra).
struct DeviceLimits {
  occupancy::SmLimits limits;
  bool table_agrees = false;
};

DeviceLimits device_limits(int device, int cc_major, int cc_minor) {
  const auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    APOD_CUDA(cudaDeviceGetAttribute(&v, a, device));
    return v;
  };
  occupancy::SmLimits l;
  l.warp_size = attr(cudaDevAttrWarpSize);
  l.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
  l.max_blocks_per_sm = attr(cudaDevAttrMaxBlocksPerMultiprocessor);
  l.registers_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
  l.max_registers_per_block = attr(cudaDevAttrMaxRegistersPerBlock);
  l.shared_bytes_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  l.shared_bytes_per_block = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  l.reserved_shared_per_block = attr(cudaDevAttrReservedSharedMemoryPerBlock);
  l.shared_allocation_unit = cc_major >= 8 ? 128 : 256;
  DeviceLimits d{l, false};
  if (const auto t = occupancy::sm_limits(cc_major, cc_minor))
    d.table_agrees = t->max_threads_per_sm == l.max_threads_per_sm &&
                     t->max_blocks_per_sm == l.max_blocks_per_sm &&
                     t->registers_per_sm == l.registers_per_sm &&
                     t->shared_bytes_per_sm == l.shared_bytes_per_sm &&
                     t->shared_bytes_per_block == l.shared_bytes_per_block &&
                     t->reserved_shared_per_block == l.reserved_shared_per_block;
  return d;
}

struct Buffers {
  size_t n = 0;
  DeviceBuffer<float4> in, out;
  DeviceBuffer<float> held_in{size_t(max_held + 1)}, held_out{1};
  DeviceBuffer<float> spill_out;
  DeviceBuffer<occupancy::WarpSpan> trace;
};

/// The theoretical side of a launch: API, apod's arithmetic, and their agreement.
struct Theory {
  int api_blocks = 0;
  double api_occupancy = 0;
  occupancy::Occupancy model;
  cudaFuncAttributes attr{};
  json facts(const DeviceLimits& d) const {
    return {{"registers_per_thread", attr.numRegs},
            {"local_bytes_per_thread", attr.localSizeBytes},
            {"api_blocks_per_sm", api_blocks},
            {"model_blocks_per_sm", model.blocks_per_sm},
            {"model_occupancy", model.occupancy},
            {"model_limiter", model.limiter},
            {"model_registers_per_warp", model.registers_per_warp},
            {"model_shared_per_block", model.shared_per_block},
            {"model_agrees_with_api", model.blocks_per_sm == api_blocks},
            {"model_warp_capacity", model.warp_capacity},
            {"table_agrees_with_device", d.table_agrees}};
  }
};

template <class Kernel>
Theory theory_of(Kernel kernel, const DeviceLimits& d, int block, size_t dynamic_shared) {
  Theory t;
  APOD_CUDA(cudaFuncGetAttributes(&t.attr, kernel));
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&t.api_blocks, kernel, block, dynamic_shared));
  const int warps = (block + 31) / 32;
  t.api_occupancy = double(t.api_blocks * warps) / d.limits.max_warps_per_sm();
  t.model = occupancy::theoretical_occupancy(
      d.limits, {block, t.attr.numRegs, int64_t(t.attr.sharedSizeBytes), int64_t(dynamic_shared)});
  return t;
}

/// Achieved occupancy of `traced_launches` launches of `launch(trace)`, one sample each.
template <class Launch>
std::pair<Series, occupancy::Achieved> achieved_of(Buffers& b, size_t warps, int max_warps,
                                                   Launch&& launch) {
  if (b.trace.size() < warps)
    b.trace = DeviceBuffer<occupancy::WarpSpan>(warps);
  Series s;
  occupancy::Achieved last;
  std::vector<occupancy::WarpSpan> spans(warps);
  for (int i = 0; i < traced_launches; ++i) {
    APOD_CUDA(cudaMemset(b.trace.get(), 0, warps * sizeof(occupancy::WarpSpan)));
    launch(b.trace.get());
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaMemcpy(spans.data(), b.trace.get(), warps * sizeof(occupancy::WarpSpan),
                         cudaMemcpyDeviceToHost));
    last = occupancy::achieved_occupancy(spans, max_warps);
    s.add(last.occupancy);
  }
  return {s, last};
}

Series repeated(double value) {
  Series s;
  for (int i = 0; i < traced_launches; ++i)
    s.add(value);
  return s;
}

void record_three(ExperimentContext& ctx, const json& params, const Metric& rate_metric,
                  const Series& rate, const Series& achieved, const Theory& t, bool verified,
                  json extra) {
  // The theoretical figure is the API's answer, asked once per traced launch.
  ctx.record(make_measurement(params, rate_metric, rate, verified, extra));
  json occ = extra;
  occ[keys::model] = t.api_occupancy;
  ctx.record(make_measurement(params, occupancy::achieved, achieved, verified, occ));
  ctx.record(make_measurement(params, occupancy::theoretical, repeated(t.api_occupancy), verified,
                              std::move(extra)));
}

json params_of(const occupancy::Shape& s) {
  namespace o = occupancy;
  return {{o::study.key, s.study},
          {o::block_size.key, s.block_size},
          {o::held_registers.key, s.held_registers},
          {o::shared_kib.key, s.shared_kib},
          {o::min_blocks.key, s.min_blocks}};
}

void measure_copy(ExperimentContext& ctx, Buffers& b, const DeviceLimits& d,
                  const occupancy::Shape& s) {
  const CopyKernel kernel = copy_kernel(s.held_registers);
  const size_t shared = size_t(s.shared_kib) * 1024;
  if (shared > 48 * 1024)
    APOD_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  const Theory t = theory_of(kernel, d, s.block_size, shared);
  const unsigned grid = unsigned((b.n + s.block_size - 1) / s.block_size);
  const auto launch = [&](cudaStream_t stream, occupancy::WarpSpan* trace) {
    kernel<<<grid, s.block_size, shared, stream>>>(b.in.get(), b.out.get(), b.n, b.held_in.get(),
                                                   b.held_out.get(), trace);
    APOD_CUDA_LAUNCH();
  };
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  APOD_CUDA(cudaMemset(b.out.get(), 0xFF, b.out.bytes())); // NaN: a skipped word shows
  const TimedSamples ms =
      time_samples_ms(policy, nullptr, [&](cudaStream_t st) { launch(st, nullptr); });
  const double bytes = 2.0 * double(b.out.bytes());
  const Series gbs = bandwidth_gbs(Series(ms), bytes);
  const OutputCheck check =
      check_output(reinterpret_cast<const float*>(b.out.get()), b.n * 4, CopyPattern{});
  const auto [achieved, a] =
      achieved_of(b, size_t(grid) * ((s.block_size + 31) / 32), d.limits.max_warps_per_sm(),
                  [&](occupancy::WarpSpan* tr) { launch(nullptr, tr); });

  json extra = t.facts(d);
  extra.update(check.facts());
  extra[keys::bytes_moved] = bytes;
  extra[keys::access_type] = access::copy;
  extra["grid_size"] = grid;
  extra["waves"] =
      t.api_blocks > 0 ? double(grid) / (double(t.api_blocks) * ctx.device.sm_count) : 0.0;
  extra["max_resident_warps_seen"] = a.max_resident_warps;
  extra["sms_traced"] = a.sms;
  extra["median_time_ms"] = Series(ms).summary().median;
  if (const auto peak = ctx.achievable_peak_gbs(access::copy))
    extra["fraction_of_achievable_peak"] = gbs.summary().median / *peak;
  if (s.study == std::string(occupancy::guide_study)) {
    const occupancy::Occupancy g = occupancy::theoretical_occupancy(d.limits, {s.block_size, 37});
    extra["guide_37_registers"] = {{"blocks_per_sm", g.blocks_per_sm},
                                   {"occupancy", g.occupancy},
                                   {"registers_per_warp", g.registers_per_warp},
                                   {"limiter", g.limiter}};
    extra["in_guide_register_band"] = t.attr.numRegs >= 33 && t.attr.numRegs <= 40;
  }
  extra[keys::launch] = kernel_facts(kernel, s.block_size, grid, shared);
  // Verified: the copy is right, apod's arithmetic equals the API, and no SM held more warps at
  // once than its registers, block slots and shared memory allow (the traces' spans lie inside
  // each warp's residency; blocks overlap as their last warps finish, so the bound is the warp
  // capacity, not the API's whole blocks).
  const bool verified = check.ok() && t.model.blocks_per_sm == t.api_blocks &&
                        a.max_resident_warps <= t.model.warp_capacity;
  record_three(ctx, params_of(s), metrics::effective_bandwidth, gbs, achieved, t, verified,
               std::move(extra));
}

void measure_spill(ExperimentContext& ctx, Buffers& b, const DeviceLimits& d,
                   const occupancy::Shape& s, std::optional<double>& unspilled_ms) {
  const SpillKernel kernel = spill_kernel(s.min_blocks);
  const Theory t = theory_of(kernel, d, spill_block, 0);
  // Two waves at full occupancy, the same grid for every variant.
  const unsigned grid =
      unsigned(ctx.device.sm_count) * unsigned(d.limits.max_threads_per_sm / spill_block) * 2u;
  const size_t threads = size_t(grid) * spill_block;
  if (b.spill_out.size() < threads)
    b.spill_out = DeviceBuffer<float>(threads);
  const int steps = ctx.options.quick ? quick_spill_steps : spill_steps;
  const auto launch = [&](cudaStream_t stream, occupancy::WarpSpan* trace) {
    kernel<<<grid, spill_block, 0, stream>>>(b.spill_out.get(), steps, trace);
    APOD_CUDA_LAUNCH();
  };
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  policy.flush_l2 = false; // the chains live in registers or local memory, not DRAM
  APOD_CUDA(cudaMemset(b.spill_out.get(), 0xFF, threads * sizeof(float)));
  const TimedSamples ms =
      time_samples_ms(policy, nullptr, [&](cudaStream_t st) { launch(st, nullptr); });
  const double flops = double(threads) * steps * occupancy::spill_chains * 2.0;
  const Series gflops = Series(ms).map([&](double v) { return flops / (v * 1e6); });

  std::vector<float> got(threads);
  APOD_CUDA(
      cudaMemcpy(got.data(), b.spill_out.get(), threads * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> expected(occupancy::spill_inputs);
  for (int v = 0; v < occupancy::spill_inputs; ++v)
    expected[v] = occupancy::spill_chains_sum(occupancy::input_value(v), steps);
  size_t wrong = 0;
  for (size_t i = 0; i < threads; ++i)
    wrong += !(got[i] == expected[i % occupancy::spill_inputs]); // NaN never matches
  const auto [achieved, a] = achieved_of(b, threads / 32, d.limits.max_warps_per_sm(),
                                         [&](occupancy::WarpSpan* tr) { launch(nullptr, tr); });

  const double median_ms = Series(ms).summary().median;
  if (s.min_blocks == 1)
    unspilled_ms = median_ms;
  json extra = t.facts(d);
  extra["elements_wrong"] = wrong;
  extra["grid_size"] = grid;
  extra["steps"] = steps;
  extra["median_time_ms"] = median_ms;
  extra["max_resident_warps_seen"] = a.max_resident_warps;
  extra["sms_traced"] = a.sms;
  if (unspilled_ms && s.min_blocks != 1)
    extra["slowdown_vs_unspilled"] = median_ms / *unspilled_ms;
  if (const auto lanes = fma_lanes_per_sm(ctx.device.cc_major, ctx.device.cc_minor)) {
    extra[keys::limit] = peak_gflops(ctx.device.sm_count, lanes->fp32, ctx.device.sm_clock_khz);
    extra[keys::limit_label] = "FP32 lanes per SM x SMs x SM clock x 2";
  }
  extra[keys::launch] = kernel_facts(kernel, spill_block, grid);
  const bool verified = wrong == 0 && t.model.blocks_per_sm == t.api_blocks &&
                        a.max_resident_warps <= t.model.warp_capacity;
  record_three(ctx, params_of(s), occupancy::flop_rate, gflops, achieved, t, verified,
               std::move(extra));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceLimits d =
      device_limits(ctx.device.ordinal, ctx.device.cc_major, ctx.device.cc_minor);
  Buffers b;
  b.n = ctx.options.quick ? quick_copy_float4s : copy_float4s;
  b.in = DeviceBuffer<float4>(b.n);
  b.out = DeviceBuffer<float4>(b.n);
  fill_pattern<<<1024, 256>>>(reinterpret_cast<float*>(b.in.get()), b.n * 4);
  APOD_CUDA_LAUNCH();
  const std::vector<float> ones(max_held + 1, 1.0f);
  APOD_CUDA(cudaMemcpy(b.held_in.get(), ones.data(), b.held_in.bytes(), cudaMemcpyHostToDevice));

  std::optional<double> unspilled_ms;
  for (const occupancy::Shape& s :
       occupancy::shapes(ctx.options.quick, ctx.options.full, d.limits.shared_bytes_per_block)) {
    if (s.study == std::string(occupancy::spill_study))
      measure_spill(ctx, b, d, s, unspilled_ms);
    else
      measure_copy(ctx, b, d, s);
  }
}

} // namespace

APOD_EXPERIMENT(occupancy::experiment, run);

} // namespace apod
