// The table of forms (forms.hpp), their inputs and references, and the reading of results in ulp.
// Bounds: CUDA C++ Programming Guide, Mathematical Functions appendix: 17.1 Standard Functions,
// Table 17 (single precision, maximum ulp error against the correctly rounded result), and 17.2
// Intrinsic Functions, Table 21 (single-precision intrinsics, error bounds).
#include "forms.hpp"

#include "ulp.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace apod::mathfn {
namespace {

const char* const table17 = "CUDA C++ Programming Guide 17.1, Table 17";
const char* const table21 = "CUDA C++ Programming Guide 17.2, Table 21";

Bound ulp_bound(double ulp) {
  return {BoundKind::ulp, ulp, table17};
}
// __sinf: "For x in [-pi, pi], the maximum absolute error is 2^-21.41, and larger otherwise";
// __cosf: 2^-21.19 (Table 21).
Bound absolute_bound(double log2_error) {
  return {BoundKind::absolute, std::exp2(log2_error), table21};
}
const Bound expf_intrinsic_bound{BoundKind::expf_intrinsic, 0, table21};
const Bound no_bound{};

constexpr double pi = 3.14159265358979323846;

std::vector<Form> make_forms() {
  const char* slow = role_slow;
  const char* rec = role_recommended;
  const auto u = Domain::uniform, lg = Domain::log_uniform, ints = Domain::integers;
  const char* integer = family_integer;
  const char* accurate = family_accurate;
  const char* approximate = family_approximate;
  std::vector<Form> f = {
      {FormId::div_runtime, "i / n and i % n, n = 32", "i / n, i % n (n at run time)", slow,
       integer, ints},
      {FormId::div_shift, "i / n and i % n, n = 32", "i >> log2(n), i & (n - 1)", rec, integer,
       ints},
      {FormId::div_literal, "i / n and i % n, n = 32", "i / 32, i % 32", role_literal, integer,
       ints},
      {FormId::loop_unsigned, "loop counter of out[i] = in[offset + stride*i]", "unsigned i", slow,
       integer, ints},
      {FormId::loop_signed, "loop counter of out[i] = in[offset + stride*i]", "signed i", rec,
       integer, ints},
      // 1.0f/sqrtf(x) is two correctly rounded operations; Table 17's 2 ulp applies to it only
      // when the compiler converts it to rsqrtf, which it does not under IEEE semantics (11.1.3).
      {FormId::recip_sqrt, "1.0f/sqrtf(x) vs rsqrtf(x)", "1.0f/sqrtf(x)", slow, accurate, lg,
       0x1p-100, 0x1p100, no_bound},
      {FormId::rsqrt, "1.0f/sqrtf(x) vs rsqrtf(x)", "rsqrtf(x)", rec, accurate, lg, 0x1p-100,
       0x1p100, ulp_bound(2)},
      {FormId::pow_third, "powf(x, 1/3.f) vs cbrtf(x)", "powf(x, 1/3.f)", slow, accurate, lg,
       0x1p-120, 0x1p120, ulp_bound(4), 1, false},
      {FormId::cbrt, "powf(x, 1/3.f) vs cbrtf(x)", "cbrtf(x)", rec, accurate, lg, 0x1p-120, 0x1p120,
       ulp_bound(1)},
      {FormId::pow_minus_third, "powf(x, -1/3.f) vs rcbrtf(x)", "powf(x, -1/3.f)", slow, accurate,
       lg, 0x1p-120, 0x1p120, ulp_bound(4), 1, false},
      {FormId::rcbrt, "powf(x, -1/3.f) vs rcbrtf(x)", "rcbrtf(x)", rec, accurate, lg, 0x1p-120,
       0x1p120, ulp_bound(1)},
      {FormId::pow_2, "powf(2, x) vs exp2f(x)", "powf(2.f, x)", slow, accurate, u, -100, 100,
       ulp_bound(4)},
      {FormId::exp2, "powf(2, x) vs exp2f(x)", "exp2f(x)", rec, accurate, u, -100, 100,
       ulp_bound(2)},
      {FormId::pow_10, "powf(10, x) vs exp10f(x)", "powf(10.f, x)", slow, accurate, u, -30, 30,
       ulp_bound(4)},
      {FormId::exp10, "powf(10, x) vs exp10f(x)", "exp10f(x)", rec, accurate, u, -30, 30,
       ulp_bound(2)},
      // x*x*x is two rounded products: no stated bound.
      {FormId::pow_3, "powf(x, 3) vs x*x*x", "powf(x, 3.f)", slow, accurate, u, -1000, 1000,
       ulp_bound(4)},
      {FormId::cube_mul, "powf(x, 3) vs x*x*x", "x*x*x", rec, accurate, u, -1000, 1000, no_bound},
      {FormId::sin_pi_mul, "sinf(pi*x) vs sinpif(x)", "sinf(3.14159265f*x)", slow, approximate, u,
       -64, 64, ulp_bound(2), 1, false},
      {FormId::sinpi, "sinf(pi*x) vs sinpif(x)", "sinpif(x)", rec, approximate, u, -64, 64,
       ulp_bound(1)},
      {FormId::sin_cos, "sinf + cosf vs sincosf", "sinf(x), cosf(x)", slow, accurate, u, -100, 100,
       ulp_bound(2), 2},
      {FormId::sincos, "sinf + cosf vs sincosf", "sincosf(x)", rec, accurate, u, -100, 100,
       ulp_bound(2), 2},
      {FormId::sin_small, "sinf vs __sinf, |x| <= pi", "sinf(x), |x| <= pi", slow, approximate, u,
       -pi, pi, ulp_bound(2)},
      {FormId::fast_sin_small, "sinf vs __sinf, |x| <= pi", "__sinf(x), |x| <= pi", rec,
       approximate, u, -pi, pi, absolute_bound(-21.41)},
      {FormId::cos_small, "cosf vs __cosf, |x| <= pi", "cosf(x), |x| <= pi", slow, approximate, u,
       -pi, pi, ulp_bound(2)},
      {FormId::fast_cos_small, "cosf vs __cosf, |x| <= pi", "__cosf(x), |x| <= pi", rec,
       approximate, u, -pi, pi, absolute_bound(-21.19)},
      {FormId::exp_small, "expf vs __expf, |x| <= pi", "expf(x), |x| <= pi", slow, approximate, u,
       -pi, pi, ulp_bound(2)},
      {FormId::fast_exp_small, "expf vs __expf, |x| <= pi", "__expf(x), |x| <= pi", rec,
       approximate, u, -pi, pi, expf_intrinsic_bound},
      // Past |x| = 105615 sinf and cosf take the slow reduction path that uses local memory
      // (11.1.6); uniform over |x| <= 1e6, nine inputs in ten need it. __sinf and __cosf have no
      // stated bound outside [-pi, pi] ("larger otherwise").
      {FormId::sin_large, "sinf vs __sinf, |x| <= 1e6", "sinf(x), |x| <= 1e6", slow, approximate, u,
       -1e6, 1e6, ulp_bound(2)},
      {FormId::fast_sin_large, "sinf vs __sinf, |x| <= 1e6", "__sinf(x), |x| <= 1e6", rec,
       approximate, u, -1e6, 1e6, no_bound},
      {FormId::cos_large, "cosf vs __cosf, |x| <= 1e6", "cosf(x), |x| <= 1e6", slow, approximate, u,
       -1e6, 1e6, ulp_bound(2)},
      {FormId::fast_cos_large, "cosf vs __cosf, |x| <= 1e6", "__cosf(x), |x| <= 1e6", rec,
       approximate, u, -1e6, 1e6, no_bound},
      {FormId::exp_large, "expf vs __expf, |x| <= 80", "expf(x), |x| <= 80", slow, approximate, u,
       -80, 80, ulp_bound(2)},
      {FormId::fast_exp_large, "expf vs __expf, |x| <= 80", "__expf(x), |x| <= 80", rec,
       approximate, u, -80, 80, expf_intrinsic_bound},
      // The same source, sinf(x) * expf(-x*x/2) / (1 + x*x), built twice: a composite has no
      // stated bound.
      {FormId::composite, "kernel without vs with -use_fast_math", "composite, default flags", slow,
       approximate, u, -8, 8, no_bound},
      {FormId::composite_fast_math, "kernel without vs with -use_fast_math",
       "composite, -use_fast_math", rec, approximate, u, -8, 8, no_bound},
      {FormId::poly_double_const, "double vs float constants (x * 1.5 vs x * 1.5f)",
       "degree-8 polynomial, double constants", slow, accurate, u, -1, 1, no_bound},
      {FormId::poly_float_const, "double vs float constants (x * 1.5 vs x * 1.5f)",
       "degree-8 polynomial, float constants", rec, accurate, u, -1, 1, no_bound},
  };
  return f;
}

// sin(pi x) without rounding pi x: x - 2 round(x / 2) is exact for a float x, and so is 1 - r,
// so the reduced argument is exact and only the final sin rounds (relative error ~1e-16).
double sinpi_exact(double x) {
  double r = x - 2.0 * std::nearbyint(x / 2.0); // [-1, 1]
  const double sign = r < 0 ? -1.0 : 1.0;
  r = std::fabs(r);
  if (r > 0.5)
    r = 1.0 - r;
  return sign * std::sin(pi * r);
}

uint64_t mix(uint64_t z) { // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

} // namespace

const std::vector<Form>& forms() {
  static const std::vector<Form> all = make_forms();
  return all;
}

const Form& slow_form_of(const Form& f) {
  for (const Form& g : forms())
    if (g.pair == f.pair && g.role == role_slow)
      return g;
  throw std::logic_error("math_functions: no slow form for " + f.pair);
}

const Form* small_argument_form_of(const Form& f) {
  const auto find = [](FormId id) -> const Form* {
    for (const Form& g : forms())
      if (g.id == id)
        return &g;
    return nullptr;
  };
  switch (f.id) {
  case FormId::sin_large:
    return find(FormId::sin_small);
  case FormId::fast_sin_large:
    return find(FormId::fast_sin_small);
  case FormId::cos_large:
    return find(FormId::cos_small);
  case FormId::fast_cos_large:
    return find(FormId::fast_cos_small);
  case FormId::exp_large:
    return find(FormId::exp_small);
  case FormId::fast_exp_large:
    return find(FormId::fast_exp_small);
  default:
    return nullptr;
  }
}

bool has_ulp(const Form& f) {
  return f.domain != Domain::integers;
}

std::vector<float> make_inputs(const Form& f, size_t n, uint64_t seed) {
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) {
    const double u = double(mix(seed + 0x9E3779B97F4A7C15ull * (i + 1)) >> 11) * 0x1p-53;
    in[i] = f.domain == Domain::log_uniform
                ? float(std::exp2(std::log2(f.lo) + (std::log2(f.hi) - std::log2(f.lo)) * u))
                : float(f.lo + (f.hi - f.lo) * u);
  }
  return in;
}

