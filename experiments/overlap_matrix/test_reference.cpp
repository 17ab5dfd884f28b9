// The overlap matrix's host answer (reference.hpp): the gist's input unchanged, a float64
// reference, and a tolerance that admits every float evaluation within the CUDA ulp bounds while
// rejecting skipped, swapped or corrupted outputs.
#include "reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

using namespace apod;

namespace {

constexpr double u = std::numeric_limits<float>::epsilon();

// x moved by `ulps` units in the last place (negative: down).
float nudge(float x, int ulps) {
  for (; ulps > 0; --ulps)
    x = std::nextafter(x, INFINITY);
  for (; ulps < 0; ++ulps)
    x = std::nextafter(x, -INFINITY);
  return x;
}

// A float evaluation of kernel k on x with every operation off its correctly rounded result by
// the CUDA bound (x*y 0, asinf 4, expf 2, log10f 2 ulp) in the directions of `signs` (bits).
float worst_case_float(Kernel k, float x, int signs) {
  const auto dir = [&](int bit) { return (signs >> bit & 1) ? 1 : -1; };
  if (k == Kernel::fast)
    return -2.3f * x;
  const float a = nudge(float(std::asin(double(x))), 4 * dir(0));
  if (k == Kernel::medium)
    return a;
  const float b = nudge(float(std::exp(double(a))), 2 * dir(1));
  return nudge(float(std::log10(double(b))), 2 * dir(2));
}

std::vector<float> gist_inputs(size_t n, size_t stride = 1) {
  std::vector<float> x;
  for (size_t i = 0; i < n; i += stride)
    x.push_back(gist_input(i));
  return x;
}

} // namespace

TEST(OverlapReference, InputIsTheGistsSineUnchanged) {
  for (size_t i : {size_t(0), size_t(1), size_t(777), size_t(16383)})
    EXPECT_EQ(gist_input(i), std::sin(float(i) + 3.93123f)) << i;
  std::vector<float> written(16384);
  write_gist_input(written.data(), written.size());
  EXPECT_EQ(written, gist_inputs(16384));
  // Version 1 folded |x| into [0.25, 1]; the gist's values reach both signs and near zero.
  size_t small = 0, negative = 0;
  for (float x : written)
    small += std::abs(x) < 0.01f, negative += x < 0;
  EXPECT_GT(small, 10u);
  EXPECT_GT(negative, 16384u / 3);
}

TEST(OverlapReference, ReferenceIsTheKernelsFunctionInDouble) {
  EXPECT_EQ(reference_value(Kernel::fast, 0.5f), double(-2.3f) * 0.5);
  EXPECT_DOUBLE_EQ(reference_value(Kernel::medium, 0.5f), std::numbers::pi / 6);
  EXPECT_DOUBLE_EQ(reference_value(Kernel::slow, 0.5f), std::log10(std::exp(std::numbers::pi / 6)));
}

TEST(OverlapReference, ToleranceFollowsTheConditioningOfEachKernel) {
  EXPECT_DOUBLE_EQ(tolerance(Kernel::fast, -2.0), tolerance_margin * 0.5 * u * 2.0);
  EXPECT_DOUBLE_EQ(tolerance(Kernel::medium, 1.0), tolerance_margin * 4.5 * u);
  // Near zero the slow kernel keeps an absolute floor: expf rounds 1 + y, log10 keeps the error.
  EXPECT_DOUBLE_EQ(tolerance(Kernel::slow, 0.0), tolerance_margin * 2.5 * u / std::numbers::ln10);
  EXPECT_DOUBLE_EQ(tolerance(Kernel::slow, -0.5),
                   tolerance_margin * u * (7 * 0.5 + 2.5 / std::numbers::ln10));
}

TEST(OverlapReference, EveryFloatEvaluationWithinTheCudaBoundsIsAccepted) {
  // All 16 Ki inputs of the gist and every 61st of 4 Mi (the corrected variant's large size).
  for (const auto& input : {gist_inputs(16384), gist_inputs(size_t(4) << 20, 61)})
    for (const Kernel k : all_kernels) {
      const Expected expected = expected_outputs(k, input.data(), input.size());
      double worst = 0;
      for (int signs = 0; signs < 8; ++signs) {
        std::vector<float> got(input.size());
        for (size_t i = 0; i < input.size(); ++i)
          got[i] = worst_case_float(k, input[i], signs);
        const CheckResult r = check_outputs(got.data(), expected);
        EXPECT_EQ(r.wrong, 0u) << kernel_name(k) << " signs " << signs;
        worst = std::max(worst, r.worst_error_over_tolerance);
      }
      // The first-order bound is reached (0.96-0.999 of it without the margin), so the
      // tolerance is no looser than the margin makes it.
      EXPECT_GT(worst, 0.9 / tolerance_margin) << kernel_name(k);
      EXPECT_LE(worst, 1.0 / tolerance_margin) << kernel_name(k);
    }
}

TEST(OverlapReference, TheGistsRelativeCheckCouldNotJudgeTheSlowKernelNearZero) {
  // Where asin(x) is tiny, a correct float result is off by far more than the gist's 500 x
  // FLT_EPSILON relative: the conditioning, not the GPU. The absolute floor accepts it.
  const std::vector<float> input = gist_inputs(16384);
  const Expected expected = expected_outputs(Kernel::slow, input.data(), input.size());
  size_t beyond_gist = 0;
  for (size_t i = 0; i < input.size(); ++i) {
    const float got = worst_case_float(Kernel::slow, input[i], 7);
    beyond_gist += std::abs(got - expected.value[i]) / std::abs(expected.value[i]) > 500 * u;
  }
  EXPECT_GT(beyond_gist, 0u);
}

TEST(OverlapReference, SkippedSwappedAndCorruptedOutputsFail) {
  const std::vector<float> input = gist_inputs(16384);
  for (const Kernel k : all_kernels) {
    const Expected expected = expected_outputs(k, input.data(), input.size());
    // The kernel never ran: the output is the input.
    EXPECT_GT(check_outputs(input.data(), expected).wrong, input.size() / 2) << kernel_name(k);
    // Another kernel's output.
    const Kernel other = k == Kernel::slow ? Kernel::medium : Kernel::slow;
    std::vector<float> swapped(input.size());
    for (size_t i = 0; i < input.size(); ++i)
      swapped[i] = worst_case_float(other, input[i], 0);
    EXPECT_GT(check_outputs(swapped.data(), expected).wrong, input.size() / 2) << kernel_name(k);
    // One element NaN, one just outside its tolerance.
    std::vector<float> got(input.size());
    for (size_t i = 0; i < input.size(); ++i)
      got[i] = float(expected.value[i]);
    got[5] = std::numeric_limits<float>::quiet_NaN();
    got[9] = float(expected.value[9] + 1.5 * expected.tolerance[9]);
    const CheckResult r = check_outputs(got.data(), expected);
    EXPECT_EQ(r.wrong, 2u) << kernel_name(k);
    EXPECT_GT(r.worst_error_over_tolerance, 1.4);
  }
}

TEST(OverlapReference, WorstErrorIsMeasuredInTolerances) {
  const float x[] = {0.5f, -0.25f};
  const Expected expected = expected_outputs(Kernel::medium, x, 2);
  const float got[] = {float(expected.value[0] + 0.5 * expected.tolerance[0]),
                       float(expected.value[1])};
  const CheckResult r = check_outputs(got, expected);
  EXPECT_EQ(r.wrong, 0u);
  EXPECT_NEAR(r.worst_error_over_tolerance, 0.5, 0.1);
}
