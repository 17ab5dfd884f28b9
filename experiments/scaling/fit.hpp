// Least-squares fits of measured speed-ups to Amdahl's and Gustafson's laws (Best Practices
// Guide 3.1.3), with the fitted parallel fraction's standard error and a test of the residuals
// for a trend. Host-only, so it is unit-tested without a GPU (test_fit.cpp).
#pragma once

#include <optional>
#include <vector>

namespace apod {

/// Which law a speed-up curve is fitted to: amdahl for strong scaling (fixed problem),
/// gustafson for weak scaling (problem grown with the processors).
enum class ScalingLaw { amdahl, gustafson };

/// The speed-up `law` predicts for parallel fraction p on n times the base processors
/// (theory.hpp's amdahl_speedup / gustafson_speedup).
double predicted_speedup(ScalingLaw law, double parallel_fraction, double n);

/// dS/dP of that prediction: Amdahl (1 - 1/N) S^2, Gustafson N - 1. The fit's standard error
/// is built from it.
double speedup_slope(ScalingLaw law, double parallel_fraction, double n);

/// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (dof >= 1): exact
/// table values to 30, the Cornish-Fisher expansion beyond (within 0.001).
double student_t_975(int dof);

/// The Wald-Wolfowitz runs test on the signs of residuals in the order of N: a curve that fits
/// leaves residuals whose signs alternate at random; a law that misses the data's shape (a
/// serial phase that drifts with N, a knee) leaves long runs of one sign. Residuals within
/// 1e-9 of zero (the base point, a speed-up of exactly 1 over itself) are left out.
struct RunsTest {
  static constexpr int min_residuals = 8;      ///< fewer than this: not tested (too little power)
  static constexpr double z_critical = -1.645; ///< one-sided 5%: too few runs
  bool tested = false;
  int residuals = 0, positive = 0, negative = 0, runs = 0;
  double expected_runs = 0;
  double z = 0;       ///< (runs - expected) / sd; 0 when not tested
  bool trend = false; ///< tested and z < z_critical, or every residual of one sign
};
RunsTest runs_test(const std::vector<double>& residuals_in_order);

/// A fitted parallel fraction, its uncertainty, and how the measured points sit around it.
struct ScalingFit {
  double parallel_fraction = 0; ///< P in [0, 1] minimising the weighted squared residuals
  int informative_points = 0;   ///< points with N != 1 (the base says nothing about P)
  /// The least-squares standard error of P: sqrt(sum w r^2 / dof / sum w slope^2), w = 1 / S^2,
  /// the usual linearised one-parameter estimate (dof = points with N != 1, less one). Empty
  /// when dof < 1.
  std::optional<double> standard_error;
  int degrees_of_freedom = 0;
  double ci_low = 0, ci_high = 1; ///< P -/+ t(0.975, dof) x standard error, within [0, 1]
  double rms_residual = 0;    ///< sqrt(mean of squared residuals), in speed-up units (unweighted)
  std::vector<double> fitted; ///< the law's speed-up at each n for the fitted P
  std::vector<double> residuals; ///< measured - fitted, at each n
  RunsTest trend;                ///< runs test of the residuals in the order given
};

/// Fits P in [0, 1] by weighted least squares on the speed-ups themselves (not their
/// reciprocals): minimises sum_i ((speedup_i - law(P, n_i)) / speedup_i)^2, relative residuals,
/// as timing noise is relative. A scan of [0, 1] brackets the minimum and a
/// golden-section search refines it to ~1e-10, so a fit that wants P outside [0, 1] (a
/// super-linear or a slowing curve) lands on the bound. Give n in increasing order for the
/// runs test to mean anything. Throws std::invalid_argument for empty or mismatched inputs,
/// n <= 0 or a speed-up that is not positive and finite.
ScalingFit fit_parallel_fraction(ScalingLaw law, const std::vector<double>& n,
                                 const std::vector<double>& speedup);

/// Amdahl's law fitted across serial phases of different lengths: point i ran with serial work
/// serial_ratio[i] times the reference's, so if the law holds its parallel fraction is
/// P_i = P / (P + m_i (1 - P)) (the serial time scales by m_i, the parallel time does not) and
/// S_i = 1 / ((1 - P_i) + P_i / N_i). One P, the reference's, explains every curve: with N the
/// SM ratio (a design quantity, not read from the times) and the serial work varied over a
/// decade or more, the residuals test the law rather than restate it. Same weighting, search
/// and standard error as fit_parallel_fraction; serial_ratio all 1 gives exactly that fit.
ScalingFit fit_amdahl_across_serial(const std::vector<double>& n,
                                    const std::vector<double>& speedup,
                                    const std::vector<double>& serial_ratio);

/// Whether a fit is an algebraic identity of its inputs, so that its agreement with the data
/// says nothing. The case it guards: with the serial time s held fixed and N_i := g(base) /
/// g(N_i) taken from the same times, S = (s + g_b) / (s + g_N) equals 1 / ((1 - P) + P / N)
/// exactly for P = g_b / (s + g_b): the fitted P restates the design, residuals ~1e-16,
/// standard error 0. `free_quantities` counts the fitted parameters plus every input the caller
/// derived from the fitted points' own measurements (there: 1 + one N per point).
struct IdentityCheck {
  static constexpr double exact_within = 1e-9; ///< relative residual and standard error
  int free_quantities = 0, informative_points = 0;
  double max_relative_residual = 0; ///< max |residual / measured|
  double standard_error = 0;        ///< 0 when the fit has none
  bool no_freedom = false;          ///< free quantities >= informative points: any data would fit
  bool exact = false;               ///< every residual and the standard error within exact_within
  bool identity = false;            ///< either: the fit is not a test of the law
};
IdentityCheck identity_check(const ScalingFit& fit, int free_quantities);

} // namespace apod
