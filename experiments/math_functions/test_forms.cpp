// math_functions' host maths: the ulp distance the Programming Guide's bounds are stated in, the
// references, the bounds of the table and their check, and the integer forms' exact sums.
#include "forms.hpp"
#include "ulp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

using namespace apod::mathfn;

namespace {
float next_up(float x, int steps = 1) {
  for (int i = 0; i < steps; ++i)
    x = std::nextafter(x, std::numeric_limits<float>::infinity());
  return x;
}
const Form& form_of(FormId id) {
  for (const Form& f : forms())
    if (f.id == id)
      return f;
  throw std::logic_error("no such form");
}
} // namespace

TEST(Ulp, ACorrectlyRoundedResultIsZeroUlp) {
  EXPECT_EQ(ulp_distance(1.0f, 1.0), 0u);
  // 1/3 in double rounds to the float 1/3.f: 0 ulp, though the float is not 1/3.
  EXPECT_EQ(ulp_distance(1.0f / 3.0f, 1.0 / 3.0), 0u);
  EXPECT_EQ(ulp_distance(0.1f, 0.1), 0u);
}

TEST(Ulp, CountsTheFloatsBetweenResultAndTheRoundedReference) {
  EXPECT_EQ(ulp_distance(next_up(1.0f), 1.0), 1u);
  EXPECT_EQ(ulp_distance(next_up(1.0f, 3), 1.0), 3u);
  EXPECT_EQ(ulp_distance(1.0f, double(next_up(1.0f, 5))), 5u);
  // Across a power of two the float spacing halves below it: still one float per ulp.
  EXPECT_EQ(ulp_distance(std::nextafter(2.0f, 0.0f), 2.0), 1u);
  EXPECT_EQ(ulp_distance(next_up(2.0f), 2.0), 1u);
}

TEST(Ulp, SignsAreSymmetricAndZeroIsOnePoint) {
  EXPECT_EQ(ulp_distance(-next_up(1.0f, 2), -1.0), 2u);
  EXPECT_EQ(ulp_distance(-0.0f, 0.0), 0u);
  EXPECT_EQ(ulp_distance(0.0f, -0.0), 0u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(tiny, -double(tiny)), 2u); // -d, 0, +d
  EXPECT_EQ(ulp_distance(-1.0f, 1.0), uint64_t(2 * ordered_position(1.0f)));
}

TEST(Ulp, SubnormalsAreSteppedOneByOne) {
  const float d = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(3 * d, double(d)), 2u);
  EXPECT_EQ(ulp_distance(0.0f, double(d)), 1u);
  const float smallest_normal = std::numeric_limits<float>::min();
  EXPECT_EQ(ulp_distance(std::nextafter(smallest_normal, 0.0f), double(smallest_normal)), 1u);
  // A reference between subnormals rounds to the nearer one.
  EXPECT_EQ(ulp_distance(2 * d, 2.4 * double(d)), 0u);
}

TEST(Ulp, InfinityIsOneStepPastTheLargestFloatAndNanMatchesOnlyNan) {
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(ulp_distance(inf, 1e300), 0u); // the reference overflows float
  EXPECT_EQ(ulp_distance(big, 1e300), 1u);
  EXPECT_EQ(ulp_distance(-inf, -double(inf)), 0u);
  EXPECT_EQ(ulp_distance(std::nanf(""), std::nan("")), 0u);
  EXPECT_EQ(ulp_distance(std::nanf(""), 1.0), nan_mismatch);
  EXPECT_EQ(ulp_distance(1.0f, std::nan("")), nan_mismatch);
}

TEST(Forms, EveryPairHasOneSlowFormListedFirstAndTheSameInputs) {
  std::set<std::string> seen;
  for (const Form& f : forms()) {
    const Form& slow = slow_form_of(f);
    EXPECT_EQ(slow.pair, f.pair);
    EXPECT_EQ(slow.domain, f.domain) << f.form;
    EXPECT_EQ(slow.lo, f.lo) << f.form;
    EXPECT_EQ(slow.hi, f.hi) << f.form;
    EXPECT_EQ(slow.outputs, f.outputs) << f.form;
    EXPECT_EQ(slow.family, f.family) << f.form;
    if (f.role == role_slow)
      EXPECT_TRUE(seen.insert(f.pair).second) << "two slow forms: " << f.pair;
    else
      EXPECT_TRUE(seen.count(f.pair)) << "slow form not first: " << f.pair;
  }
  EXPECT_EQ(seen.size(), 18u);
}