double polynomial_reference(double x) {
  // 1/k! for k = 8 .. 0, the coefficients the kernels write (as double and as float literals).
  static const double c[] = {1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
                             1.0 / 6,     0.5,        1.0,       1.0};
  double p = 0;
  for (double k : c)
    p = p * x + k;
  return p;
}

double intended_value(FormId id, float xf, int output) {
  const double x = xf;
  switch (id) {
  case FormId::recip_sqrt:
  case FormId::rsqrt:
    return 1.0 / std::sqrt(x);
  case FormId::pow_third:
  case FormId::cbrt:
    return std::cbrt(x);
  case FormId::pow_minus_third:
  case FormId::rcbrt:
    return 1.0 / std::cbrt(x);
  case FormId::pow_2:
  case FormId::exp2:
    return std::exp2(x);
  case FormId::pow_10:
  case FormId::exp10:
    return std::pow(10.0, x);
  case FormId::pow_3:
  case FormId::cube_mul:
    return x * x * x;
  case FormId::sin_pi_mul:
  case FormId::sinpi:
    return sinpi_exact(x);
  case FormId::sin_cos:
  case FormId::sincos:
    return output == 0 ? std::sin(x) : std::cos(x);
  case FormId::sin_small:
  case FormId::fast_sin_small:
  case FormId::sin_large:
  case FormId::fast_sin_large:
    return std::sin(x);
  case FormId::cos_small:
  case FormId::fast_cos_small:
  case FormId::cos_large:
  case FormId::fast_cos_large:
    return std::cos(x);
  case FormId::exp_small:
  case FormId::fast_exp_small:
  case FormId::exp_large:
  case FormId::fast_exp_large:
    return std::exp(x);
  case FormId::composite:
  case FormId::composite_fast_math:
    return std::sin(x) * std::exp(-0.5 * x * x) / (1.0 + x * x);
  case FormId::poly_double_const:
  case FormId::poly_float_const:
    return polynomial_reference(x);
  default:
    throw std::logic_error("math_functions: an integer form has no floating-point value");
  }
}

