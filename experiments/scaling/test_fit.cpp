// Least-squares fits of the parallel fraction P (runner/fit.cpp): the scaling experiment's
// fitted_parallel_fraction and amdahl_limit rest on these.
#include "fit.hpp"
#include "core/theory.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

using namespace apod;

namespace {

// The processor multiples the scaling experiment measures on an H200: 8..128 SMs in steps of 8,
// then all 132, over a base of 8 SMs.
std::vector<double> h200_multiples() {
  std::vector<double> n;
  for (int sm = 8; sm <= 128; sm += 8) n.push_back(sm / 8.0);
  n.push_back(132 / 8.0);
  return n;
}

// Speed-ups the law predicts, each multiplied by (1 + noise) with noise ~ N(0, relative_sd);
// the base point stays exactly 1, as a speed-up over itself is.
std::vector<double> synthetic(ScalingLaw law, double p, const std::vector<double>& n, double relative_sd,
                              unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, relative_sd);
  std::vector<double> s;
  for (double x : n) s.push_back(x == 1.0 ? 1.0 : predicted_speedup(law, p, x) * (1.0 + noise(rng)));
  return s;
}

void print_residuals(const char* name, const ScalingFit& fit, const std::vector<double>& n) {
  std::printf("%s: P = %.6f, rms residual = %.4g\n", name, fit.parallel_fraction, fit.rms_residual);
  for (size_t i = 0; i < n.size(); ++i)
    std::printf("  N = %5.3g  fitted %8.4f  residual %+.4f\n", n[i], fit.fitted[i], fit.residuals[i]);
}

}  // namespace

TEST(Fit, PredictedSpeedupIsTheoryFormula) {
  EXPECT_DOUBLE_EQ(predicted_speedup(ScalingLaw::amdahl, 0.9, 16), amdahl_speedup(0.9, 16));
  EXPECT_DOUBLE_EQ(predicted_speedup(ScalingLaw::gustafson, 0.9, 16), gustafson_speedup(0.9, 16));
}

TEST(Fit, RecoversAmdahlFractionFromExactData) {
  const auto n = h200_multiples();
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n, synthetic(ScalingLaw::amdahl, 0.9, n, 0.0, 1));
  EXPECT_NEAR(fit.parallel_fraction, 0.9, 1e-8);
  EXPECT_LT(fit.rms_residual, 1e-8);
  ASSERT_EQ(fit.residuals.size(), n.size());
  EXPECT_NEAR(fit.fitted.back(), amdahl_speedup(0.9, 16.5), 1e-7);
}

TEST(Fit, RecoversAmdahlFractionFromNoisyData) {
  const auto n = h200_multiples();
  const auto s = synthetic(ScalingLaw::amdahl, 0.93, n, 0.02, 42);
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n, s);
  print_residuals("amdahl, P = 0.93, 2% noise", fit, n);
  EXPECT_NEAR(fit.parallel_fraction, 0.93, 0.005);
  // 2% noise on speed-ups of up to ~7.5: residuals of that order, and no larger.
  EXPECT_GT(fit.rms_residual, 0.01);
  EXPECT_LT(fit.rms_residual, 0.2);
  for (size_t i = 0; i < n.size(); ++i) EXPECT_NEAR(s[i] - fit.fitted[i], fit.residuals[i], 1e-12);
}

TEST(Fit, FitIsALeastSquaresMinimum) {
  const auto n = h200_multiples();
  const auto s = synthetic(ScalingLaw::amdahl, 0.85, n, 0.03, 7);
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n, s);
  const auto sse = [&](double p) {
    double e = 0;
    for (size_t i = 0; i < n.size(); ++i) e += std::pow(s[i] - amdahl_speedup(p, n[i]), 2);
    return e;
  };
  const double at_fit = sse(fit.parallel_fraction);
  for (double dp : {-1e-3, -1e-5, 1e-5, 1e-3}) EXPECT_LE(at_fit, sse(fit.parallel_fraction + dp));
}

TEST(Fit, GustafsonFitMatchesClosedFormLeastSquares) {
  // S = 1 + P (N - 1) is linear in P, so least squares has a closed form to check against.
  const auto n = h200_multiples();
  const auto s = synthetic(ScalingLaw::gustafson, 0.8, n, 0.02, 3);
  double num = 0, den = 0;
  for (size_t i = 0; i < n.size(); ++i) num += (n[i] - 1) * (s[i] - 1), den += (n[i] - 1) * (n[i] - 1);
  const auto fit = fit_parallel_fraction(ScalingLaw::gustafson, n, s);
  print_residuals("gustafson, P = 0.8, 2% noise", fit, n);
  EXPECT_NEAR(fit.parallel_fraction, num / den, 1e-8);
  EXPECT_NEAR(fit.parallel_fraction, 0.8, 0.01);
}

TEST(Fit, ClampsToTheUnitInterval) {
  const std::vector<double> n = {1, 2, 4, 8};
  // Super-linear (S > N) wants P > 1; a slowdown (S < 1) wants P < 0.
  EXPECT_DOUBLE_EQ(fit_parallel_fraction(ScalingLaw::amdahl, n, {1, 2.5, 5, 10}).parallel_fraction, 1.0);
  EXPECT_DOUBLE_EQ(fit_parallel_fraction(ScalingLaw::gustafson, n, {1, 0.9, 0.8, 0.7}).parallel_fraction, 0.0);
}

TEST(Fit, RejectsBadInput) {
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {}, {}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {0, 2}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::gustafson, {1, 2}, {1, NAN}), std::invalid_argument);
}
