#include "analysis/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace apod {

namespace {

// Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  const auto guard = [](double v) { return std::abs(v) < tiny ? tiny : v; };
  double c = 1, d = 1 / guard(1 - (a + b) * x / (a + 1)), h = d;
  for (int m = 1; m <= 500; ++m) {
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    h *= d * c;
    if (std::abs(d * c - 1) < eps)
      break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

} // namespace

double t_two_sided_p(double t, double df) {
  if (!std::isfinite(t))
    return std::isnan(t) ? 1.0 : 0.0;
  if (std::isinf(df))
    return std::erfc(std::abs(t) / std::sqrt(2.0));
  if (df <= 0)
    return 1.0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double t_critical(double p, double df) {
  double lo = 0, hi = 1;
  while (t_two_sided_p(hi, df) > p && hi < 1e12)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (t_two_sided_p(mid, df) > p ? lo : hi) = mid;
  }
  return hi;
}

double digamma(double x) {
  double shift = 0;
  for (; x < 6; x += 1)
    shift -= 1 / x;
  const double f = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double trigamma(double x) {
  double shift = 0;
  for (; x < 6; x += 1)
    shift += 1 / (x * x);
  const double f = 1 / (x * x);
  return shift + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

double trigamma_inverse(double y) {
  // Smyth (2004), appendix: start at 0.5 + 1/y, Newton steps on 1/trigamma, which is nearly
  // linear; the derivative of trigamma (tetragamma) by a central difference is precise enough.
  if (y > 1e7)
    return 1 / std::sqrt(y);
  if (y < 1e-6)
    return 1 / y;
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 50; ++i) {
    const double h = 1e-5 * std::max(1.0, x);
    const double tetragamma = (trigamma(x + h) - trigamma(x - h)) / (2 * h);
    const double tri = trigamma(x);
    const double step = tri * (1 - tri / y) / tetragamma;
    x += step;
    if (-step / x < 1e-10)
      break;
  }
  return x;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  return holm_adjust(p, std::vector<double>(p.size(), 1.0));
}

std::vector<double> holm_adjust(const std::vector<double>& p, const std::vector<double>& w) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p[a] / w[a] < p[b] / w[b]; });
  double remaining = 0; // the weight of the hypotheses not yet rejected
  for (double x : w)
    remaining += x;
  std::vector<double> adjusted(p.size());
  double running = 0; // step-down: an adjusted p is never below the one before it
  for (size_t i : order) {
    running = std::max(running, std::min(1.0, p[i] * remaining / w[i]));
    adjusted[i] = running;
    remaining -= w[i];
  }
  return adjusted;
}

} // namespace apod