TEST(Forms, TheStatedBoundsAreTheProgrammingGuidesTables) {
  // Table 17: rsqrtf 2, cbrtf 1, rcbrtf 1, exp2f 2, exp10f 2, powf 4, sinpif 1, sinf 2, sincosf 2.
  EXPECT_EQ(form_of(FormId::rsqrt).bound.value, 2);
  EXPECT_EQ(form_of(FormId::cbrt).bound.value, 1);
  EXPECT_EQ(form_of(FormId::rcbrt).bound.value, 1);
  EXPECT_EQ(form_of(FormId::exp2).bound.value, 2);
  EXPECT_EQ(form_of(FormId::exp10).bound.value, 2);
  EXPECT_EQ(form_of(FormId::pow_third).bound.value, 4);
  EXPECT_EQ(form_of(FormId::sinpi).bound.value, 1);
  EXPECT_EQ(form_of(FormId::sin_large).bound.value, 2);
  EXPECT_EQ(form_of(FormId::sincos).bound.value, 2);
  // Table 21: __sinf 2^-21.41 and __cosf 2^-21.19 absolute on [-pi, pi], none beyond.
  EXPECT_DOUBLE_EQ(form_of(FormId::fast_sin_small).bound.value, std::exp2(-21.41));
  EXPECT_DOUBLE_EQ(form_of(FormId::fast_cos_small).bound.value, std::exp2(-21.19));
  EXPECT_EQ(form_of(FormId::fast_sin_large).bound.kind, BoundKind::none);
  EXPECT_EQ(form_of(FormId::fast_exp_large).bound.kind, BoundKind::expf_intrinsic);
  // The chart's tick for __expf over |x| <= 80: 2 + floor(1.173 * 80) = 95 ulp.
  EXPECT_EQ(bound_ulp_for_chart(form_of(FormId::fast_exp_large)), 95);
  // A bound read against the form's own arguments is not drawn against the intended value.
  EXPECT_LT(bound_ulp_for_chart(form_of(FormId::pow_third)), 0);
  EXPECT_LT(bound_ulp_for_chart(form_of(FormId::cube_mul)), 0);
}

TEST(Forms, InputsCoverTheRangeAndRepeat) {
  const Form& f = form_of(FormId::cbrt);
  const auto in = make_inputs(f, 1 << 14, 7);
  EXPECT_EQ(in, make_inputs(f, 1 << 14, 7));
  float lo = in[0], hi = in[0];
  for (float x : in)
    lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_GE(lo, float(f.lo));
  EXPECT_LE(hi, float(f.hi));
  EXPECT_LT(lo, 0x1p-110f); // log-uniform: reaches near both ends
  EXPECT_GT(hi, 0x1p110f);
}

TEST(Forms, ReferencesAreTheIntendedFunctions) {
  EXPECT_DOUBLE_EQ(intended_value(FormId::pow_third, 27.0f), 3.0);
  EXPECT_DOUBLE_EQ(intended_value(FormId::rcbrt, 8.0f), 0.5);
  EXPECT_DOUBLE_EQ(intended_value(FormId::pow_10, 3.0f), 1000.0);
  EXPECT_EQ(intended_value(FormId::sinpi, 3.0f), 0.0); // exactly: no rounded pi
  EXPECT_NEAR(intended_value(FormId::sinpi, 0.5f), 1.0, 1e-16);
  EXPECT_NEAR(intended_value(FormId::sinpi, -40.25f), -std::sqrt(0.5), 1e-15);
  EXPECT_DOUBLE_EQ(intended_value(FormId::sincos, 0.0f, 1), 1.0);
  EXPECT_NEAR(intended_value(FormId::poly_float_const, 1.0f), std::exp(1.0),
              4e-6); // degree 8: 1/9! + ... = 3.06e-6
  // powf(x, 1/3.f) raises to the float 1/3.f, not 1/3: at 2^120 that is ~7 ulp from cbrt.
  const float x = 0x1p120f;
  EXPECT_NE(own_reference(FormId::pow_third, x), intended_value(FormId::pow_third, x));
  EXPECT_GT(ulp_distance(float(own_reference(FormId::pow_third, x)),
                         intended_value(FormId::pow_third, x)),
            4u);
}

TEST(Accuracy, AnExactlyRoundedFormReadsZeroAndPasses) {
  const Form& f = form_of(FormId::cbrt);
  const auto in = make_inputs(f, 4096, 3);
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = float(std::cbrt(double(in[i])));
  const Accuracy a = measure_accuracy(f, in, out, {}, 4);
  EXPECT_EQ(a.results, in.size());
  EXPECT_EQ(a.max_ulp, 0);
  EXPECT_EQ(a.mean_ulp, 0);
  EXPECT_EQ(accuracy_failure(f, a), "");
}

