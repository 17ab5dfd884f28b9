// Local memory (CUDA C++ Best Practices Guide, shared/seeds/000_..., 9.2.4: local memory is
// off-chip, "as expensive as access to global memory", and holds "arrays that the compiler
// determines may be indexed dynamically" and what does not fit the registers; 10.1: more
// registers per thread mean "less register spilling to local memory"; Pascal Tuning Guide 1.4.3.2:
// thread-local memory is cached in L1). Two pairs of kernels doing the same work: a per-thread
// array indexed at run time against the same loop unrolled so every index is a constant
// (registers), and 64 live values with the registers capped at 32 (__maxnreg__: ptxas spills)
// against the uncapped kernel. The figure is word updates per second on a fixed grid; every
// thread's answer is checked on the host.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace apod::local_memory;

constexpr int block_size = 256;

// The register cap of the spilled kernel: __maxnreg__ (CUDA 12.4 and later), else the launch
// bounds that leave 32 registers a thread (65536 / (256 x 8)).
#if defined(__CUDACC_VER_MAJOR__) &&                                                               \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define APOD_LOCAL_CAPPED __maxnreg__(pressure_register_cap)
#else
#define APOD_LOCAL_CAPPED                                                                          \
  __launch_bounds__(block_size, 65536 / (block_size * pressure_register_cap))
#endif

// Each thread's array: step s updates word (s + offset) mod W. Indexed: the offset is a kernel
// argument (0 at run time), so the index is unknown to the compiler and the array goes to local
// memory. Unrolled: W steps per trip at the constant indices 0 .. W-1, so the array is W
// registers. Both compute array_answer(); steps is a multiple of W.
template <int W, bool Indexed>
__device__ __forceinline__ void array_body(uint32_t* __restrict__ out, int offset, int steps) {
  const uint32_t tid = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  const uint32_t c = tid % start_classes;
  uint32_t a[W];
#pragma unroll
  for (int i = 0; i < W; ++i)
    a[i] = start_word(c, uint32_t(i));
  uint32_t acc = c;
  if constexpr (Indexed) {
#pragma unroll 4
    for (int s = 0; s < steps; ++s)
      array_step(a[(s + offset) & (W - 1)], acc);
  } else {
#pragma unroll 1
    for (int s = 0; s < steps; s += W) {
#pragma unroll
      for (int i = 0; i < W; ++i)
        array_step(a[i], acc);
    }
  }
  out[tid] = acc;
}

// 64 values updated in turn, each from itself and its neighbour: all of them live across the
// loop, about 70 registers uncapped; capped at 32, ptxas keeps the rest in local memory.
__device__ __forceinline__ void pressure_body(uint32_t* __restrict__ out, int trips) {
  const uint32_t tid = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  const uint32_t c = tid % start_classes;
  uint32_t v[pressure_live];
#pragma unroll
  for (int i = 0; i < pressure_live; ++i)
    v[i] = start_word(c, uint32_t(i));
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int i = 0; i < pressure_live; ++i)
      v[i] = pressure_update(v[i], v[(i + 1) % pressure_live]);
  }
  uint32_t sum = 0;
#pragma unroll
  for (int i = 0; i < pressure_live; ++i)
    sum += v[i];
  out[tid] = sum;
}

} // namespace

// extern "C": cuobjdump -fun finds the kernels by these names (test_local_memory_gpu).
extern "C" __global__ void __launch_bounds__(block_size)
    apod_local_array_indexed_16(uint32_t* __restrict__ out, int offset, int steps) {
  array_body<16, true>(out, offset, steps);
}
extern "C" __global__ void __launch_bounds__(block_size)
    apod_local_array_unrolled_16(uint32_t* __restrict__ out, int offset, int steps) {
  array_body<16, false>(out, offset, steps);
}
extern "C" __global__ void __launch_bounds__(block_size)
    apod_local_array_indexed_64(uint32_t* __restrict__ out, int offset, int steps) {
  array_body<64, true>(out, offset, steps);
}
extern "C" __global__ void __launch_bounds__(block_size)
    apod_local_array_unrolled_64(uint32_t* __restrict__ out, int offset, int steps) {
  array_body<64, false>(out, offset, steps);
}
extern "C" __global__ void __launch_bounds__(block_size)
    apod_local_pressure_uncapped(uint32_t* __restrict__ out, int trips) {
  pressure_body(out, trips);
}
extern "C" __global__ void APOD_LOCAL_CAPPED apod_local_pressure_capped(uint32_t* __restrict__ out,
                                                                        int trips) {
  pressure_body(out, trips);
}

