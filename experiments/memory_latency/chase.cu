#include "chain.hpp"
#include "chase.cuh"
#include "core/sampling.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace apod {
namespace {

constexpr size_t words_per_line = chain_line_bytes / sizeof(unsigned long long);

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

// One thread. The comparisons with nullptr need the loaded value, so the thread waits there for
// the last load: the warm steps stay out of the timed region and the last timed step inside it.
__global__ void chase_kernel(const unsigned long long* start, uint32_t warm, uint32_t steps,
                             ChaseOut* out) {
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
  *out = {reinterpret_cast<unsigned long long>(p), c1 - c0, t1 - t0};
}

} // namespace

PointerChase::PointerChase(size_t max_bytes) : chain_(max_bytes / sizeof(unsigned long long)) {
  // Prefer the largest L1 the unified array allows: the chase uses no shared memory.
  APOD_CUDA(cudaFuncSetAttribute(chase_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxL1));
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
    expected = walk(order, at, uint64_t(plan.warm_steps) + plan.timed_steps);
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

  ChaseFigures figures;
  figures.ns_per_step = Series(t);
  figures.cycles_per_step = Series(cycles, t.excluded, t.stop_reason, t.noisy);
  figures.verified = wrong == 0;
  const Series clock_ghz = Series::zip(figures.cycles_per_step, figures.ns_per_step,
                                       [](double c, double ns) { return c / ns; });
  figures.facts = {{"seed", seed},
                   {"nodes", nodes},
                   {"line_bytes", chain_line_bytes},
                   {"timed_steps", plan.timed_steps},
                   {"warm_steps", plan.warm_steps},
                   {"warm_l2", plan.warm_l2},
                   {"resumes_each_sample", resume},
                   {"start_node", start},
                   {"expected_node", expected},
                   {"samples_wrong", wrong},
                   {"sm_clock_ghz", clock_ghz.summary().median}};
  return figures;
}

} // namespace apod
