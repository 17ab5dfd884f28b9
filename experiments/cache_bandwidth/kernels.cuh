// cache_bandwidth's kernels: 16-byte loads (or stores) over one set by a full resident grid.
// The loads are inline PTX with their cache operator spelled out and `volatile`, so the compiler
// can neither drop a reread of the same address nor move it out of its pass: per_sm_read uses
// ld.global.ca (cached in L1 and L2), gpu_read ld.global.cg (cached in L2 only), so the L1 can
// hold a set only where the pattern means it to. Every loaded word goes into a 32-bit sum per
// thread, added per warp into its block's slot, which the host checks.
#pragma once

#include <cstdint>

namespace apod::cache_bw {

inline constexpr int block_size = 256;

__device__ __forceinline__ uint4 load_ca(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ uint4 load_cg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Adds the warp's sums into its block's slot (shuffles: sm_75 has no __reduce_add_sync).
__device__ __forceinline__ void add_to_block(unsigned sum, unsigned* block_sums) {
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(block_sums + blockIdx.x, sum);
}

__device__ __forceinline__ unsigned sum_of(uint4 v) {
  return v.x + v.y + v.z + v.w;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// Every block reads all `elements` of the set `passes` times, thread i elements i, i + 256, ...:
/// each SM's blocks share the set, which its L1 holds while it fits. The blocks of one SM start
/// their passes 1/blocks_per_sm of the set apart (a slot claimed per SM through %smid in
/// `claims`): blocks that ran in step would find every line a neighbour had just brought in, an
/// L1 hit whatever the set's size, and a set past the L1 would still read as L1 (seen on an H200:
/// 22 TB/s at 1 MiB). Staggered, a line comes back after the SM has read the whole set. Four
/// loads are issued before their sums, so each warp has four in flight.
__global__ void __launch_bounds__(block_size)
    per_sm_read_kernel(const uint4* set, uint32_t elements, uint32_t passes, uint32_t blocks_per_sm,
                       unsigned* claims, unsigned* block_sums) {
  __shared__ uint32_t start;
  if (threadIdx.x == 0) {
    const unsigned slot = atomicAdd(claims + sm_id(), 1u) % blocks_per_sm;
    start = uint32_t(uint64_t(elements) * slot / blocks_per_sm) & ~7u; // whole 128-byte lines
  }
  __syncthreads();
  const auto at = [&](uint32_t e) {
    const uint32_t i = e + start;
    return set + (i >= elements ? i - elements : i);
  };
  unsigned sum = 0;
  for (uint32_t p = 0; p < passes; ++p) {
    uint32_t e = threadIdx.x;
    for (; e + 3 * block_size < elements; e += 4 * block_size) {
      const uint4 a = load_ca(at(e)), b = load_ca(at(e + block_size)),
                  c = load_ca(at(e + 2 * block_size)), d = load_ca(at(e + 3 * block_size));
      sum += sum_of(a) + sum_of(b) + sum_of(c) + sum_of(d);
    }
    for (; e < elements; e += block_size)
      sum += sum_of(load_ca(at(e)));
  }
  add_to_block(sum, block_sums);
}

/// Where thread `t` starts and how far it steps: the lap-long index j = t, t + T, ... (T the
/// grid's threads) touches element j mod elements, kept without a division per access.
struct LapWalk {
  uint32_t element, iterations;
  __device__ LapWalk(uint64_t total, uint32_t elements) {
    const uint64_t threads = uint64_t(gridDim.x) * block_size;
    const uint64_t t = uint64_t(blockIdx.x) * block_size + threadIdx.x;
    element = uint32_t(t % elements);
    iterations = t < total ? uint32_t((total - t + threads - 1) / threads) : 0;
  }
  __device__ void step(uint32_t grid_step, uint32_t elements) {
    element += grid_step; // grid_step = T mod elements < elements: one wrap at most
    if (element >= elements)
      element -= elements;
  }
};

/// The grid reads `total` = laps x elements loads: every element once per lap, by a different
/// thread from lap to lap unless the grid divides the set, and from the L2 at best (.cg).
__global__ void __launch_bounds__(block_size)
    gpu_read_kernel(const uint4* set, uint32_t elements, uint64_t total, uint32_t grid_step,
                    unsigned* block_sums) {
  LapWalk walk(total, elements);
  unsigned sum = 0;
  uint32_t i = 0;
  for (; i + 4 <= walk.iterations; i += 4) { // four loads in flight, as in per_sm_read_kernel
    uint32_t at[4];
    for (uint32_t& a : at) {
      a = walk.element;
      walk.step(grid_step, elements);
    }
    const uint4 a = load_cg(set + at[0]), b = load_cg(set + at[1]), c = load_cg(set + at[2]),
                d = load_cg(set + at[3]);
    sum += sum_of(a) + sum_of(b) + sum_of(c) + sum_of(d);
  }
  for (; i < walk.iterations; ++i) {
    sum += sum_of(load_cg(set + walk.element));
    walk.step(grid_step, elements);
  }
  add_to_block(sum, block_sums);
}

/// The word gpu_write_kernel leaves at word index i of the set: the index XOR the point's key.
struct WrittenWord {
  uint32_t key;
  __host__ __device__ uint32_t operator()(size_t i) const { return uint32_t(i) ^ key; }
};

/// The grid writes `total` = laps x elements 16-byte stores in gpu_read_kernel's order.
__global__ void __launch_bounds__(block_size)
    gpu_write_kernel(uint4* set, uint32_t elements, uint64_t total, uint32_t grid_step,
                     uint32_t key) {
  LapWalk walk(total, elements);
#pragma unroll 4
  for (uint32_t i = 0; i < walk.iterations; ++i) {
    const uint32_t w = walk.element * 4u;
    set[walk.element] = make_uint4(w ^ key, (w + 1) ^ key, (w + 2) ^ key, (w + 3) ^ key);
    walk.step(grid_step, elements);
  }
}

} // namespace apod::cache_bw
