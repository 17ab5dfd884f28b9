// Least-squares fits of the parallel fraction P (fit.cpp): the scaling experiment's
// amdahl_parallel_fraction, gustafson_parallel_fraction and amdahl_limit rest on these, and on
// the standard error and the runs test of the residuals tested here.
#include "core/theory.hpp"
#include "fit.hpp"

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
  for (int sm = 8; sm <= 128; sm += 8)
    n.push_back(sm / 8.0);
  n.push_back(132 / 8.0);
  return n;
}

// Speed-ups the law predicts, each multiplied by (1 + noise) with noise ~ N(0, relative_sd);
// the base point stays exactly 1, as a speed-up over itself is.
std::vector<double> synthetic(ScalingLaw law, double p, const std::vector<double>& n,
                              double relative_sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, relative_sd);
  std::vector<double> s;
  for (double x : n)
    s.push_back(x == 1.0 ? 1.0 : predicted_speedup(law, p, x) * (1.0 + noise(rng)));
  return s;
}

void print_residuals(const char* name, const ScalingFit& fit, const std::vector<double>& n) {
  std::printf("%s: P = %.6f, rms residual = %.4g\n", name, fit.parallel_fraction, fit.rms_residual);
  for (size_t i = 0; i < n.size(); ++i)
    std::printf("  N = %5.3g  fitted %8.4f  residual %+.4f\n", n[i], fit.fitted[i],
                fit.residuals[i]);
}

} // namespace

TEST(Fit, PredictedSpeedupIsTheoryFormula) {
  EXPECT_DOUBLE_EQ(predicted_speedup(ScalingLaw::amdahl, 0.9, 16), amdahl_speedup(0.9, 16));
  EXPECT_DOUBLE_EQ(predicted_speedup(ScalingLaw::gustafson, 0.9, 16), gustafson_speedup(0.9, 16));
}

TEST(Fit, RecoversAmdahlFractionFromExactData) {
  const auto n = h200_multiples();
  const auto fit =
      fit_parallel_fraction(ScalingLaw::amdahl, n, synthetic(ScalingLaw::amdahl, 0.9, n, 0.0, 1));
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
  for (size_t i = 0; i < n.size(); ++i)
    EXPECT_NEAR(s[i] - fit.fitted[i], fit.residuals[i], 1e-12);
}

TEST(Fit, FitIsALeastSquaresMinimum) {
  const auto n = h200_multiples();
  const auto s = synthetic(ScalingLaw::amdahl, 0.85, n, 0.03, 7);
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n, s);
  const auto sse = [&](double p) { // relative residuals
    double e = 0;
    for (size_t i = 0; i < n.size(); ++i)
      e += std::pow((s[i] - amdahl_speedup(p, n[i])) / s[i], 2);
    return e;
  };
  const double at_fit = sse(fit.parallel_fraction);
  for (double dp : {-1e-3, -1e-5, 1e-5, 1e-3})
    EXPECT_LE(at_fit, sse(fit.parallel_fraction + dp));
}

TEST(Fit, GustafsonFitMatchesClosedFormLeastSquares) {
  // S = 1 + P (N - 1) is linear in P, so weighted least squares (w = 1 / S^2) has a closed
  // form to check against.
  const auto n = h200_multiples();
  const auto s = synthetic(ScalingLaw::gustafson, 0.8, n, 0.02, 3);
  double num = 0, den = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double w = 1 / (s[i] * s[i]);
    num += w * (n[i] - 1) * (s[i] - 1), den += w * (n[i] - 1) * (n[i] - 1);
  }
  const auto fit = fit_parallel_fraction(ScalingLaw::gustafson, n, s);
  print_residuals("gustafson, P = 0.8, 2% noise", fit, n);
  EXPECT_NEAR(fit.parallel_fraction, num / den, 1e-8);
  EXPECT_NEAR(fit.parallel_fraction, 0.8, 0.01);
}

TEST(Fit, ClampsToTheUnitInterval) {
  const std::vector<double> n = {1, 2, 4, 8};
  // Super-linear (S > N) wants P > 1; a slowdown (S < 1) wants P < 0.
  EXPECT_DOUBLE_EQ(fit_parallel_fraction(ScalingLaw::amdahl, n, {1, 2.5, 5, 10}).parallel_fraction,
                   1.0);
  EXPECT_DOUBLE_EQ(
      fit_parallel_fraction(ScalingLaw::gustafson, n, {1, 0.9, 0.8, 0.7}).parallel_fraction, 0.0);
}

TEST(Fit, SlopeIsTheDerivativeOfTheLaw) {
  for (ScalingLaw law : {ScalingLaw::amdahl, ScalingLaw::gustafson})
    for (double n : {1.0, 2.0, 16.5})
      for (double p : {0.3, 0.9}) {
        const double h = 1e-6;
        const double numeric =
            (predicted_speedup(law, p + h, n) - predicted_speedup(law, p - h, n)) / (2 * h);
        EXPECT_NEAR(speedup_slope(law, p, n), numeric, 1e-5 * std::max(1.0, numeric));
      }
}

