// Host-side arithmetic of the divergence experiment (divergence.cu): the work each path does (its
// constants are shared with the device, which links them), the host's FMA chains every output is
// checked against, the serialisation model of the Best Practices Guide's 12.1, the work per
// launch, and the reading of a kernel's SASS (cuobjdump -sass) that establishes predication
// (12.2).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#ifdef __CUDACC__
#define APOD_DIVERGENCE_HD __host__ __device__
#else
#define APOD_DIVERGENCE_HD
#endif

namespace apod::divergence {

/// Paths a warp can take at most: one per lane.
inline constexpr int max_paths = 32;
/// Independent FMA chains per thread, so a warp's FMAs do not wait on each other's latency and
/// a uniform warp runs at the FP32 pipe's rate.
inline constexpr int chains = 4;
/// Distinct input values (a thread reads value tid mod input_values): the host computes each
/// (path, value) chain once.
inline constexpr int input_values = 16;
/// Distinct condition masks of the short branch (a thread uses mask selector mod mask_count).
inline constexpr int mask_count = 64;

/// Path p's step y <- y x multiplier(p) + addend(p), multiplier 1 - (32 + p) x 2^-18: exact in
/// FP32, different for every path so the compiler cannot merge two paths into one, and
/// contracting towards 2 slowly enough (16384 steps shrink the distance at most e^4-fold) that a
/// chain one step short or long gives another answer on every path.
APOD_DIVERGENCE_HD constexpr float path_multiplier(int p) {
  return 1.0f - float(32 + p) / 262144.0f;
}
APOD_DIVERGENCE_HD constexpr float path_addend(int p) {
  return float(32 + p) / 131072.0f;
}
/// The short branch's one conditional FMA: y <- y x m + a when the step's mask bit is set.
inline constexpr float short_multiplier = 1.0f - 1.0f / 8192.0f;
inline constexpr float short_addend = 1.0f / 4096.0f;

/// Input value i (i < input_values) and chain c's start from it: exact in FP32, in [1, 1.75).
APOD_DIVERGENCE_HD constexpr float input_value(int i) {
  return 1.0f + float(i) / 64.0f;
}
APOD_DIVERGENCE_HD constexpr float chain_start(float x, int c) {
  return x + float(c) / 8.0f;
}

/// What selects a thread's path: its lane (the divergent branch, threadIdx.x % 32) or its warp's
/// index in the grid (the guide's warp-aligned condition, threadIdx.x / warpSize: every lane of
/// a warp takes the same path). The path is selector mod paths (paths a power of two).
APOD_DIVERGENCE_HD constexpr uint32_t selector_of(uint32_t global_thread, bool divergent) {
  return divergent ? global_thread % 32u : global_thread / 32u;
}

/// The chains of path `path` after `steps` steps from input `x`: the same correctly rounded
/// fused operations, in the same order, as the kernel, so equal bit for bit.
std::vector<float> long_branch_chains(float x, int path, int steps);
/// The short branch's chains after `steps` steps: step s applies one FMA, to chain s mod chains,
/// when bit s mod 32 of `mask` is set (one instruction under the if).
std::vector<float> short_branch_chains(float x, uint32_t mask, int steps);
/// The short branch's masks: mask_count pseudo-random words with about half their bits set.
std::vector<uint32_t> short_branch_masks();

/// Steps each thread runs on its path: the whole count when the warp is uniform; 1/paths of it
/// when the lanes diverge, so that a warp issues the same FMAs at every point and the timing's
/// change is the divergence alone (paths a power of two dividing total_steps).
int steps_per_thread(int total_steps, int paths, bool divergent);

/// The guide's 12.1: a divergent warp runs each taken path in turn, so its time for the same
/// work per thread is `paths` times the warp-uniform one; as a rate of the threads' FMAs,
/// uniform_rate / paths. Throws std::invalid_argument for paths < 1.
double divergent_rate_model(double uniform_rate, int paths);

/// FMAs a thread asks for: chains x steps on a long-branch path; one (conditional) FMA per step
/// on the short branch.
double fmas_per_thread(bool short_body, int steps);

/// FMAs per second in G/s: threads x FMAs per thread over the time in ms.
double thread_fma_rate_g(double threads, double fmas_per_thread, double ms);

/// The FP32 FMA pipe's rate in G FMA/s: lanes per SM x SMs x SM clock (the Programming Guide's
/// throughput table, runner/core/theory.hpp), a thread's FMA taking one lane for one clock.
double peak_fma_rate_g(int sm_count, int fp32_lanes_per_sm, double sm_clock_khz);

/// What a kernel's SASS (cuobjdump -sass -fun NAME) holds: branch instructions (BRA; BRX, the
/// indexed jump of a switch), predicated instructions other than branches (@P0 FFMA ...), the
/// convergence barriers of Volta's independent thread scheduling (BSSY/BSYNC, WARPSYNC), and the
/// FFMA count.
struct SassCounts {
  int bra = 0;
  int brx = 0;
  int predicated = 0;
  int convergence = 0;
  int ffma = 0;
  int instructions = 0;
};
/// Counts the instructions of the first function listing in `sass` (cuobjdump's text, lines
/// like "/*0120*/  @!P0 BRA 0x1f0 ;"); only that listing's lines count.
SassCounts count_sass(const std::string& sass);
/// The part of cuobjdump's output for one architecture ("sm_90"): from a "code for sm_90" line to
/// the next "code for" line; "" when the output holds no code for it. A binary carries a fatbin
/// per translation unit, and `cuobjdump -fun NAME` prints every one, empty where NAME is not
/// (the first H200 run read such an empty one): the first section that lists a function wins,
/// else the first section.
std::string listing_for_arch(const std::string& sass, const std::string& arch);

} // namespace apod::divergence
