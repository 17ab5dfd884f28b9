// The host's answer for the overlap matrix (fasiha's gist, shared/seeds/004_...): the gist's
// input, its three kernels evaluated in float64, and how far the GPU's float evaluation may lie
// from that answer. The tolerance comes from the conditioning of each kernel's float evaluation
// with respect to the rounding of each operation it performs, with the maximum errors the CUDA
// C++ Programming Guide lists for its single-precision functions (appendix "Mathematical
// Functions", table of maximum ulp errors: x*y correctly rounded, asinf 4 ulp, expf 2 ulp,
// log10f 2 ulp). The input is never changed to make the check pass.
#pragma once

#include <cstddef>
#include <vector>

namespace apod {

/// The gist's kernels: fast -2.3f * x, medium asinf(x), slow log10f(expf(asinf(x))).
enum class Kernel { fast, medium, slow };
inline constexpr Kernel all_kernels[] = {Kernel::fast, Kernel::medium, Kernel::slow};

/// "fast", "medium", "slow".
const char* kernel_name(Kernel k);

/// The gist's initializeData at index i: std::sin(i + 3.93123f), in float.
float gist_input(size_t i);

/// Writes gist_input(0 .. n-1) to `out` on the calling thread, as the gist's host does inside
/// its overall timer.
void write_gist_input(float* out, size_t n);

/// The kernel's function of the float x, in float64: -2.3f * x (the float constant, so the
/// product is exact in double), asin(x), or log10(exp(asin(x))) = asin(x) / ln 10.
double reference_value(Kernel k, float x);

/// The largest |GPU result - reference_value| a correct float evaluation can show. With
/// u = 2^-23 (FLT_EPSILON) and a function of maximum error k ulp off a correctly rounded result
/// erring by at most (k + 1/2) u relative, to first order:
///   fast    0.5 u |y|                       (one correctly rounded multiply)
///   medium  4.5 u |y|                       (asinf)
///   slow    u (7 |y| + 2.5 / ln 10)         (asinf's error passes through exp and log10
///                                            unchanged in absolute terms; expf's relative error
///                                            becomes an absolute error of log10 divided by ln 10,
///                                            which is why the relative error grows without bound
///                                            as y -> 0; log10f adds its own 2.5 u |y|)
/// times a margin of 2 for the second-order terms and because the guide's bounds come from
/// extensive but not exhaustive tests.
double tolerance(Kernel k, double reference);

/// Margin applied to the first-order bounds above.
inline constexpr double tolerance_margin = 2.0;

/// The answer for every element of an input: float64 value and its tolerance (rounded up).
struct Expected {
  std::vector<double> value;
  std::vector<float> tolerance;
  size_t size() const { return value.size(); }
};
/// Computes Expected for `n` elements of `input` (in parallel on the host's cores).
Expected expected_outputs(Kernel k, const float* input, size_t n);

/// How a GPU output compares with its Expected: the elements outside their tolerance (NaN
/// counts as outside) and the largest |got - value| / tolerance seen.
struct CheckResult {
  size_t wrong = 0;
  double worst_error_over_tolerance = 0;
  void merge(const CheckResult& other);
};
CheckResult check_outputs(const float* got, const Expected& expected);

} // namespace apod
