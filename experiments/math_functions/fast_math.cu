// The composite of eval_kernel.cuh built with -use_fast_math (meson.build gives this file, alone,
// that flag): sinf, expf and / become __sinf, __expf and __fdividef, and denormals are flushed
// (Best Practices Guide 11.1.6; Programming Guide 17.2, Table 20).
#include "eval_kernel.cuh"
#include "fast_math.hpp"

namespace apod::mathfn {
namespace {

struct CompositeFastMath {
  static constexpr int outputs = 1;
  static __device__ float2 eval(float x) { return make_float2(composite_source(x), 0.0f); }
};

} // namespace

void launch_composite_fast_math(const float* in, float* first, float* sums, unsigned grid, int reps,
                                cudaStream_t stream) {
  eval_kernel<CompositeFastMath><<<grid, block_size, 0, stream>>>(in, first, nullptr, sums, reps);
}

const void* composite_fast_math_kernel() {
  return reinterpret_cast<const void*>(&eval_kernel<CompositeFastMath>);
}

} // namespace apod::mathfn
