#include "analysis/history.hpp"

#include <algorithm>
#include <cmath>

namespace apod {

namespace {
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
}  // namespace

std::vector<ChangePoint> detect_steps(const std::vector<double>& series, const StepDetector& d) {
  std::vector<ChangePoint> steps;
  int level_start = 0;  // the old level is measured only from here: never across an earlier step
  for (int i = 1; i + d.confirm <= static_cast<int>(series.size()); ++i) {
    const int from = std::max(level_start, i - d.window);
    if (i - from < d.min_window) continue;
    const std::vector<double> before(series.begin() + from, series.begin() + i);
    const std::vector<double> after(series.begin() + i, series.begin() + i + d.confirm);
    const double level = median_of(before);
    std::vector<double> deviations;
    for (double v : before) deviations.push_back(std::abs(v - level));
    const double noise = std::max(1.4826 * median_of(deviations), d.min_noise_rel * std::abs(level));
    const double shift = median_of(after) - level;
    if (noise <= 0 || level == 0) continue;
    const double z = std::abs(shift) / noise;
    const bool same_side = std::all_of(after.begin(), after.end(), [&](double v) {
      return shift > 0 ? v > level + 2 * noise : v < level - 2 * noise;
    });
    if (z > d.z && std::abs(shift / level) > d.min_change_rel && same_side) {
      steps.push_back({i, level, level + shift, shift / level, z});
      level_start = i;
      i += d.confirm - 1;
    }
  }
  return steps;
}

}  // namespace apod