TEST(Fit, StudentTQuantiles) {
  EXPECT_NEAR(student_t_975(1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_975(10), 2.228, 1e-3);
  EXPECT_NEAR(student_t_975(40), 2.021, 1e-3); // beyond the table: the expansion
  EXPECT_NEAR(student_t_975(120), 1.980, 1e-3);
  EXPECT_THROW(student_t_975(0), std::invalid_argument);
}

// A clean Amdahl curve (1% noise) fits with small residuals, no trend is flagged, and the 95%
// interval from the standard error covers the true P about 95% of the time.
TEST(Fit, CleanAmdahlCurveFitsWithSmallResidualsAndNoTrend) {
  const auto n = h200_multiples();
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n,
                                         synthetic(ScalingLaw::amdahl, 0.93, n, 0.01, 11));
  print_residuals("amdahl, P = 0.93, 1% noise", fit, n);
  ASSERT_TRUE(fit.standard_error.has_value());
  EXPECT_EQ(fit.degrees_of_freedom, int(n.size()) - 2); // the base point carries no information
  EXPECT_LT(*fit.standard_error, 0.002);
  EXPECT_LE(fit.ci_low, 0.93);
  EXPECT_GE(fit.ci_high, 0.93);
  EXPECT_LT(fit.rms_residual, 0.1);
  EXPECT_TRUE(fit.trend.tested);
  EXPECT_FALSE(fit.trend.trend) << "z = " << fit.trend.z;

  int covered = 0, flagged = 0;
  const int trials = 400;
  for (int seed = 0; seed < trials; ++seed) {
    const auto f = fit_parallel_fraction(ScalingLaw::amdahl, n,
                                         synthetic(ScalingLaw::amdahl, 0.93, n, 0.01, seed));
    covered += f.ci_low <= 0.93 && 0.93 <= f.ci_high;
    flagged += f.trend.trend;
  }
  std::printf("95%% CI covered P in %d of %d; runs test flagged %d\n", covered, trials, flagged);
  EXPECT_GT(covered, trials * 90 / 100);
  EXPECT_LT(flagged, trials * 10 / 100); // a one-sided 5% test: false alarms stay rare
}

// The defect of the old design: the serial phase re-measured with every point drifted with the
// point (about 3.3 ms at 16-24 SMs, 2.3 ms at 128 on an H200, against 2.6 ms at the base and
// 35 ms of GPU work on 8 SMs). The law then misses the curve's shape; the runs test says so.
TEST(Fit, SerialPhaseDriftingWithThePointIsFlaggedAsATrend) {
  std::vector<double> n, s;
  const double base_serial_ms = 2.6, base_parallel_ms = 35.0;
  for (int sm = 8; sm <= 128; sm += 8) {
    const double drift = sm < 16 ? base_serial_ms : sm <= 24 ? 3.3 : 3.3 - (sm - 24) / 104.0;
    n.push_back(sm / 8.0);
    s.push_back((base_serial_ms + base_parallel_ms) / (drift + base_parallel_ms / n.back()));
  }
  const auto fit = fit_parallel_fraction(ScalingLaw::amdahl, n, s);
  print_residuals("amdahl, serial phase drifting with the point", fit, n);
  EXPECT_TRUE(fit.trend.tested);
  EXPECT_TRUE(fit.trend.trend) << "runs " << fit.trend.runs << ", z " << fit.trend.z;
  // The same curve with the serial phase held at the base's value: the law fits exactly.
  std::vector<double> held;
  for (double x : n)
    held.push_back(measured_speedup(base_serial_ms, base_parallel_ms, base_parallel_ms / x));
  const auto clean = fit_parallel_fraction(ScalingLaw::amdahl, n, held);
  EXPECT_NEAR(clean.parallel_fraction, base_parallel_ms / (base_serial_ms + base_parallel_ms),
              1e-8);
  EXPECT_LT(clean.rms_residual, 1e-8);
  EXPECT_FALSE(clean.trend.trend);
}

TEST(Fit, RunsTestCountsRunsAndNeedsEnoughResiduals) {
  const RunsTest alternating = runs_test({0, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1});
  EXPECT_TRUE(alternating.tested);
  EXPECT_EQ(alternating.residuals, 10); // the zero (base point) is left out
  EXPECT_EQ(alternating.runs, 10);
  EXPECT_DOUBLE_EQ(alternating.expected_runs, 6.0);
  EXPECT_FALSE(alternating.trend);
  const RunsTest bowed = runs_test({1, 1, 1, -1, -1, -1, -1, -1, 1, 1, 1});
  EXPECT_EQ(bowed.runs, 3);
  EXPECT_TRUE(bowed.trend);
  EXPECT_TRUE(runs_test(std::vector<double>(9, 0.5)).trend); // all on one side
  const RunsTest few = runs_test({1, 1, 1, -1, -1});
  EXPECT_FALSE(few.tested);
  EXPECT_FALSE(few.trend);
}

