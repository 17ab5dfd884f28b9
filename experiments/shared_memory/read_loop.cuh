// The read loop the strided and cluster kernels share: a thread reads `reads` consecutive
// elements of a circular tile of `Elements` elements of type T (4, 8 or 16 bytes) from `base`,
// summing their 32-bit words.
#pragma once

#include <cstdint>

namespace apod::smem {

__device__ __forceinline__ uint32_t word_sum(uint32_t v) {
  return v;
}
__device__ __forceinline__ uint32_t word_sum(uint2 v) {
  return v.x + v.y;
}
__device__ __forceinline__ uint32_t word_sum(uint4 v) {
  return v.x + v.y + v.z + v.w;
}

/// Where thread `thread` of block `block` starts, in elements: lane x stride, plus an offset the
/// whole warp shares (it leaves the banks' pattern as it is, and makes warps read different
/// elements). The host's check computes the same.
__host__ __device__ inline uint32_t thread_base(uint32_t block, uint32_t thread, int stride,
                                                int block_threads) {
  const uint32_t warp = block * uint32_t(block_threads / 32) + thread / 32;
  return (thread % 32) * uint32_t(stride) + warp * 37;
}

/// Fills a tile of Elements + Unroll elements from `words` (Elements x words-per-element of
/// them): element Elements + u repeats element u, so a trip's reads at p[0..Unroll) never wrap.
template <class T, uint32_t Elements, int Unroll>
__device__ __forceinline__ void fill_tile(T* tile, const uint32_t* __restrict__ words) {
  constexpr uint32_t per = sizeof(T) / 4, total = Elements * per;
  uint32_t* w = reinterpret_cast<uint32_t*>(tile);
  for (uint32_t i = threadIdx.x; i < (Elements + Unroll) * per; i += blockDim.x)
    w[i] = words[i % total];
}

/// The loop: all lanes advance together, so the banks' pattern, hence the wavefronts of every
/// request, is that of the first; `Elements` is a power of two. Sums elements (base + i) mod
/// Elements for i in [0, reads), reads a multiple of Unroll.
template <class T, uint32_t Elements, int Unroll>
__device__ __forceinline__ uint32_t read_tile(const T* tile, uint32_t base, int reads) {
  uint32_t acc[Unroll] = {};
#pragma unroll 1 // the trip is unrolled already; more would only raise register pressure
  for (int it = 0; it < reads; it += Unroll) {
    const T* p = tile + ((base + uint32_t(it)) & (Elements - 1));
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      acc[u] += word_sum(p[u]);
  }
  uint32_t sum = 0;
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
    sum += acc[u];
  return sum;
}

} // namespace apod::smem