double own_reference(FormId id, float x, int output) {
  switch (id) {
  case FormId::pow_third:
    return std::pow(double(x), double(1.0f / 3.0f));
  case FormId::pow_minus_third:
    return std::pow(double(x), double(-1.0f / 3.0f));
  case FormId::sin_pi_mul: {
    const volatile float product = 3.14159265f * x; // the float the kernel passes to sinf
    return std::sin(double(product));
  }
  default:
    return intended_value(id, x, output);
  }
}

uint32_t division_sum(uint32_t x, int reps) {
  uint32_t acc = 0;
  for (int k = 0; k < reps; ++k, x += dividend_step)
    acc += (x / divisor) ^ (x % divisor);
  return acc;
}

uint32_t strided_sum(const std::vector<uint32_t>& in, uint32_t t, uint32_t stride, int reps) {
  uint32_t acc = 0;
  for (uint32_t j = 0; j < 32; ++j) { // passes r with r % 32 == j read the same words
    const uint32_t passes = uint32_t(reps / 32) + (j < uint32_t(reps % 32) ? 1 : 0);
    uint32_t pass_sum = 0;
    for (int i = 0; i < strided_loop_n; ++i)
      pass_sum += in.at((t ^ j) + size_t(stride) * i);
    acc += pass_sum * passes;
  }
  return acc;
}