TEST(Fit, NoStandardErrorWithoutADegreeOfFreedom) {
  // The quick run's curve: the base and two partitions, one degree of freedom.
  const auto one = fit_parallel_fraction(ScalingLaw::amdahl, {1, 2, 16.5}, {1, 1.8, 7.5});
  ASSERT_TRUE(one.standard_error.has_value());
  EXPECT_EQ(one.degrees_of_freedom, 1);
  const auto none = fit_parallel_fraction(ScalingLaw::amdahl, {1, 2}, {1, 1.8});
  EXPECT_FALSE(none.standard_error.has_value());
  EXPECT_EQ(none.ci_low, 0.0);
  EXPECT_EQ(none.ci_high, 1.0);
}

TEST(Fit, RejectsBadInput) {
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {}, {}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {0, 2}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::gustafson, {1, 2}, {1, NAN}),
               std::invalid_argument);
  EXPECT_THROW(fit_parallel_fraction(ScalingLaw::amdahl, {1, 2}, {1, 0}), std::invalid_argument);
}

// The review's case: the serial phase held fixed (0.5 ms against 8.8 ms of GPU work) and N read
// off the GPU phase's own times, N_i = g(base) / g(N_i). Then S = (s + g_b) / (s + g_N) is
// Amdahl's law exactly for P = g_b / (s + g_b) = 0.9462: the fit restates the design, with
// residuals ~1e-16 and a standard error of 0, whatever the GPU phase did.
TEST(Fit, AFitWhoseNIsReadOffItsOwnTimesIsFlaggedAsAnIdentity) {
  const double s = 0.5, g_base = 8.8;
  std::vector<double> n_sm = h200_multiples(), n_own, speedup;
  for (size_t i = 0; i < n_sm.size(); ++i) {
    const double g = g_base / n_sm[i] * (1 + 0.03 * double(i) / n_sm.size()); // scales poorly
    n_own.push_back(g_base / g);
    speedup.push_back((s + g_base) / (s + g));
  }
  const ScalingFit fit = fit_parallel_fraction(ScalingLaw::amdahl, n_own, speedup);
  EXPECT_NEAR(fit.parallel_fraction, g_base / (s + g_base), 1e-8);
  const IdentityCheck flagged = identity_check(fit, 1 + fit.informative_points);
  EXPECT_TRUE(flagged.identity);
  EXPECT_TRUE(flagged.no_freedom) << "one P and one N per point: as many free as data";
  EXPECT_TRUE(flagged.exact) << "max relative residual " << flagged.max_relative_residual;
  EXPECT_TRUE(identity_check(fit, 1).identity) << "exact even when the N are miscounted";

  // The same times against the SM ratio, the serial work varied over two decades: one P must
  // explain three curves, and the GPU phase's 3% shortfall shows in the residuals.
  std::vector<double> n, all, ratio;
  for (double m : {0.1, 1.0, 10.0})
    for (size_t i = 0; i < n_sm.size(); ++i) {
      n.push_back(n_sm[i]);
      all.push_back((m * s + g_base) / (m * s + g_base / n_own[i]));
      ratio.push_back(m);
    }
  const ScalingFit real = fit_amdahl_across_serial(n, all, ratio);
  const IdentityCheck check = identity_check(real, 1);
  EXPECT_FALSE(check.identity);
  EXPECT_GT(check.max_relative_residual, 1e-4);
  ASSERT_TRUE(real.standard_error.has_value());
  EXPECT_GT(*real.standard_error, 1e-6);
  EXPECT_NEAR(real.parallel_fraction, g_base / (s + g_base), 0.01);
  EXPECT_EQ(real.informative_points, 3 * (int(n_sm.size()) - 1));
}

TEST(Fit, AcrossSerialLevelsRecoversTheReferencePAndReducesToTheSingleCurveFit) {
  const double s = 0.5, g = 8.8, p = g / (s + g);
  const std::vector<double> n_sm = h200_multiples();
  std::vector<double> n, speedup, ratio;
  for (double m : {0.1, 0.3, 1.0, 3.0, 10.0})
    for (double x : n_sm) {
      n.push_back(x);
      speedup.push_back((m * s + g) / (m * s + g / x) * (x == 1 ? 1 : 1 + 0.002 * std::sin(x)));
      ratio.push_back(m);
    }
  const ScalingFit fit = fit_amdahl_across_serial(n, speedup, ratio);
  EXPECT_NEAR(fit.parallel_fraction, p, 1e-3);
  EXPECT_FALSE(identity_check(fit, 1).identity);
  // Ratios of one: the single-curve fit, to the last digit.
  const std::vector<double> one_n(n_sm),
      one_s(speedup.begin() + 2 * long(n_sm.size()), speedup.begin() + 3 * long(n_sm.size()));
  const ScalingFit a = fit_amdahl_across_serial(one_n, one_s, std::vector<double>(n_sm.size(), 1));
  const ScalingFit b = fit_parallel_fraction(ScalingLaw::amdahl, one_n, one_s);
  EXPECT_DOUBLE_EQ(a.parallel_fraction, b.parallel_fraction);
  EXPECT_DOUBLE_EQ(*a.standard_error, *b.standard_error);
  EXPECT_THROW(fit_amdahl_across_serial({1, 2}, {1, 1.5}, {1, 0}), std::invalid_argument);
}
