#include "chain.hpp"
#include "chase.cuh"
#include "core/sampling.hpp"
#include "ladder.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr size_t words_per_line = chain_line_bytes / sizeof(unsigned long long);
constexpr size_t in_launch_warm_bytes = size_t(1) << 20; // past every L1 on sm_75 to sm_90

// Writes, at the start of node order(k)'s line, the address of the next node's line: the chase
// then needs no arithmetic between loads, only the load itself.
__global__ void link_kernel(unsigned long long* chain, ChainOrder order) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < order.n;
       k += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t node = order(k), next = order(k + 1 == order.n ? 0 : k + 1);
    chain[node * words_per_line] =
        reinterpret_cast<unsigned long long>(chain + next * words_per_line);
  }
}

// Reads every node through the L2 only (ld.global.cg), so a chain that fits there is in it when
// the chase starts. The store never happens (the XOR of aligned addresses is never 1), but the
// compiler cannot know that, so it keeps the loads.
__global__ void touch_kernel(const unsigned long long* chain, size_t nodes,
                             unsigned long long* sink) {
  unsigned long long x = 0;
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < nodes;
       k += size_t(gridDim.x) * blockDim.x)
    x ^= __ldcg(chain + k * words_per_line);
  if (x == 1)
    *sink = x;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ long long sm_cycles() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

__device__ __forceinline__ const unsigned long long* step(const unsigned long long* p) {
  // ld.global.ca: cached in the L1 too, so a chain that fits there is served from it.
  return reinterpret_cast<const unsigned long long*>(__ldca(p));
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

// One thread. The comparisons with nullptr need the loaded value, so the thread waits there for
// the last load: the warm steps stay out of the timed region and the last timed step inside it.
__device__ __forceinline__ void chase(const unsigned long long* start, uint32_t warm,
                                      uint32_t steps, ChaseOut* out) {
  const unsigned long long* p = start;
  for (uint32_t i = 0; i < warm; ++i)
    p = step(p);
  if (p == nullptr)
    __trap();
  const unsigned long long t0 = global_ns();
  const long long c0 = sm_cycles();
  for (uint32_t i = 0; i < steps; ++i)
    p = step(p);
  if (p == nullptr)
    __trap();
  const long long c1 = sm_cycles();
  const unsigned long long t1 = global_ns();
  *out = {reinterpret_cast<unsigned long long>(p), c1 - c0, t1 - t0, sm_id()};
}

__global__ void chase_kernel(const unsigned long long* start, uint32_t warm, uint32_t steps,
                             ChaseOut* out) {
  chase(start, warm, steps, out);
}

// Many one-thread blocks; the first to start on `target_sm` claims the chase, every other block
// leaves at once. The block scheduler places blocks, not the program, so this is how a chase is
// kept on one SM from launch to launch.
__global__ void pinned_chase_kernel(const unsigned long long* start, uint32_t warm, uint32_t steps,
                                    unsigned target_sm, unsigned* claim, ChaseOut* out) {
  if (sm_id() != target_sm || atomicCAS(claim, 0u, 1u) != 0u)
    return;
  chase(start, warm, steps, out);
}

__global__ void sm_of_kernel(unsigned* out) {
  *out = sm_id();
}

// The figures of a chase: ns and cycles per step sample by sample (the cycles share the ns
// samples' flags), verified when no sample ended off the host's node, and the facts both
// chases record (the SM clock is cycles over ns).
ChaseFigures figures_of(const TimedSamples& t, const std::vector<double>& cycles, size_t wrong,
                        json facts) {
  ChaseFigures figures;
  figures.ns_per_step = Series(t);
  figures.cycles_per_step = Series(cycles, t.excluded, t.stop_reason, t.noisy);
  figures.verified = wrong == 0;
  const Series clock_ghz = Series::zip(figures.cycles_per_step, figures.ns_per_step,
                                       [](double c, double ns) { return c / ns; });
  facts["line_bytes"] = chain_line_bytes;
  facts["samples_wrong"] = wrong;
  facts["sm_clock_ghz"] = clock_ghz.summary().median;
  figures.facts = std::move(facts);
  return figures;
}

} // namespace

