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

// Thread g runs chains g x ilp ... g x ilp + ilp - 1 from `in`, `steps` steps each, interleaved,
// and stores them to `out`. Thread 0 of each block records its SM and the SM's cycle counter
// after the first barrier and after the last, so the span covers every warp's whole chain.
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
  for (int s = 0; s < steps; s += unroll) {
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int c = 0; c < ilp; ++c)
        v[c] = Step<op>::apply(v[c], a, b);
  }
  __syncthreads();
  const unsigned long long end = clock64();
#pragma unroll
  for (int c = 0; c < ilp; ++c)
    out[base + c] = v[c];
  if (threadIdx.x == 0) {
    uint32_t sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    clocks[3 * blockIdx.x] = sm, clocks[3 * blockIdx.x + 1] = start,
               clocks[3 * blockIdx.x + 2] = end;
  }
}

} // namespace apod::throughput
