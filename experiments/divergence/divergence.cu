// Branch divergence and predication (CUDA C++ Best Practices Guide, shared/seeds/000_..., 12.1
// "Branching and Divergence": "avoid different execution paths within the same warp"; a condition
// on threadIdx.x / warpSize never diverges; 12.2 "Branch Predication": a branch of a few
// instructions becomes predicated instructions and no warp diverges). The long-branch kernel
// sends each thread down one of k paths, each hundreds of FMAs with its own constants, chosen by
// the warp's index (uniform) or by the lane (divergent); a divergent warp runs its paths in turn,
// so its rate is the uniform rate over k (the model stored with each point). The short-branch
// kernel has one FMA under an if; its divergent rate equals its uniform rate (predicated), and
// test_divergence_gpu reads its SASS to show it has no branch. Every output is checked on the
// host against the same FMA chains.
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
#include <utility>
#include <vector>

namespace {

using namespace apod::divergence;

constexpr int block_size = 256;

template <int P> __device__ __forceinline__ void run_path(float (&v)[chains], int steps) {
  constexpr float m = path_multiplier(P), a = path_addend(P);
#pragma unroll 8
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int c = 0; c < chains; ++c)
      v[c] = __fmaf_rn(v[c], m, a);
  }
}

// One loop per path, entered by comparing the path with each case (a switch of 32 cases): the
// compiler branches to one of 32 loops.
template <int... P>
__device__ __forceinline__ void run_selected(int path, float (&v)[chains], int steps,
                                             std::integer_sequence<int, P...>) {
  ((path == P ? run_path<P>(v, steps) : void()), ...);
}

} // namespace

// extern "C": cuobjdump -fun finds the kernels by these names (test_divergence_gpu).
extern "C" __global__ void __launch_bounds__(block_size)
    apod_divergence_long_branch(float* __restrict__ out, int paths, int divergent, int steps) {
  const uint32_t tid = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  const int path = int(selector_of(tid, divergent != 0) & uint32_t(paths - 1));
  const float x = input_value(int(tid % input_values));
  float v[chains];
#pragma unroll
  for (int c = 0; c < chains; ++c)
    v[c] = chain_start(x, c);
  run_selected(path, v, steps, std::make_integer_sequence<int, max_paths>{});
#pragma unroll
  for (int c = 0; c < chains; ++c)
    out[size_t(tid) * chains + c] = v[c];
}

// One FMA under an if: the condition is bit (s mod 32) of the thread's mask, a different bit at
// every step, so the compiler cannot hoist the branch out of the loop; it predicates it (or turns
// it into a select). Step s updates chain s mod 4, so the FMAs of 4 successive steps are
// independent. The mask is per lane (divergent) or per warp (uniform).
extern "C" __global__ void __launch_bounds__(block_size)
    apod_divergence_short_branch(float* __restrict__ out, const uint32_t* __restrict__ masks,
                                 int divergent, int steps) {
  const uint32_t tid = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  const uint32_t mask = masks[selector_of(tid, divergent != 0) % mask_count];
  const float x = input_value(int(tid % input_values));
  float v[chains];
#pragma unroll
  for (int c = 0; c < chains; ++c)
    v[c] = chain_start(x, c);
#pragma unroll 1
  for (int s = 0; s < steps; s += 32) {
#pragma unroll
    for (int u = 0; u < 32; ++u)
      if ((mask >> u) & 1u)
        v[u % chains] = __fmaf_rn(v[u % chains], short_multiplier, short_addend);
  }
#pragma unroll
  for (int c = 0; c < chains; ++c)
    out[size_t(tid) * chains + c] = v[c];
}

namespace apod {
namespace {

namespace dv = divergence;

constexpr double point_time_cap_s = 0.1;        // 13 points: 1.3 s at most
constexpr double quick_point_time_cap_s = 0.02; // --quick: 0.26 s at most
// Steps of a uniform thread: ~0.5 ms a launch on an H100 at the FP32 rate, and at 32 paths
// still 512 steps (2048 FMAs) per path.
constexpr int full_steps = 16384;
constexpr int quick_steps = 2048;

struct Launch {
  unsigned grid = 0;
  DeviceBuffer<float> out;
  DeviceBuffer<uint32_t> masks{size_t(mask_count)};
  std::vector<uint32_t> host_masks = short_branch_masks();

