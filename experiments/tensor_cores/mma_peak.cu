// The tensor pipe's peak through the documented warp-level instruction (PTX ISA, "Warp-level
// matrix multiply-accumulate instructions", mma.sync.aligned): each lane loads its A and B
// fragments once, then every warp issues mma.sync on `chains` independent accumulators, so many
// MMAs are in flight per warp and nothing but the tensor pipe limits the rate. The loop
// alternates B and -B, so each accumulator returns to zero after every pair and its integers stay
// small (exact in every accumulator, FP8's included); one last mma with B leaves A x B in each,
// which the host checks exactly on every lane of every warp. This is the instruction's peak, not
// a GEMM: no operand is loaded inside the loop.
#include "core/cuda_memory.cuh"
#include "core/kernel_facts.cuh"
#include "core/timing.cuh"
#include "mma_peak.cuh"
#include "power_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace apod::tensor {
namespace {

constexpr int block_size = 256;  // 8 warps
constexpr int blocks_per_sm = 2; // 16 warps per SM, 4 per scheduler
constexpr int chains = 8;        // independent accumulators per warp
constexpr uint64_t seed = 0x7E45C0DE;
constexpr int calibration_pairs = 512;
constexpr double point_cap_s = 0.3; // 10 samples of ~25 ms need 0.25 s; a noisy point stops here
constexpr int max_samples = 40;

// One mma.sync per precision: D = A x B + D on the lane's fragments. The shapes need sm_80
// (e4m3: sm_89); a build for an older architecture traps instead (the instruction does not exist
// there), and the run never launches it on such a device.
template <Precision P> struct Mma;

// Whether this device pass compiles for at least `arch` (__CUDA_ARCH__; 0 in the host pass).
__host__ __device__ constexpr bool arch_at_least(int arch) {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__ >= arch;
#else
  return arch < 0;
#endif
}

// The m16n8 shapes take four A registers, two B registers and four accumulators; only the
// instruction, the accumulator's type and the architecture differ.
#define APOD_MMA_M16N8(PRECISION, ACC, CONSTRAINT, MIN_ARCH, INSTRUCTION)                          \
  template <> struct Mma<PRECISION> {                                                              \
    using Acc = ACC;                                                                               \
    static constexpr int a_words = 4, b_words = 2, c = 4;                                          \
    __device__ static void run(Acc (&d)[c], const uint32_t (&a)[a_words],                          \
                               const uint32_t (&b)[b_words]) {                                     \
      if constexpr (arch_at_least(MIN_ARCH))                                                       \
        asm volatile(INSTRUCTION " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"          \
                     : CONSTRAINT(d[0]), CONSTRAINT(d[1]), CONSTRAINT(d[2]), CONSTRAINT(d[3])      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));          \
      else                                                                                         \
        __trap();                                                                                  \
    }                                                                                              \
  }