PointerChase::PointerChase(size_t max_bytes) : chain_(max_bytes / sizeof(unsigned long long)) {
  // Prefer the largest L1 the unified array allows: the chase uses no shared memory.
  APOD_CUDA(cudaFuncSetAttribute(chase_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxL1));
  APOD_CUDA(cudaFuncSetAttribute(pinned_chase_kernel,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxL1));
  int device = 0;
  APOD_CUDA(cudaGetDevice(&device));
  APOD_CUDA(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
}

ChaseOut PointerChase::pinned_launch(const unsigned long long* at, uint32_t warm, uint32_t steps) {
  if (pinned_sm_ < 0) { // the SM a lone block lands on: one that exists and takes blocks
    sm_of_kernel<<<1, 1>>>(claim_.get());
    APOD_CUDA_LAUNCH();
    unsigned sm = 0;
    APOD_CUDA(cudaMemcpy(&sm, claim_.get(), sizeof sm, cudaMemcpyDeviceToHost));
    pinned_sm_ = int(sm);
  }
  // Two blocks per SM nearly always put one on the target; more on a retry.
  for (int blocks_per_sm = 2; blocks_per_sm <= 32; blocks_per_sm *= 2) {
    APOD_CUDA(cudaMemset(claim_.get(), 0, sizeof(unsigned)));
    APOD_CUDA(cudaMemset(out_.get(), 0xFF, sizeof(ChaseOut)));
    pinned_chase_kernel<<<unsigned(blocks_per_sm * sm_count_), 1>>>(
        at, warm, steps, unsigned(pinned_sm_), claim_.get(), out_.get());
    APOD_CUDA_LAUNCH();
    ChaseOut out{};
    APOD_CUDA(cudaMemcpy(&out, out_.get(), sizeof out, cudaMemcpyDeviceToHost));
    if (out.sm == unsigned(pinned_sm_))
      return out;
  }
  throw std::runtime_error("PointerChase: no block landed on SM " + std::to_string(pinned_sm_));
}

ChaseFigures PointerChase::measure_laps(size_t working_set_bytes, uint64_t seed,
                                        const LapPlan& plan, const SamplingPolicy& policy) {
  const size_t nodes = working_set_bytes / chain_line_bytes;
  if (nodes == 0 || working_set_bytes > chain_.bytes())
    throw std::invalid_argument("PointerChase: working set larger than the chain's memory");
  const uint64_t steps = lap_steps(working_set_bytes, plan.min_steps);
  if (steps > UINT32_MAX)
    throw std::invalid_argument("PointerChase: a lap of more than 2^32 steps");
  const ChainOrder order = chain_order(nodes, seed);
  link_kernel<<<1024, 256>>>(chain_.get(), order);
  APOD_CUDA_LAUNCH();
  const auto base = reinterpret_cast<unsigned long long>(chain_.get());
  const uint64_t start = order(0);
  // The untimed lap: afterwards every line of the set has been read once from this SM, in the
  // chain's order, so each timed line was last touched one lap earlier, as in any later lap.
  ChaseOut out = pinned_launch(chain_.get() + start * words_per_line, uint32_t(nodes), 0);
  uint64_t at = start, expected = advance(order, start, nodes);
  size_t wrong = out.last_address != base + expected * chain_line_bytes;
  at = expected;

  TimedSamples t;
  std::vector<double> cycles;
  for (int i = 0; i < plan.samples; ++i) {
    // The L1 is emptied between launches: a set it can hold is walked one lap untimed in the
    // same launch first, or every sample would pay a lap of L2 misses (measured on an H100: 56
    // instead of 33 cycles at 200 KiB). Past 1 MiB no L1 holds the set and the lap is skipped.
    const uint32_t warm = working_set_bytes <= in_launch_warm_bytes ? uint32_t(nodes) : 0;
    expected = advance(order, at, uint64_t(warm) + steps);
    out = pinned_launch(chain_.get() + at * words_per_line, warm, uint32_t(steps));
    wrong += out.last_address != base + expected * chain_line_bytes;
    at = expected;
    const double ns = double(out.ns) / double(steps), c = double(out.cycles) / double(steps);
    t.ms.push_back(ns);
    t.excluded.push_back(
        policy.check_sample(out.ns > 0 ? 1e3 * double(out.cycles) / double(out.ns) : std::nan("")));
    cycles.push_back(c);
  }
  finish_fixed(t, policy);
  return figures_of(t, cycles, wrong,
                    {{"seed", seed},
                     {"nodes", nodes},
                     {"timed_steps", steps},
                     {"laps_per_sample", double(steps) / double(nodes)},
                     {"warm_steps", working_set_bytes <= in_launch_warm_bytes ? 2 * nodes : nodes},
                     {"warm_l2", false},
                     {"resumes_each_sample", true},
                     {"start_node", start},
                     {"expected_node", expected},
                     {"sm", pinned_sm_}});
}

ChaseFigures PointerChase::measure(size_t working_set_bytes, uint64_t seed, const ChasePlan& plan,
                                   SamplingPolicy policy, double max_point_s) {
  const size_t nodes = working_set_bytes / chain_line_bytes;
  if (nodes == 0 || working_set_bytes > chain_.bytes())
    throw std::invalid_argument("PointerChase: working set larger than the chain's memory");
  const ChainOrder order = chain_order(nodes, seed);
  link_kernel<<<1024, 256>>>(chain_.get(), order);
  APOD_CUDA_LAUNCH();
  // Sets within the L2 restart from the chain's first node every sample, warmed into the L2 and
  // (one untimed lap) into the L1. Past the L2 a sample resumes where the previous one stopped:
  // restarting would chase the same few thousand lines every sample, which the first sample left
  // in the L2 (measured on an H100: 140 ns, the L2's latency, at 16x the L2). Resuming, a sample's
  // lines were last touched at least a lap of the whole chain ago.
  const bool resume = !plan.warm_l2;
  const uint64_t start = order(0);
  const auto base = reinterpret_cast<unsigned long long>(chain_.get());
  const auto address_of = [&](uint64_t node) { return chain_.get() + node * words_per_line; };
  uint64_t at = start; // where the next sample starts
  uint64_t expected = start;

  size_t wrong = 0;
  const auto sample = [&] {
    if (plan.warm_l2) {
      touch_kernel<<<1024, 256>>>(chain_.get(), nodes, sink_.get());
      APOD_CUDA_LAUNCH();
    }
    // The host's answer: where the same links lead, followed one by one.
    expected = advance(order, at, uint64_t(plan.warm_steps) + plan.timed_steps);
    chase_kernel<<<1, 1>>>(address_of(at), plan.warm_steps, plan.timed_steps, out_.get());
    APOD_CUDA_LAUNCH();
    ChaseOut out{};
    APOD_CUDA(cudaMemcpy(&out, out_.get(), sizeof out, cudaMemcpyDeviceToHost));
    wrong += out.last_address != base + expected * chain_line_bytes;
    if (resume)
      at = expected;
    return out;
  };
  for (int i = 0; i < policy.warmup; ++i)
    sample();
  policy.max_point_s = std::min(policy.max_point_s, max_point_s);
  AdaptiveSampler sampler(policy);
  std::vector<double> cycles;
  while (sampler.want_more()) {
    const ChaseOut out = sample();
    sampler.add(double(out.ns) / plan.timed_steps, policy.check_sample());
    cycles.push_back(double(out.cycles) / plan.timed_steps);
  }
  const TimedSamples t = sampler.finish();
  return figures_of(t, cycles, wrong,
                    {{"seed", seed},
                     {"nodes", nodes},
                     {"timed_steps", plan.timed_steps},
                     {"warm_steps", plan.warm_steps},
                     {"warm_l2", plan.warm_l2},
                     {"resumes_each_sample", resume},
                     {"start_node", start},
                     {"expected_node", expected}});
}

} // namespace apod
