#include "measurement.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace apod {

const char* to_string(Direction d) { return d == Direction::higher ? "higher" : "lower"; }

Direction direction_from_string(const std::string& s) {
  if (s == "higher") return Direction::higher;
  if (s == "lower") return Direction::lower;
  throw std::invalid_argument("direction must be 'higher' or 'lower', not '" + s + "'");
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / s.n;
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / (s.n - 1));
  }
  return s;
}

}  // namespace apod
