// instruction_throughput's chains: one step of each operation class as the device runs it (the
// host's copy is model.cpp's host_step) and the kernel that runs `ilp` independent chains per
// thread between two readings of its SM's cycle counter.
#pragma once

#include "model.hpp"

#include <cstdint>

namespace apod::throughput {

inline constexpr int max_block = 1024; // warps per SM up to 32: one block per SM
inline constexpr int unroll = 16;      // steps per loop trip: the loop's own instructions ~1/16

// One step of each class, as the device runs it; the host's copy is model.cpp's host_step.
template <OpClass op> struct Step;
template <> struct Step<OpClass::fp32_fma> {
  using T = float;
  static __device__ T apply(T x, T a, T b) { return __fmaf_rn(x, a, b); }
};
template <> struct Step<OpClass::fp64_fma> {
  using T = double;
  static __device__ T apply(T x, T a, T b) { return __fma_rn(x, a, b); }
};
template <> struct Step<OpClass::fp16x2_fma> {
  using T = uint32_t; // a half2's bits
  static __device__ T apply(T x, T a, T b) {
    T d;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(a), "r"(b));
    return d;
  }
};
template <> struct Step<OpClass::int32_imad> {
  using T = uint32_t;
  static __device__ T apply(T x, T a, T b) { return x * a + b; }
};
template <> struct Step<OpClass::int8_dp4a> {
  using T = int32_t;
  // The chain runs through the packed bytes: x's bytes times a's, summed, plus b.
  static __device__ T apply(T x, T a, T b) { return __dp4a(x, a, b); }
};
template <> struct Step<OpClass::sfu_rsqrt> {
  using T = float;
  static __device__ T apply(T x, T, T) {
    T y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
};

// A chain value's bits, for the dependence of the closing clock reading on every chain.
__device__ inline uint64_t bits_of(float x) {
  return __float_as_uint(x);
}
__device__ inline uint64_t bits_of(double x) {
  return uint64_t(__double_as_longlong(x));
}
__device__ inline uint64_t bits_of(uint32_t x) {
  return x;
}
__device__ inline uint64_t bits_of(int32_t x) {
  return uint32_t(x);
}

// The SM's cycle counter, read only once `dependence` is known: the reading is predicated on a
// comparison with it, so the instructions that produce it cannot be scheduled after the reading
// (a plain clock64() is an independent instruction the compiler may move arithmetic across; the
// first H100 run measured 172 FP32 results per clock per SM, past the 128 the SM has, when one
// thread per block read the clock around barriers). A dependence of 1 reads 0 (never seen: the host
// refuses it).
__device__ inline unsigned long long clock_after(uint64_t dependence) {
  unsigned long long t;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u64 p, %1, 1;\n\t@p mov.u64 %0, %%clock64;\n\t"
               "@!p mov.u64 %0, 0;\n\t}"
               : "=l"(t)
               : "l"(dependence));
  return t;
}

// Thread g runs chains g x ilp ... g x ilp + ilp - 1 from `in`, `steps` steps each, interleaved,
// and stores them to `out`. Lane 0 of each warp records its SM and the SM's cycle counter at its
// warp's start and end: the chains take the start reading as an input (so none of their work
// can begin before it) and the end reading waits on every chain's result (clock_after), so each
// warp's span covers its whole chains; the host takes each SM's earliest start to latest end.
template <OpClass op, int ilp>
__global__ void __launch_bounds__(max_block)
    chain_kernel(const typename Step<op>::T* __restrict__ in,
                 typename Step<op>::T* __restrict__ out, typename Step<op>::T a,
                 typename Step<op>::T b, int steps, unsigned long long* __restrict__ clocks) {
  using T = typename Step<op>::T;
  const size_t base = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * ilp;
  T v[ilp];
#pragma unroll
  for (int c = 0; c < ilp; ++c)
    v[c] = in[base + c];
  __syncthreads();
  const unsigned long long start = clock64();
#pragma unroll
  for (int c = 0; c < ilp; ++c)
    v[c] = start == ~0ull ? T{} : v[c]; // never taken; the chains now depend on the reading
  for (int s = 0; s < steps; s += unroll) {
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int c = 0; c < ilp; ++c)
        v[c] = Step<op>::apply(v[c], a, b);
  }
  uint64_t folded = 0;
#pragma unroll
  for (int c = 0; c < ilp; ++c)
    folded ^= bits_of(v[c]);
  const unsigned long long end = clock_after(folded);
#pragma unroll
  for (int c = 0; c < ilp; ++c)
    out[base + c] = v[c];
  if (threadIdx.x % 32 == 0) {
    uint32_t sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    const size_t warp = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
    clocks[3 * warp] = sm, clocks[3 * warp + 1] = start, clocks[3 * warp + 2] = end;
  }
}

} // namespace apod::throughput
