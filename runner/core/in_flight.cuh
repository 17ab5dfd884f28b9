// Device helpers for memory-bound kernels: a thread issues all its loads before it uses any, so
// several independent accesses are in flight at once (HOPPER.md: "several independent loads in
// flight before the first use"). `index(k)` gives the element of the k-th access; with
// index(k) = base + k x blockDim.x a warp's k-th accesses are consecutive, so each is coalesced.
#pragma once

#include <cuda_runtime.h>

namespace apod {

/// v[k] = in[index(k)] for k < Count, all issued before any is used.
template <int Count, class T, class Index>
__device__ __forceinline__ void load_all(T (&v)[Count], const T* __restrict__ in, Index index) {
#pragma unroll
  for (int k = 0; k < Count; ++k)
    v[k] = in[index(k)];
}

/// out[index(k)] = in[index(k)] for k < Count: every load before the first store.
template <int Count, class T, class Index>
__device__ __forceinline__ void copy_in_flight(T* __restrict__ out, const T* __restrict__ in,
                                               Index index) {
  T v[Count];
  load_all(v, in, index);
#pragma unroll
  for (int k = 0; k < Count; ++k)
    out[index(k)] = v[k];
}

} // namespace apod
