#include "fit.hpp"

#include "core/theory.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace apod {

namespace {

// Relative residuals: timing noise is a share of the time, so a speed-up of 15 scatters about 15
// times as far as one of 1; weighting each squared residual by 1 / S^2 (the measured S) keeps
// the large-N points from outvoting the rest and makes the standard error honest.
double weight(double speedup) {
  return 1.0 / (speedup * speedup);
}

// The parallel fraction of a point whose serial work is m times the reference's (m = 1: p).
double scaled_fraction(double p, double m) {
  const double d = p + m * (1 - p);
  return d > 0 ? p / d : 0.0;
}

double predicted(ScalingLaw law, double p, double n, double m) {
  return predicted_speedup(law, law == ScalingLaw::amdahl ? scaled_fraction(p, m) : p, n);
}

double slope(ScalingLaw law, double p, double n, double m) {
  if (law == ScalingLaw::gustafson || m == 1.0)
    return speedup_slope(law, p, n);
  const double d = p + m * (1 - p); // dP_m/dP = m / d^2
  return speedup_slope(law, scaled_fraction(p, m), n) * (d > 0 ? m / (d * d) : 0.0);
}

double sum_squared_residuals(ScalingLaw law, double p, const std::vector<double>& n,
                             const std::vector<double>& speedup, const std::vector<double>& m) {
  double sse = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double r = speedup[i] - predicted(law, p, n[i], m[i]);
    sse += weight(speedup[i]) * r * r;
  }
  return sse;
}

// The P in [0, 1] with the least squared error. Gustafson's S is linear in P, so its squared
// error is a parabola; Amdahl's is smooth and, for the monotone curves measured, has one
// minimum. A coarse scan first keeps the golden section inside the right bracket even if the
// error surface has a shallow second dip.
double least_squares_fraction(ScalingLaw law, const std::vector<double>& n,
                              const std::vector<double>& speedup, const std::vector<double>& m) {
  const auto sse = [&](double p) { return sum_squared_residuals(law, p, n, speedup, m); };
  constexpr int scan_steps = 200;
  int best = 0;
  double best_sse = sse(0.0);
  for (int i = 1; i <= scan_steps; ++i) {
    const double e = sse(double(i) / scan_steps);
    if (e < best_sse)
      best = i, best_sse = e;
  }
  double lo = std::max(0, best - 1) / double(scan_steps);
  double hi = std::min(scan_steps, best + 1) / double(scan_steps);

  const double inv_phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = hi - inv_phi * (hi - lo), b = lo + inv_phi * (hi - lo);
  double fa = sse(a), fb = sse(b);
  while (hi - lo > 1e-10) {
    if (fa <= fb) {
      hi = b, b = a, fb = fa;
      a = hi - inv_phi * (hi - lo);
      fa = sse(a);
    } else {
      lo = a, a = b, fa = fb;
      b = lo + inv_phi * (hi - lo);
      fb = sse(b);
    }
  }
  double p = (lo + hi) / 2;
  // The bracket's ends are candidates too: the minimum may sit on a bound of [0, 1].
  for (double candidate : {lo, hi, best / double(scan_steps)})
    if (sse(candidate) < sse(p))
      p = candidate;
  return p;
}

// Linearised weighted least squares (one parameter): var(P) = sigma^2 / sum_i w_i J_i^2 with
// sigma^2 = sum_i w_i r_i^2 / dof and J_i = dS/dP at the fit. The base point (N = 1) carries no
// information about P (every P gives S = 1 there), so it counts for no degree of freedom.
void set_uncertainty(ScalingFit& fit, ScalingLaw law, const std::vector<double>& n,
                     const std::vector<double>& speedup, const std::vector<double>& m) {
  double sse = 0, slope_sq = 0;
  int informative = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double w = weight(speedup[i]);
    sse += w * fit.residuals[i] * fit.residuals[i];
    const double j = slope(law, fit.parallel_fraction, n[i], m[i]);
    slope_sq += w * j * j;
    informative += n[i] != 1.0;
  }
  fit.informative_points = informative;
  fit.degrees_of_freedom = std::max(0, informative - 1);
  if (fit.degrees_of_freedom < 1 || slope_sq <= 0)
    return;
  const double se = std::sqrt(sse / fit.degrees_of_freedom / slope_sq);
  const double half = student_t_975(fit.degrees_of_freedom) * se;
  fit.standard_error = se;
  fit.ci_low = std::max(0.0, fit.parallel_fraction - half);
  fit.ci_high = std::min(1.0, fit.parallel_fraction + half);
}

} // namespace

double predicted_speedup(ScalingLaw law, double parallel_fraction, double n) {
  return law == ScalingLaw::amdahl ? amdahl_speedup(parallel_fraction, n)
                                   : gustafson_speedup(parallel_fraction, n);
}