  double threads() const { return double(grid) * block_size; }
  void run(cudaStream_t s, bool short_body, bool divergent, int paths, int steps) const {
    if (short_body)
      apod_divergence_short_branch<<<grid, block_size, 0, s>>>(out.get(), masks.get(), divergent,
                                                               steps);
    else
      apod_divergence_long_branch<<<grid, block_size, 0, s>>>(out.get(), paths, divergent, steps);
    APOD_CUDA_LAUNCH();
  }
};

// Every thread's chains against the host's: the output depends on (path or mask, input value)
// only, so each pair is computed once.
size_t count_wrong(const Launch& launch, bool short_body, bool divergent, int paths, int steps) {
  std::vector<float> got(launch.out.size());
  APOD_CUDA(cudaMemcpy(got.data(), launch.out.get(), launch.out.bytes(), cudaMemcpyDeviceToHost));
  const int keys = short_body ? mask_count : max_paths;
  std::vector<std::vector<float>> expected(size_t(keys) * input_values);
  size_t wrong = 0;
  for (uint32_t t = 0; t < uint32_t(launch.threads()); ++t) {
    const uint32_t sel = selector_of(t, divergent);
    const int key = short_body ? int(sel % mask_count) : int(sel & uint32_t(paths - 1));
    const int value = int(t % input_values);
    std::vector<float>& e = expected[size_t(key) * input_values + value];
    if (e.empty())
      e = short_body ? short_branch_chains(input_value(value), launch.host_masks[key], steps)
                     : long_branch_chains(input_value(value), key, steps);
    for (int c = 0; c < chains; ++c)
      wrong += !(got[size_t(t) * chains + c] == e[c]); // NaN (the poison) never matches
  }
  return wrong;
}

struct Point {
  bool short_body = false;
  bool divergent = false;
  int paths = 1;
  Series rate;
  bool verified = false;
  json extra;
};

Point measure(const ExperimentContext& ctx, const Launch& launch, bool short_body, bool divergent,
              int paths, int total_steps) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  policy.flush_l2 = false; // no memory traffic to speak of: the chains live in registers
  const int steps = short_body ? total_steps : steps_per_thread(total_steps, paths, divergent);
  APOD_CUDA(cudaMemset(launch.out.get(), 0xFF, launch.out.bytes())); // NaN
  const TimedSamples t = time_samples_ms(
      policy, nullptr, [&](cudaStream_t s) { launch.run(s, short_body, divergent, paths, steps); });
  const double threads = launch.threads();
  const double fmas = fmas_per_thread(short_body, steps);
  Point p{short_body, divergent, paths,
          Series(t).map([&](double ms) { return thread_fma_rate_g(threads, fmas, ms); })};
  const size_t wrong = count_wrong(launch, short_body, divergent, paths, steps);
  p.verified = wrong == 0;
  p.extra = {{"elements_wrong", wrong},
             {"steps_per_thread", steps},
             {"threads", threads},
             {"fmas_per_launch", threads * fmas}};
  p.extra["kernel"] = short_body
                          ? kernel_facts(apod_divergence_short_branch, block_size, launch.grid)
                          : kernel_facts(apod_divergence_long_branch, block_size, launch.grid);
  return p;
}

double median(const Point& p) {
  return p.rate.summary().median;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceInfo& d = ctx.device;
  Launch launch;
  int blocks_per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, apod_divergence_long_branch, block_size, 0));
  launch.grid = unsigned(std::max(1, blocks_per_sm) * d.sm_count); // one full wave
  launch.out = DeviceBuffer<float>(size_t(launch.grid) * block_size * chains);
  APOD_CUDA(cudaMemcpy(launch.masks.get(), launch.host_masks.data(), launch.masks.bytes(),
                       cudaMemcpyHostToDevice));
  const int total_steps = ctx.options.quick ? quick_steps : full_steps;

  std::optional<double> peak;
  if (const auto lanes = fma_lanes_per_sm(d.cc_major, d.cc_minor))
    peak = peak_fma_rate_g(d.sm_count, lanes->fp32, d.sm_clock_khz);

  std::vector<Point> points;
  for (const bool divergent : {false, true})
    for (const int k : dv::path_counts())
      if (k > 1 || !divergent)
        points.push_back(measure(ctx, launch, false, divergent, k, total_steps));
  for (const bool divergent : {false, true})
    points.push_back(measure(ctx, launch, true, divergent, 2, total_steps));

  // The uniform point of the same body and path count: what the model divides.
  const auto uniform_of = [&](const Point& p) -> const Point* {
    for (const Point& q : points)
      if (!q.divergent && q.short_body == p.short_body && q.paths == p.paths && q.verified)
        return &q;
    return nullptr;
  };
  const Point* one_path = nullptr;
  for (const Point& q : points)
    if (!q.short_body && !q.divergent && q.paths == 1 && q.verified)
      one_path = &q;

  for (Point& p : points) {
    json extra = p.extra;
    if (peak) {
      extra[keys::limit] = *peak;
      extra[keys::limit_label] = "FP32 FMA rate: FP32 lanes per SM x SMs x SM clock";
    }
    const Point* u = p.divergent ? uniform_of(p) : nullptr;
    if (u && median(p) > 0) {
      extra[keys::model] = p.short_body ? median(*u) : divergent_rate_model(median(*u), p.paths);
      extra["slowdown_vs_uniform"] = median(*u) / median(p);
    } else if (!p.divergent && !p.short_body && one_path) {
      extra[keys::model] = median(*one_path);
    }
    if (p.short_body)
      extra["predication"] = dv::predication_sentence;
    ctx.record(make_measurement({{dv::condition.key, p.divergent ? dv::divergent : dv::uniform},
                                 {dv::paths.key, p.paths},
                                 {dv::body.key, p.short_body ? dv::short_body : dv::long_body}},
                                dv::fma_rate, p.rate, p.verified, std::move(extra)));
  }
}

} // namespace

APOD_EXPERIMENT(divergence::experiment, run);

} // namespace apod
