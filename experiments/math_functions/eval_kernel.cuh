// The timed kernel of every floating-point form, shared by math_functions.cu and the
// -use_fast_math translation unit (fast_math.cu). Instantiate it only with a functor local to the
// translation unit (an anonymous namespace), so the two builds never share a symbol.
#pragma once

#include <cuda_runtime.h>

namespace apod::mathfn {

inline constexpr int block_size = 256;
/// Each evaluation's argument is the previous one times this: the arguments differ, so no
/// evaluation can be hoisted or merged, and stay within 1.6% of the input at 65536 evaluations.
inline constexpr float argument_step = 1.0f + 0x1p-22f;

/// The source built both ways for the -use_fast_math pair: sinf, expf and a division, the
/// operations the flag replaces (Programming Guide 17.2, Table 20).
static __device__ __forceinline__ float composite_source(float x) {
  return sinf(x) * expf(-0.5f * x * x) / (1.0f + x * x);
}

/// Thread i reads input i, stores F's result(s) at it (what the host reads in ulp), then evaluates
/// F `reps` times at x, x s, x s^2, ... and stores the sum: many independent evaluations per
/// thread, every one feeding a stored result.
template <class F>
__global__ void __launch_bounds__(block_size)
    eval_kernel(const float* __restrict__ in, float* __restrict__ first, float* __restrict__ second,
                float* __restrict__ sums, int reps) {
  const unsigned i = blockIdx.x * block_size + threadIdx.x;
  const float x = in[i];
  const float2 r0 = F::eval(x);
  first[i] = r0.x;
  if constexpr (F::outputs == 2)
    second[i] = r0.y;
  float a = x, acc = 0;
#pragma unroll 4
  for (int k = 0; k < reps; ++k) {
    const float2 r = F::eval(a);
    if constexpr (F::outputs == 2)
      acc += r.x + r.y;
    else
      acc += r.x;
    a *= argument_step;
  }
  sums[i] = acc;
}

} // namespace apod::mathfn
