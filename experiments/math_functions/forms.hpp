// The pairs of the Best Practices Guide's instruction advice (11.1, shared/seeds/000_...): each
// code form, the role it plays in its pair, the inputs it is measured on, the CUDA C++
// Programming Guide's stated error bound for it, and the double-precision host references its
// results are read against. Host code: the tests and the run share one table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod::mathfn {

enum class FormId {
  div_runtime,
  div_shift,
  div_literal, // integer / and % (11.1.1)
  loop_unsigned,
  loop_signed, // loop counters (11.1.2)
  recip_sqrt,
  rsqrt, // 11.1.3
  pow_third,
  cbrt,
  pow_minus_third,
  rcbrt,
  pow_2,
  exp2,
  pow_10,
  exp10,
  pow_3,
  cube_mul, // 11.1.6
  sin_pi_mul,
  sinpi,
  sin_cos,
  sincos, // 11.1.6
  sin_small,
  fast_sin_small,
  cos_small,
  fast_cos_small,
  exp_small,
  fast_exp_small, // 11.1.6
  sin_large,
  fast_sin_large,
  cos_large,
  fast_cos_large,
  exp_large,
  fast_exp_large, // 11.1.6
  composite,
  composite_fast_math, // -use_fast_math (11.1.6)
  poly_double_const,
  poly_float_const // double constants in float code (11.1.4)
};

/// Which error bound the Programming Guide states for a form, against its own arguments.
enum class BoundKind {
  none,           ///< no stated bound for this form (a composite, an unconverted 1.0f/sqrtf)
  ulp,            ///< at most `value` ulp (Table 17)
  expf_intrinsic, ///< __expf: at most 2 + floor(|1.173 x|) ulp (Table 21)
  absolute,       ///< at most `value` absolute error (__sinf, __cosf on [-pi, pi], Table 21)
};

struct Bound {
  BoundKind kind = BoundKind::none;
  double value = 0;
  std::string source; ///< where the Programming Guide states it
};

enum class Domain { uniform, log_uniform, integers };

/// One code form of a pair.
struct Form {
  FormId id;
  std::string pair;   ///< the advice, as the chart's x: "powf(x, 1/3.f) vs cbrtf(x)"
  std::string form;   ///< the code: "cbrtf(x)"
  std::string role;   ///< role_slow, role_recommended or role_literal
  std::string family; ///< family_integer, family_accurate or family_approximate
  Domain domain = Domain::uniform;
  double lo = 0, hi = 0; ///< the inputs' range
  Bound bound;
  int outputs = 1; ///< sinf + cosf and sincosf give two results per input
  /// Whether the form's own arguments are the intended ones: false for powf(x, 1/3.f) (1/3.f is
  /// not 1/3) and sinf(pi*x) (pi*x is rounded); its bound is read against its own arguments.
  bool own_is_intended = true;
};

inline constexpr const char* role_slow = "slow";
inline constexpr const char* role_recommended = "recommended";
inline constexpr const char* role_literal = "literal divisor (compiler converts)";
inline constexpr const char* family_integer = "integer";
inline constexpr const char* family_accurate = "library functions";
inline constexpr const char* family_approximate = "approximate forms";

/// Every form, pairs together, the slow form first in each.
const std::vector<Form>& forms();
/// The slow form of `f`'s pair.
const Form& slow_form_of(const Form& f);
/// The same function on small arguments (|x| <= pi) of a form on arguments that need reduction
/// (sinf at |x| <= 1e6 -> sinf at |x| <= pi), or nullptr: what the guide's "about an order of
/// magnitude slower if the magnitude of the argument x needs to be reduced" compares (11.1.6).
const Form* small_argument_form_of(const Form& f);
/// Whether the form's results are floats read in ulp (else integers checked exactly).
bool has_ulp(const Form& f);

/// n inputs spread over the form's domain (uniform, or uniform in log2 for log_uniform), the
/// same for a seed and index on every run.
std::vector<float> make_inputs(const Form& f, size_t n, uint64_t seed);

/// What the form is meant to compute at x, in double precision (output 1: the cosine of sincos).
double intended_value(FormId id, float x, int output = 0);
/// What the form computes from its own float arguments, in double precision: the reference its
/// stated bound is read against (powf(x, (double)(1/3.f)), sin((double)(float)(pi_f * x))).
double own_reference(FormId id, float x, int output = 0);

/// The guide's polynomial of the constants pair, degree 8 (the Taylor series of e^x), in double.
double polynomial_reference(double x);

/// The stated bound in ulp against the intended value, for the chart's limit, where there is one:
/// a ulp bound of a form whose own arguments are the intended ones, and __expf's at the range's
/// largest |x|. Negative: none.
double bound_ulp_for_chart(const Form& f);

// The integer pairs, checked exactly.
/// The division kernels' divisor (a power of two, given at run time or as a literal).
inline constexpr uint32_t divisor = 32, divisor_log2 = 5;
/// Each evaluation's dividend is the previous one plus this (mod 2^32).
inline constexpr uint32_t dividend_step = 0x9E3779B9u;
/// What a thread of the division kernels stores: the sum (mod 2^32) over `reps` evaluations of
/// (x / 32) ^ (x % 32), x starting at its input.
uint32_t division_sum(uint32_t x, int reps);
/// The guide's strided loop runs this many iterations per pass.
inline constexpr int strided_loop_n = 16;
/// What thread t of the strided-loop kernels stores: the sum (mod 2^32) over passes r < reps and
/// i < strided_loop_n of in[(t ^ (r % 32)) + stride * i].
uint32_t strided_sum(const std::vector<uint32_t>& in, uint32_t t, uint32_t stride, int reps);

/// A form's results read against the references.
struct Accuracy {
  size_t results = 0;
  double max_ulp = 0, mean_ulp = 0; ///< against the intended value
  double max_ulp_own = 0;           ///< against the form's own arguments
  double max_abs_error_own = 0;     ///< |result - own reference|
  float worst_input = 0;            ///< an input where max_ulp was reached
  size_t nan_mismatches = 0;        ///< NaN where the reference is a number, or the reverse
  size_t over_bound = 0;            ///< results beyond the stated bound
  float first_over_bound_input = 0;
};

/// Reads results (out1: the second output, or empty) against the references, in parallel over
/// `threads` host threads (0: the hardware's).
Accuracy measure_accuracy(const Form& f, const std::vector<float>& in,
                          const std::vector<float>& out0, const std::vector<float>& out1,
                          unsigned threads = 0);

/// "" when the form kept its stated bound and gave no NaN where a number was due; else why not,
/// in words for the run's error.
std::string accuracy_failure(const Form& f, const Accuracy& a);

} // namespace apod::mathfn
