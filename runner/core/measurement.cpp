#include "core/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace apod {

const char* to_string(Direction d) {
  return d == Direction::higher ? "higher" : "lower";
}

Direction direction_from_string(const std::string& s) {
  if (s == "higher")
    return Direction::higher;
  if (s == "lower")
    return Direction::lower;
  throw std::invalid_argument("direction must be 'higher' or 'lower', not '" + s + "'");
}

namespace {

// Quantile by linear interpolation between closest ranks (type 7 in Hyndman and Fan).
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * (sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

// Largest j (1-based) with P(Binomial(n, 1/2) <= j - 1) <= alpha / 2, or 0 if none.
size_t median_ci_rank(size_t n) {
  double cdf = 0;
  size_t j = 0;
  for (size_t k = 0; k < n; ++k) {
    cdf += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) -
                    n * std::log(2.0));
    if (cdf > 0.025)
      break;
    j = k + 1;
  }
  return j;
}

} // namespace

std::vector<double> used_values(const std::vector<double>& values,
                                const std::vector<uint8_t>& excluded) {
  if (excluded.empty())
    return values;
  std::vector<double> used;
  for (size_t i = 0; i < values.size(); ++i)
    if (i >= excluded.size() || excluded[i] == 0)
      used.push_back(values[i]);
  return used;
}

std::vector<double> Measurement::used_samples() const {
  return used_values(samples, excluded);
}

SampleCounts sample_counts(const Measurement& m) {
  SampleCounts counts;
  for (size_t i = 0; i < m.samples.size(); ++i)
    (i < m.excluded.size() && m.excluded[i] != 0 ? counts.excluded : counts.used)++;
  return counts;
}

std::string SampleCounts::text() const {
  if (excluded == 0)
    return std::to_string(used) + " samples";
  return std::to_string(used) + " samples used, " + std::to_string(excluded) + " excluded";
}

PointStatus point_status(const Measurement& m) {
  if (!m.error.empty())
    return {PointState::failed, m.error};
  if (!m.verified)
    return {PointState::failed, reason_not_verified};
  if (m.samples.empty())
    return {PointState::failed, reason_no_samples};
  for (size_t i = 0; i < m.samples.size(); ++i)
    if (i >= m.excluded.size() || m.excluded[i] == 0)
      return {PointState::ok, ""};
  return {PointState::excluded, reason_all_excluded};
}

bool Measurement::ok() const {
  return point_status(*this).ok();
}

namespace {

Summary summarize_in_range(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  if (values.empty())
    return s;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / s.n;
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted)
      ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / (s.n - 1));
  }
  s.rsd = s.mean != 0 ? s.stddev / std::abs(s.mean) : 0;
  s.q1 = quantile(sorted, 0.25);
  s.q3 = quantile(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  const size_t j = median_ci_rank(sorted.size());
  s.ci_low = j ? sorted[j - 1] : s.min;
  s.ci_high = j ? sorted[sorted.size() - j] : s.max;
  return s;
}

} // namespace

Summary summarize(const std::vector<double>& values) {
  // Squares and sums of samples beyond about 1e154 overflow: such samples are summarised as
  // multiples of a power of two (exact), and the statistics scaled back. Samples below it, every
  // real measurement, take the plain path, bit for bit as stored documents were computed.
  double largest = 0;
  for (double v : values)
    largest = std::max(largest, std::abs(v));
  if (!(largest > 1e150))
    return summarize_in_range(values);
  const double scale = std::ldexp(1.0, std::ilogb(largest) + 1);
  std::vector<double> scaled;
  scaled.reserve(values.size());
  for (double v : values)
    scaled.push_back(v / scale);
  Summary s = summarize_in_range(scaled);
  for (double* stat :
       {&s.median, &s.min, &s.max, &s.mean, &s.stddev, &s.q1, &s.q3, &s.iqr, &s.ci_low, &s.ci_high})
    *stat *= scale;
  return s;
}

} // namespace apod