double speedup_slope(ScalingLaw law, double parallel_fraction, double n) {
  if (law == ScalingLaw::gustafson)
    return n - 1; // S = 1 + P (N - 1)
  // S = 1 / D with D = 1 - P (1 - 1/N): dS/dP = (1 - 1/N) / D^2 = (1 - 1/N) S^2.
  const double s = amdahl_speedup(parallel_fraction, n);
  return (1 - 1 / n) * s * s;
}

double student_t_975(int dof) {
  if (dof < 1)
    throw std::invalid_argument("Student's t needs at least one degree of freedom");
  static constexpr double table[] = {12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912,
                                     2.364624,  2.306004, 2.262157, 2.228139, 2.200985, 2.178813,
                                     2.160369,  2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
                                     2.093024,  2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
                                     2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
  if (dof <= 30)
    return table[dof - 1];
  const double z = 1.959963985, v = dof;
  const double g1 = (std::pow(z, 3) + z) / 4;
  const double g2 = (5 * std::pow(z, 5) + 16 * std::pow(z, 3) + 3 * z) / 96;
  const double g3 = (3 * std::pow(z, 7) + 19 * std::pow(z, 5) + 17 * std::pow(z, 3) - 15 * z) / 384;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v);
}

RunsTest runs_test(const std::vector<double>& residuals_in_order) {
  RunsTest t;
  int previous = 0; // the sign of the last residual counted
  for (double r : residuals_in_order) {
    if (std::abs(r) <= 1e-9)
      continue;
    const int sign = r > 0 ? 1 : -1;
    (sign > 0 ? t.positive : t.negative)++;
    t.runs += sign != previous;
    previous = sign;
  }
  t.residuals = t.positive + t.negative;
  if (t.residuals < RunsTest::min_residuals)
    return t;
  t.tested = true;
  if (t.positive == 0 || t.negative == 0) { // every point on one side of the curve
    t.trend = true;
    return t;
  }
  // The runs' mean and variance under random order (Wald and Wolfowitz, 1940).
  const double n1 = t.positive, n2 = t.negative, n = n1 + n2;
  t.expected_runs = 2 * n1 * n2 / n + 1;
  const double variance = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1));
  t.z = variance > 0 ? (t.runs - t.expected_runs) / std::sqrt(variance) : 0;
  t.trend = t.z < RunsTest::z_critical;
  return t;
}

namespace {

ScalingFit fit_law(ScalingLaw law, const std::vector<double>& n, const std::vector<double>& speedup,
                   const std::vector<double>& m) {
  if (n.empty() || n.size() != speedup.size() || m.size() != n.size())
    throw std::invalid_argument(
        "fit_parallel_fraction needs as many speed-ups as processor counts, at least one");
  for (size_t i = 0; i < n.size(); ++i)
    if (!(n[i] > 0) || !std::isfinite(speedup[i]) || !(speedup[i] > 0))
      throw std::invalid_argument(
          "fit_parallel_fraction needs n > 0 and positive, finite speed-ups");

  for (double ratio : m)
    if (!(ratio > 0) || !std::isfinite(ratio))
      throw std::invalid_argument("fit_amdahl_across_serial needs positive serial ratios");
  ScalingFit fit;
  fit.parallel_fraction = least_squares_fraction(law, n, speedup, m);
  double sum_sq = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    fit.fitted.push_back(predicted(law, fit.parallel_fraction, n[i], m[i]));
    fit.residuals.push_back(speedup[i] - fit.fitted.back());
    sum_sq += fit.residuals.back() * fit.residuals.back();
  }
  fit.rms_residual = std::sqrt(sum_sq / n.size());
  set_uncertainty(fit, law, n, speedup, m);
  fit.trend = runs_test(fit.residuals);
  return fit;
}

} // namespace

ScalingFit fit_parallel_fraction(ScalingLaw law, const std::vector<double>& n,
                                 const std::vector<double>& speedup) {
  return fit_law(law, n, speedup, std::vector<double>(n.size(), 1.0));
}

ScalingFit fit_amdahl_across_serial(const std::vector<double>& n,
                                    const std::vector<double>& speedup,
                                    const std::vector<double>& serial_ratio) {
  return fit_law(ScalingLaw::amdahl, n, speedup, serial_ratio);
}

IdentityCheck identity_check(const ScalingFit& fit, int free_quantities) {
  IdentityCheck c;
  c.free_quantities = free_quantities;
  c.informative_points = fit.informative_points;
  for (size_t i = 0; i < fit.residuals.size(); ++i) {
    const double measured = fit.fitted[i] + fit.residuals[i];
    c.max_relative_residual =
        std::max(c.max_relative_residual, std::abs(fit.residuals[i] / measured));
  }
  c.standard_error = fit.standard_error.value_or(0.0);
  c.no_freedom = free_quantities >= fit.informative_points;
  c.exact = c.max_relative_residual <= IdentityCheck::exact_within &&
            c.standard_error <= IdentityCheck::exact_within;
  c.identity = c.no_freedom || c.exact;
  return c;
}

} // namespace apod
