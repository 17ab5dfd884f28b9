// The -use_fast_math translation unit (fast_math.cu, a static library of its own built with that
// flag): the composite of eval_kernel.cuh compiled under it. It registers nothing;
// math_functions.cu launches it beside the same source built with the default flags.
#pragma once

#include <cuda_runtime.h>

namespace apod::mathfn {

/// Launches eval_kernel on the composite built with -use_fast_math: `grid` blocks, one input each
/// thread, results to first[], sums to sums[].
void launch_composite_fast_math(const float* in, float* first, float* sums, unsigned grid, int reps,
                                cudaStream_t stream);
/// That kernel, for its attributes (registers, local memory).
const void* composite_fast_math_kernel();

} // namespace apod::mathfn