double bound_ulp_for_chart(const Form& f) {
  if (f.bound.kind == BoundKind::ulp && f.own_is_intended)
    return f.bound.value;
  if (f.bound.kind == BoundKind::expf_intrinsic)
    return 2 + std::floor(std::fabs(1.173 * std::max(std::fabs(f.lo), std::fabs(f.hi))));
  return -1;
}

namespace {

void accumulate(const Form& f, const std::vector<float>& in, const std::vector<float>& out0,
                const std::vector<float>& out1, size_t begin, size_t end, Accuracy& a,
                double& ulp_sum) {
  for (size_t i = begin; i < end; ++i) {
    const float x = in[i];
    for (int o = 0; o < f.outputs; ++o) {
      const float got = o == 0 ? out0[i] : out1[i];
      const double intended = intended_value(f.id, x, o);
      const uint64_t d = ulp_distance(got, intended);
      const double own = f.own_is_intended ? intended : own_reference(f.id, x, o);
      const uint64_t d_own = ulp_distance(got, own);
      if (d == nan_mismatch || d_own == nan_mismatch) {
        ++a.nan_mismatches;
        continue;
      }
      ++a.results;
      ulp_sum += double(d);
      if (double(d) > a.max_ulp)
        a.max_ulp = double(d), a.worst_input = x;
      a.max_ulp_own = std::max(a.max_ulp_own, double(d_own));
      const double abs_error = std::fabs(double(got) - own);
      a.max_abs_error_own = std::max(a.max_abs_error_own, abs_error);
      bool over = false;
      switch (f.bound.kind) {
      case BoundKind::ulp:
        over = double(d_own) > f.bound.value;
        break;
      case BoundKind::expf_intrinsic:
        over = double(d_own) > 2 + std::floor(std::fabs(1.173 * double(x)));
        break;
      case BoundKind::absolute:
        over = abs_error > f.bound.value;
        break;
      case BoundKind::none:
        break;
      }
      if (over && a.over_bound++ == 0)
        a.first_over_bound_input = x;
    }
  }
}

} // namespace

