// Least-squares fits of measured speed-ups to Amdahl's and Gustafson's laws (Best Practices
// Guide 3.1.3). Host-only, so the fitting is unit-tested without a GPU (tests/unit/test_fit.cpp).
#pragma once

#include <vector>

namespace apod {

/// Which law a speed-up curve is fitted to: amdahl for strong scaling (fixed problem),
/// gustafson for weak scaling (problem grown with the processors).
enum class ScalingLaw { amdahl, gustafson };

/// The speed-up `law` predicts for parallel fraction p on n times the base processors
/// (theory.hpp's amdahl_speedup / gustafson_speedup).
double predicted_speedup(ScalingLaw law, double parallel_fraction, double n);

/// A fitted parallel fraction and how far the measured points sit from the fitted curve.
struct ScalingFit {
  double parallel_fraction = 0;   ///< P in [0, 1] minimising the sum of squared residuals
  double rms_residual = 0;        ///< sqrt(mean of squared residuals), in speed-up units
  std::vector<double> fitted;     ///< the law's speed-up at each n for the fitted P
  std::vector<double> residuals;  ///< measured - fitted, at each n
};

/// Fits P in [0, 1] by least squares on the speed-ups themselves (not their reciprocals):
/// minimises sum_i (speedup_i - law(P, n_i))^2. A scan of [0, 1] brackets the minimum and a
/// golden-section search refines it to ~1e-10, so a fit that wants P outside [0, 1] (a
/// super-linear or a slowing curve) lands on the bound. Throws std::invalid_argument for
/// empty or mismatched inputs, n <= 0 or a non-finite speed-up.
ScalingFit fit_parallel_fraction(ScalingLaw law, const std::vector<double>& n,
                                 const std::vector<double>& speedup);

}  // namespace apod
