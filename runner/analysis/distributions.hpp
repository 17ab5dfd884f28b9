// The few distributions and special functions the verdicts need: Student's t tail, the digamma
// and trigamma functions (for the empirical Bayes noise prior, noise.cpp) and Holm's step-down
// adjustment. Kept here, tested alone (tests/unit/test_verdict_stats.cpp), so compare and
// history read as statistics, not numerics.
#pragma once

#include <limits>
#include <vector>

namespace apod {

inline constexpr double infinite_df = std::numeric_limits<double>::infinity();

/// P(|T| >= |t|) for Student's t with `df` degrees of freedom (df = infinite_df: the normal
/// distribution). Through the regularised incomplete beta function, I_{df/(df+t^2)}(df/2, 1/2)
/// (Abramowitz and Stegun 26.7.1), evaluated by its continued fraction.
double t_two_sided_p(double t, double df);

/// The |t| at which t_two_sided_p(t, df) == p (bisection; p in (0, 1)).
double t_critical(double p, double df);

/// digamma(x) = d/dx ln Gamma(x), and trigamma(x) = d/dx digamma(x), for x > 0 (recurrence up to
/// x >= 6, then the asymptotic series; Abramowitz and Stegun 6.3.18 and 6.4.12).
double digamma(double x);
double trigamma(double x);
/// The x > 0 with trigamma(x) == y (Newton's method as in Smyth 2004, appendix).
double trigamma_inverse(double y);

/// Holm's step-down adjusted p-values (Holm 1979), in the order of `p`: a point is significant at
/// family-wise error rate alpha when its adjusted p is <= alpha, whatever the dependence between
/// the points.
std::vector<double> holm_adjust(const std::vector<double>& p);
/// Holm's weighted step-down (Holm 1979, section 5): hypotheses in order of p / w, each adjusted
/// p = p x (weight not yet rejected) / w; the family-wise error rate holds for any positive
/// weights. Equal weights are holm_adjust(p).
std::vector<double> holm_adjust(const std::vector<double>& p, const std::vector<double>& w);

} // namespace apod
