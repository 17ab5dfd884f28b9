#include "fit.hpp"

#include "core/theory.hpp"

#include <cmath>
#include <stdexcept>

namespace apod {

namespace {

double sum_squared_residuals(ScalingLaw law, double p, const std::vector<double>& n,
                             const std::vector<double>& speedup) {
  double sse = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double r = speedup[i] - predicted_speedup(law, p, n[i]);
    sse += r * r;
  }
  return sse;
}

}  // namespace

double predicted_speedup(ScalingLaw law, double parallel_fraction, double n) {
  return law == ScalingLaw::amdahl ? amdahl_speedup(parallel_fraction, n)
                                   : gustafson_speedup(parallel_fraction, n);
}

ScalingFit fit_parallel_fraction(ScalingLaw law, const std::vector<double>& n,
                                 const std::vector<double>& speedup) {
  if (n.empty() || n.size() != speedup.size())
    throw std::invalid_argument("fit_parallel_fraction needs as many speed-ups as processor counts, at least one");
  for (size_t i = 0; i < n.size(); ++i)
    if (!(n[i] > 0) || !std::isfinite(speedup[i]))
      throw std::invalid_argument("fit_parallel_fraction needs n > 0 and finite speed-ups");
  const auto sse = [&](double p) { return sum_squared_residuals(law, p, n, speedup); };

  // Gustafson's S is linear in P, so its squared error is a parabola; Amdahl's is smooth and,
  // for the monotone curves measured, has one minimum. A coarse scan first keeps the golden
  // section inside the right bracket even if the error surface has a shallow second dip.
  constexpr int scan_steps = 200;
  int best = 0;
  double best_sse = sse(0.0);
  for (int i = 1; i <= scan_steps; ++i) {
    const double e = sse(double(i) / scan_steps);
    if (e < best_sse) best = i, best_sse = e;
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
    if (sse(candidate) < sse(p)) p = candidate;

  ScalingFit fit;
  fit.parallel_fraction = p;
  double sum_sq = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    fit.fitted.push_back(predicted_speedup(law, p, n[i]));
    fit.residuals.push_back(speedup[i] - fit.fitted.back());
    sum_sq += fit.residuals.back() * fit.residuals.back();
  }
  fit.rms_residual = std::sqrt(sum_sq / n.size());
  return fit;
}

}  // namespace apod