APOD_MMA_M16N8(Precision::fp16, float, "+f", 800,
               "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
APOD_MMA_M16N8(Precision::bf16, float, "+f", 800,
               "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
APOD_MMA_M16N8(Precision::tf32, float, "+f", 800,
               "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
APOD_MMA_M16N8(Precision::int8, int, "+r", 800, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
APOD_MMA_M16N8(Precision::fp8_e4m3, float, "+f", 890,
               "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
#undef APOD_MMA_M16N8

template <> struct Mma<Precision::fp64> {
  using Acc = double;
  static constexpr int a_words = 2, b_words = 2, c = 2; // one double each of A and B
  __device__ static void run(Acc (&d)[c], const uint32_t (&a)[a_words],
                             const uint32_t (&b)[b_words]) {
    const double av = __hiloint2double(int(a[1]), int(a[0]));
    const double bv = __hiloint2double(int(b[1]), int(b[0]));
    if constexpr (arch_at_least(800))
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                   : "+d"(d[0]), "+d"(d[1])
                   : "d"(av), "d"(bv));
    else
      __trap();
  }
};

// Fragments are stored lane-major: lane l's words at [l * words, (l + 1) * words).
template <Precision P>
__global__ void __launch_bounds__(block_size)
    mma_peak_kernel(const uint32_t* __restrict__ a_frag, const uint32_t* __restrict__ b_frag,
                    const uint32_t* __restrict__ negative_b_frag,
                    typename Mma<P>::Acc* __restrict__ out, int pairs) {
  using Op = Mma<P>;
  using Acc = typename Op::Acc;
  const int lane = threadIdx.x % 32;
  uint32_t a[Op::a_words], b[Op::b_words], nb[Op::b_words];
#pragma unroll
  for (int i = 0; i < Op::a_words; ++i)
    a[i] = a_frag[lane * Op::a_words + i];
#pragma unroll
  for (int i = 0; i < Op::b_words; ++i)
    b[i] = b_frag[lane * Op::b_words + i], nb[i] = negative_b_frag[lane * Op::b_words + i];
  Acc acc[chains][Op::c] = {};
  for (int i = 0; i < pairs; ++i) {
#pragma unroll
    for (int c = 0; c < chains; ++c)
      Op::run(acc[c], a, b);
#pragma unroll
    for (int c = 0; c < chains; ++c)
      Op::run(acc[c], a, nb);
  }
#pragma unroll
  for (int c = 0; c < chains; ++c)
    Op::run(acc[c], a, b);
  const size_t warp = blockIdx.x * size_t(block_size / 32) + threadIdx.x / 32;
#pragma unroll
  for (int e = 0; e < Op::c; ++e) {
    Acc sum = 0;
#pragma unroll
    for (int c = 0; c < chains; ++c)
      sum += acc[c][e];
    out[(warp * 32 + lane) * Op::c + e] = sum;
  }
}

/// A's and B's small integers and every lane's fragment words for them (and for -B).
struct Fragments {
  std::vector<int> a, b;
  std::vector<uint32_t> a_words, b_words, negative_b_words;
};

// Packs element e of a lane at bit e x width of its words (PTX: the lower element in the lower
// bits of each register; a double in two words, low first).
void pack(std::vector<uint32_t>& words, size_t lane_base, int e, int width, uint64_t bits) {
  const size_t bit = size_t(e) * width;
  if (width == 64) {
    words[lane_base + bit / 32] = uint32_t(bits);
    words[lane_base + bit / 32 + 1] = uint32_t(bits >> 32);
  } else {
    words[lane_base + bit / 32] |= uint32_t(bits) << (bit % 32);
  }
}

Fragments fragments_of(Precision p, int a_words, int b_words) {
  const MmaShape s = mma_shape(p);
  Fragments f;
  for (int i = 0; i < s.m * s.k; ++i)
    f.a.push_back(input_value(seed, i));
  for (int i = 0; i < s.k * s.n; ++i)
    f.b.push_back(input_value(seed ^ 0xB, i));
  f.a_words.assign(size_t(32) * a_words, 0);
  f.b_words.assign(size_t(32) * b_words, 0);
  f.negative_b_words.assign(size_t(32) * b_words, 0);
  const int width = 8 * input_bytes(p);
  for (int lane = 0; lane < 32; ++lane) {
    for (int e = 0; e < s.a_elements; ++e) {
      const RowCol rc = a_position(p, lane, e);
      pack(f.a_words, size_t(lane) * a_words, e, width, encode_bits(p, f.a[rc.row * s.k + rc.col]));
    }
    for (int e = 0; e < s.b_elements; ++e) {
      const RowCol rc = b_position(p, lane, e);
      const int v = f.b[rc.row * s.n + rc.col];
      pack(f.b_words, size_t(lane) * b_words, e, width, encode_bits(p, v));
      pack(f.negative_b_words, size_t(lane) * b_words, e, width, encode_bits(p, -v));
    }
  }
  return f;
}

template <Precision P> MmaPoint measure(const ExperimentContext& ctx, double sample_ms) {
  using Op = Mma<P>;
  using Acc = typename Op::Acc;
  const MmaShape shape = mma_shape(P);
  const Fragments f = fragments_of(P, Op::a_words, Op::b_words);
  DeviceBuffer<uint32_t> a(f.a_words.size()), b(f.b_words.size()), nb(f.b_words.size());
  APOD_CUDA(cudaMemcpy(a.get(), f.a_words.data(), a.bytes(), cudaMemcpyHostToDevice));
  APOD_CUDA(cudaMemcpy(b.get(), f.b_words.data(), b.bytes(), cudaMemcpyHostToDevice));
  APOD_CUDA(cudaMemcpy(nb.get(), f.negative_b_words.data(), nb.bytes(), cudaMemcpyHostToDevice));
  const unsigned grid = unsigned(blocks_per_sm * ctx.device.sm_count);
  const size_t warps = size_t(grid) * (block_size / 32);
  DeviceBuffer<Acc> out(warps * 32 * Op::c);

  // Calibration: one untimed launch, then one timed, to size the loop to `sample_ms`.
  const auto launch = [&](int pairs, cudaStream_t s) {
    mma_peak_kernel<P><<<grid, block_size, 0, s>>>(a.get(), b.get(), nb.get(), out.get(), pairs);
    APOD_CUDA_LAUNCH();
  };
  launch(calibration_pairs, nullptr);
  EventPair events;
  events.start(nullptr);
  launch(calibration_pairs, nullptr);
  events.stop(nullptr);
  const double calibration_ms = std::max(events.elapsed_ms(), 1e-3);
  const int pairs =
      int(std::clamp(calibration_pairs * sample_ms / calibration_ms, 64.0, double(1 << 24)));

  APOD_CUDA(cudaMemset(out.get(), 0xFF, out.bytes()));
  SamplingPolicy policy = ctx.options.sampling;
  policy.flush_l2 = false; // nothing is loaded inside the loop
  policy.warmup = std::min(policy.warmup, 1);
  policy.max_point_s = std::min(policy.max_point_s, point_cap_s);
  policy.max_samples = std::min(policy.max_samples, max_samples);
  CappedMonitor monitor(policy.monitor);
  policy.monitor = &monitor;
  MmaPoint point;
  EnergyTicks ticks;
  point.ms = Series(time_samples_ms(policy, nullptr, [&](cudaStream_t s) { launch(pairs, s); }));
  point.watts = ticks.stop();
  point.energy_span_s = ticks.span_s();
  point.flops_per_launch = double(warps) * chains * (2.0 * pairs + 1) * shape.flops();

  std::vector<Acc> got(out.size());
  APOD_CUDA(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  const std::vector<double> expected = mma_reference(P, f.a, f.b, chains);
  size_t wrong = 0;
  double max_error = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(double(got[i]) - expected[i % expected.size()]);
    wrong += !(error == 0); // NaN (the poison) counts
    if (error == error)
      max_error = std::max(max_error, error);
  }
  point.verified = wrong == 0;
  char shape_text[32];
  std::snprintf(shape_text, sizeof shape_text, "m%dn%dk%d", shape.m, shape.n, shape.k);
  point.facts = {{"elements_wrong", wrong},
                 {"elements_checked", got.size()},
                 {"max_abs_error", max_error},
                 {"tolerance", "exact: every partial sum is a small integer"},
                 {"iterations", pairs},
                 {"warps", warps},
                 {"chains", chains},
                 {"launches_per_sample", 1},
                 {"mma_shape", shape_text},
                 {"kernel", kernel_facts(mma_peak_kernel<P>, block_size, grid)},
                 {"samples_throttled", monitor.throttled()},
                 {"samples_low_clock", monitor.low_clock()}};
  return point;
}

} // namespace

MmaPoint measure_mma(const ExperimentContext& ctx, Precision p, double sample_ms) {
  switch (p) {
  case Precision::fp16:
    return measure<Precision::fp16>(ctx, sample_ms);
  case Precision::bf16:
    return measure<Precision::bf16>(ctx, sample_ms);
  case Precision::fp8_e4m3:
    return measure<Precision::fp8_e4m3>(ctx, sample_ms);
  case Precision::tf32:
    return measure<Precision::tf32>(ctx, sample_ms);
  case Precision::int8:
    return measure<Precision::int8>(ctx, sample_ms);
  case Precision::fp64:
    return measure<Precision::fp64>(ctx, sample_ms);
  }
  throw std::logic_error("measure_mma: unknown precision");
}

} // namespace apod::tensor