TEST(Accuracy, AResultBeyondTheStatedBoundFailsWithItsInput) {
  const Form& f = form_of(FormId::cbrt); // 1 ulp
  const auto in = make_inputs(f, 4096, 3);
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = float(std::cbrt(double(in[i])));
  out[1000] = next_up(out[1000], 2);
  out[3000] = next_up(out[3000], 1);
  const Accuracy a = measure_accuracy(f, in, out, {}, 3);
  EXPECT_EQ(a.max_ulp, 2);
  EXPECT_EQ(a.over_bound, 1u);
  EXPECT_EQ(a.worst_input, in[1000]);
  EXPECT_EQ(a.first_over_bound_input, in[1000]);
  EXPECT_DOUBLE_EQ(a.mean_ulp, 3.0 / 4096);
  const std::string why = accuracy_failure(f, a);
  EXPECT_NE(why.find("cbrtf(x)"), std::string::npos) << why;
  EXPECT_NE(why.find("Table 17"), std::string::npos) << why;
  EXPECT_NE(why.find("1 ulp"), std::string::npos) << why;
}

TEST(Accuracy, TheExpIntrinsicsBoundGrowsWithItsArgument) {
  const Form& f = form_of(FormId::fast_exp_large);
  const std::vector<float> in = {0.5f, 50.0f};
  // 2 + floor(1.173 * 50) = 60 ulp allowed at 50, 2 at 0.5.
  std::vector<float> out = {next_up(float(std::exp(0.5)), 2), next_up(float(std::exp(50.0)), 60)};
  EXPECT_EQ(measure_accuracy(f, in, out, {}, 1).over_bound, 0u);
  out[0] = next_up(float(std::exp(0.5)), 3);
  EXPECT_EQ(measure_accuracy(f, in, out, {}, 1).over_bound, 1u);
}

TEST(Accuracy, NanWhereANumberIsDueFailsEvenWithoutABound) {
  const Form& f = form_of(FormId::composite_fast_math);
  const std::vector<float> in = {1.0f, 2.0f};
  const std::vector<float> out = {float(intended_value(f.id, 1.0f)), std::nanf("")};
  const Accuracy a = measure_accuracy(f, in, out, {}, 1);
  EXPECT_EQ(a.nan_mismatches, 1u);
  EXPECT_NE(accuracy_failure(f, a), "");
}

TEST(Accuracy, BothOutputsOfSincosAreRead) {
  const Form& f = form_of(FormId::sincos);
  const std::vector<float> in = {0.5f};
  const std::vector<float> s = {float(std::sin(0.5))};
  const std::vector<float> c = {next_up(float(std::cos(0.5)), 3)};
  const Accuracy a = measure_accuracy(f, in, s, c, 1);
  EXPECT_EQ(a.results, 2u);
  EXPECT_EQ(a.max_ulp, 3);
  EXPECT_EQ(a.over_bound, 1u);
}

TEST(Integers, DivisionSumIsTheQuotientXorRemainderSummed) {
  EXPECT_EQ(division_sum(100, 1), (100u / 32) ^ (100u % 32));
  EXPECT_EQ(division_sum(0, 2), 0u ^ (dividend_step / 32 ^ dividend_step % 32));
  uint32_t x = 0xFFFFFFF0u, acc = 0;
  for (int k = 0; k < 5; ++k, x += dividend_step)
    acc += (x >> divisor_log2) ^ (x & (divisor - 1)); // shift and mask give the same
  EXPECT_EQ(division_sum(0xFFFFFFF0u, 5), acc);
}

TEST(Integers, StridedSumFollowsTheLoopPassByPass) {
  const uint32_t stride = 64;
  std::vector<uint32_t> in(stride * strided_loop_n);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint32_t(i * 2654435761u);
  for (int reps : {1, 31, 32, 70}) {
    uint32_t t = 37, acc = 0;
    for (int r = 0; r < reps; ++r)
      for (int i = 0; i < strided_loop_n; ++i)
        acc += in[(t ^ uint32_t(r & 31)) + stride * i];
    EXPECT_EQ(strided_sum(in, t, stride, reps), acc) << reps;
  }
}

TEST(Forms, ArgumentsThatNeedReductionAreReadAgainstTheSameFunctionOnSmallOnes) {
  EXPECT_EQ(small_argument_form_of(form_of(FormId::sin_large))->id, FormId::sin_small);
  EXPECT_EQ(small_argument_form_of(form_of(FormId::fast_cos_large))->id, FormId::fast_cos_small);
  EXPECT_EQ(small_argument_form_of(form_of(FormId::exp_large))->id, FormId::exp_small);
  EXPECT_EQ(small_argument_form_of(form_of(FormId::sin_small)), nullptr);
  EXPECT_EQ(small_argument_form_of(form_of(FormId::cbrt)), nullptr);
  // The small-argument form is measured first, so its rate is there to divide by.
  for (const Form& f : forms()) {
    if (const Form* small = small_argument_form_of(f)) {
      EXPECT_LT(small - forms().data(), &f - forms().data()) << f.form;
    }
  }
}