Accuracy measure_accuracy(const Form& f, const std::vector<float>& in,
                          const std::vector<float>& out0, const std::vector<float>& out1,
                          unsigned threads) {
  if (out0.size() != in.size() || (f.outputs == 2 && out1.size() != in.size()))
    throw std::invalid_argument("math_functions: results and inputs differ in number");
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, std::max<size_t>(1, in.size() / 1024)));
  std::vector<Accuracy> parts(threads);
  std::vector<double> sums(threads, 0.0);
  std::vector<std::thread> workers;
  const size_t chunk = (in.size() + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t begin = std::min(in.size(), t * chunk), end = std::min(in.size(), begin + chunk);
    workers.emplace_back(
        [&, t, begin, end] { accumulate(f, in, out0, out1, begin, end, parts[t], sums[t]); });
  }
  for (auto& w : workers)
    w.join();
  Accuracy all;
  double ulp_sum = 0;
  for (unsigned t = 0; t < threads; ++t) { // in order: the first input over the bound is kept
    const Accuracy& p = parts[t];
    if (p.results > 0 && (all.results == 0 || p.max_ulp > all.max_ulp))
      all.max_ulp = p.max_ulp, all.worst_input = p.worst_input;
    all.max_ulp_own = std::max(all.max_ulp_own, p.max_ulp_own);
    all.max_abs_error_own = std::max(all.max_abs_error_own, p.max_abs_error_own);
    if (all.over_bound == 0 && p.over_bound > 0)
      all.first_over_bound_input = p.first_over_bound_input;
    all.over_bound += p.over_bound;
    all.nan_mismatches += p.nan_mismatches;
    all.results += p.results;
    ulp_sum += sums[t];
  }
  all.mean_ulp = all.results ? ulp_sum / double(all.results) : 0;
  return all;
}

std::string accuracy_failure(const Form& f, const Accuracy& a) {
  std::ostringstream out;
  if (a.nan_mismatches > 0)
    out << f.form << ": " << a.nan_mismatches << " results NaN where the reference is a number "
        << "(or the reverse). ";
  if (a.over_bound > 0) {
    out << f.form << ": " << a.over_bound << " of " << a.results
        << " results exceed the stated bound of " << f.bound.source << " (";
    switch (f.bound.kind) {
    case BoundKind::ulp:
      out << f.bound.value << " ulp; measured up to " << a.max_ulp_own << " ulp";
      break;
    case BoundKind::expf_intrinsic:
      out << "2 + floor(|1.173 x|) ulp; measured up to " << a.max_ulp_own << " ulp";
      break;
    case BoundKind::absolute:
      out << "absolute error " << f.bound.value << "; measured up to " << a.max_abs_error_own;
      break;
    case BoundKind::none:
      break;
    }
    out << "), first at x = " << a.first_over_bound_input << ".";
  }
  return out.str();
}

} // namespace apod::mathfn
