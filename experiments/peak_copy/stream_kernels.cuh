// peak_copy's kernels, one per access type, in BabelStream's shapes (shared/STYLE.md): dot
// (read-only), fill (write-only), copy and triad. Arrays are 16-byte vectors of two 64-bit words
// (HOPPER.md: 16-byte accesses, coalesced, several loads in flight). A block's tile is
// block_size x Elements vectors, thread t handling vectors t + k x block_size, and every load of
// a tile is issued before the first use. A full grid has one block per tile; a persistent grid
// (one wave of resident blocks) strides over the tiles. Arithmetic is on 64-bit integers
// modulo 2^64, so every result is exact in any order and the host checks it bit for bit.
#pragma once

#include "core/cuda_memory.cuh"
#include "core/in_flight.cuh"

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace apod::peak {

constexpr int block_size = 256;
using Vec = ulonglong2;

// Calls body(index) for each tile this block serves, index(k) giving the vector of the
// thread's k-th access in it: consecutive across a warp, so every access is coalesced.
template <int Elements, class Body>
__device__ __forceinline__ void for_each_tile(size_t tiles, Body&& body) {
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const size_t base = tile * (block_size * Elements) + threadIdx.x;
    body([base](int k) { return base + size_t(k) * block_size; });
  }
}

// Calls body(index, a, b) for each tile, a and b holding the thread's vectors of x and y there,
// all loaded before the body uses any.
template <int Elements, class Body>
__device__ __forceinline__ void for_each_pair(size_t tiles, const Vec* x, const Vec* y,
                                              Body&& body) {
  for_each_tile<Elements>(tiles, [&](auto index) {
    Vec a[Elements], b[Elements];
    load_all(a, x, index);
    load_all(b, y, index);
    body(index, a, b);
  });
}

template <int Elements>
__global__ void __launch_bounds__(block_size)
    copy_kernel(Vec* __restrict__ z, const Vec* __restrict__ x, size_t tiles) {
  for_each_tile<Elements>(tiles, [&](auto index) { copy_in_flight<Elements>(z, x, index); });
}

/// z = x + scalar * y (BabelStream's triad, a = b + scalar * c).
template <int Elements>
__global__ void __launch_bounds__(block_size)
    triad_kernel(Vec* __restrict__ z, const Vec* __restrict__ x, const Vec* __restrict__ y,
                 uint64_t scalar, size_t tiles) {
  for_each_pair<Elements>(tiles, x, y, [&](auto index, const Vec* a, const Vec* b) {
#pragma unroll
    for (int k = 0; k < Elements; ++k)
      z[index(k)] = make_ulonglong2(a[k].x + scalar * b[k].x, a[k].y + scalar * b[k].y);
  });
}

/// z[i] = key ^ i for every 64-bit word i: one cheap operation per word, so the kernel stays
/// bound by its stores, and no two points write the same pattern as the poison.
template <int Elements>
__global__ void __launch_bounds__(block_size)
    fill_kernel(Vec* __restrict__ z, uint64_t key, size_t tiles) {
  for_each_tile<Elements>(tiles, [&](auto index) {
#pragma unroll
    for (int k = 0; k < Elements; ++k) {
      const unsigned long long v = index(k);
      z[v] = make_ulonglong2(key ^ (2 * v), key ^ (2 * v + 1));
    }
  });
}

/// partials[block] = the sum over the block's words of x[i] * y[i] (modulo 2^64); the host adds
/// the partials. One 8-byte store per block, counted in the bytes moved.
template <int Elements>
__global__ void __launch_bounds__(block_size)
    dot_kernel(const Vec* __restrict__ x, const Vec* __restrict__ y, size_t tiles,
               unsigned long long* __restrict__ partials) {
  unsigned long long sum = 0;
  for_each_pair<Elements>(tiles, x, y, [&](auto, const Vec* a, const Vec* b) {
#pragma unroll
    for (int k = 0; k < Elements; ++k)
      sum += a[k].x * b[k].x + a[k].y * b[k].y;
  });
  for (int delta = 16; delta > 0; delta /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, delta);
  __shared__ unsigned long long warp_sums[block_size / 32];
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (int w = 0; w < block_size / 32; ++w)
      total += warp_sums[w];
    partials[blockIdx.x] = total;
  }
}

// What each output word i must hold (the rules check_output applies on device and host).
struct CopyExpected {
  uint64_t x_seed;
  __host__ __device__ uint64_t operator()(size_t i) const { return fill_value(x_seed, i); }
};
struct TriadExpected {
  uint64_t x_seed, y_seed, scalar;
  __host__ __device__ uint64_t operator()(size_t i) const {
    return fill_value(x_seed, i) + scalar * fill_value(y_seed, i);
  }
};
struct FillExpected {
  uint64_t key;
  __host__ __device__ uint64_t operator()(size_t i) const { return key ^ i; }
};

/// Calls f(std::integral_constant<int, E>{}) for the run-time elements-per-thread E (1, 2 or 4),
/// so one launch site serves every instantiation.
template <class F> void with_elements(int elements, F&& f) {
  switch (elements) {
  case 1:
    return f(std::integral_constant<int, 1>{});
  case 2:
    return f(std::integral_constant<int, 2>{});
  case 4:
    return f(std::integral_constant<int, 4>{});
  }
  throw std::logic_error("peak_copy: no kernel for this many elements per thread");
}

} // namespace apod::peak