namespace apod {
namespace {

namespace lm = local_memory;

constexpr double point_time_cap_s = 0.06;       // 6 points: 0.36 s at most
constexpr double quick_point_time_cap_s = 0.02; // --quick
constexpr int threads_per_sm = 2048;            // the grid: the same work for every kernel
constexpr int full_array_steps = 2048, quick_array_steps = 256;
constexpr int full_pressure_trips = 128, quick_pressure_trips = 16;

using ArrayKernel = void (*)(uint32_t*, int, int);
using PressureKernel = void (*)(uint32_t*, int);

struct Pair {
  const char* cause = lm::indexed_array;
  int words = 16;
  Series rate[2]; // [0] registers, [1] local
  bool verified[2] = {false, false};
  json extra[2];
};

json resource_facts(const void* kernel) {
  cudaFuncAttributes attr{};
  APOD_CUDA(cudaFuncGetAttributes(&attr, kernel));
  return {{"local_bytes_per_thread", attr.localSizeBytes}, {"registers_per_thread", attr.numRegs}};
}

// Times one kernel of a pair and checks every thread against the host's answer for its start
// class (`answer_of_class`).
template <class Kernel, class Launch, class Answer>
void measure(const ExperimentContext& ctx, Kernel kernel, Launch&& launch, unsigned grid,
             double updates_per_thread, Answer&& answer_of_class, DeviceBuffer<uint32_t>& out,
             Series& rate, bool& verified, json& extra) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  policy.flush_l2 = false; // the words are the thread's own: no input to flush
  APOD_CUDA(cudaMemset(out.get(), 0xA5, out.bytes()));
  const TimedSamples t = time_samples_ms(policy, nullptr, launch);
  const double threads = double(grid) * block_size;
  rate = Series(t).map([&](double ms) { return update_rate_g(threads, updates_per_thread, ms); });
  std::vector<uint32_t> got(out.size());
  APOD_CUDA(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  std::vector<uint32_t> expected(start_classes);
  for (uint32_t c = 0; c < start_classes; ++c)
    expected[c] = answer_of_class(c);
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    wrong += got[i] != expected[i % start_classes];
  verified = wrong == 0;
  extra = resource_facts(reinterpret_cast<const void*>(kernel));
  extra["elements_wrong"] = wrong;
  extra["updates_per_thread"] = updates_per_thread;
  extra["threads"] = threads;
  extra["kernel"] = kernel_facts(kernel, block_size, grid);
}

void record_pair(ExperimentContext& ctx, Pair& p) {
  for (int local = 0; local < 2; ++local) {
    const json params = {{lm::cause.key, p.cause},
                         {lm::placement.key, local ? lm::in_local : lm::in_registers},
                         {lm::words.key, p.words}};
    json extra = p.extra[local];
    if (p.cause == std::string(lm::register_pressure)) {
      extra["spill"] = lm::spill_sentence;
      if (local)
        extra["register_cap"] = lm::pressure_register_cap;
    }
    ctx.record(make_measurement(params, lm::update_rate, p.rate[local], p.verified[local], extra));
    if (!local)
      continue;
    const double reg = p.rate[0].summary().median;
    const bool ok = p.verified[0] && p.verified[1] && reg > 0;
    const Series ratio = p.rate[1].map([&](double r) { return r > 0 ? reg / r : 0.0; });
    Measurement m = make_measurement(params, lm::cost, ratio, ok, std::move(extra));
    if (!(reg > 0))
      m.error = "the register version has no rate to divide";
    ctx.record(std::move(m));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const bool quick = ctx.options.quick;
  const unsigned grid = unsigned(ctx.device.sm_count * (threads_per_sm / block_size));
  DeviceBuffer<uint32_t> out(size_t(grid) * block_size);

  const int steps = quick ? quick_array_steps : full_array_steps;
  for (const int w : lm::array_words()) {
    Pair p;
    p.cause = lm::indexed_array, p.words = w;
    const auto answer = [&](uint32_t c) { return array_answer(c, uint32_t(w), uint32_t(steps)); };
    const ArrayKernel kernels[2] = {
        w == 16 ? apod_local_array_unrolled_16 : apod_local_array_unrolled_64,
        w == 16 ? apod_local_array_indexed_16 : apod_local_array_indexed_64};
    for (int local = 0; local < 2; ++local) {
      const ArrayKernel k = kernels[local];
      measure(
          ctx, k,
          [&](cudaStream_t s) {
            k<<<grid, block_size, 0, s>>>(out.get(), 0, steps);
            APOD_CUDA_LAUNCH();
          },
          grid, double(steps), answer, out, p.rate[local], p.verified[local], p.extra[local]);
    }
    record_pair(ctx, p);
  }

  const int trips = quick ? quick_pressure_trips : full_pressure_trips;
  const auto answer = [&](uint32_t c) {
    return pressure_answer(c, lm::pressure_live, uint32_t(trips));
  };
  Pair p;
  p.cause = lm::register_pressure, p.words = lm::pressure_live;
  const PressureKernel kernels[2] = {apod_local_pressure_uncapped, apod_local_pressure_capped};
  for (int local = 0; local < 2; ++local) {
    const PressureKernel k = kernels[local];
    measure(
        ctx, k,
        [&](cudaStream_t s) {
          k<<<grid, block_size, 0, s>>>(out.get(), trips);
          APOD_CUDA_LAUNCH();
        },
        grid, double(trips) * lm::pressure_live, answer, out, p.rate[local], p.verified[local],
        p.extra[local]);
  }
  record_pair(ctx, p);
}

} // namespace

APOD_EXPERIMENT(local_memory::experiment, run);

} // namespace apod
