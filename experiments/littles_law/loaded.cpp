#include "loaded.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod {

std::vector<int> background_delays_cycles() {
  return {0,    1000, 1500,  2000,  2500,  3000,  3500,  4000,  5000,
          6000, 8000, 11000, 16000, 24000, 40000, 80000, 160000};
}

std::vector<LoadedPoint> loaded_curve(std::vector<LoadedPoint> points) {
  std::erase_if(points, [](const LoadedPoint& p) { return !(p.gbs >= 0) || !(p.ns > 0); });
  std::sort(points.begin(), points.end(),
            [](const LoadedPoint& a, const LoadedPoint& b) { return a.gbs < b.gbs; });
  for (size_t i = 1; i < points.size(); ++i)
    points[i].ns = std::max(points[i].ns, points[i - 1].ns);
  return points;
}

std::optional<double> latency_at(const std::vector<LoadedPoint>& curve, double gbs) {
  if (curve.empty() || gbs > curve.back().gbs)
    return std::nullopt;
  if (gbs <= curve.front().gbs)
    return curve.front().ns;
  const auto above =
      std::lower_bound(curve.begin(), curve.end(), gbs,
                       [](const LoadedPoint& p, double value) { return p.gbs < value; });
  const auto below = std::prev(above);
  if (above->gbs == below->gbs)
    return above->ns;
  const double t = (gbs - below->gbs) / (above->gbs - below->gbs);
  return below->ns + t * (above->ns - below->ns);
}

std::optional<double> littles_fixed_point_gbs(const std::vector<LoadedPoint>& curve, int sm_count,
                                              double in_flight_bytes_per_sm,
                                              double moved_per_loaded_byte) {
  if (sm_count <= 0 || in_flight_bytes_per_sm <= 0 || moved_per_loaded_byte <= 0)
    throw std::invalid_argument("littles_fixed_point_gbs: non-positive input");
  if (curve.empty())
    return std::nullopt;
  const double moved_per_ns = moved_per_loaded_byte * sm_count * in_flight_bytes_per_sm;
  // Bytes per ns are GB/s: moved_per_ns / L(B) in bytes / ns.
  const auto excess = [&](double gbs) { return moved_per_ns / *latency_at(curve, gbs) - gbs; };
  const double top = curve.back().gbs;
  if (excess(top) >= 0)
    return moved_per_ns / curve.back().ns;
  double lo = 0, hi = top; // excess(lo) > 0 > excess(hi)
  for (int i = 0; i < 100 && hi - lo > 1e-9 * top; ++i) {
    const double mid = 0.5 * (lo + hi);
    (excess(mid) > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::optional<double> littles_in_flight_bytes_per_sm(const std::vector<LoadedPoint>& curve,
                                                     double gbs, int sm_count,
                                                     double moved_per_loaded_byte) {
  if (sm_count <= 0 || gbs <= 0 || moved_per_loaded_byte <= 0)
    throw std::invalid_argument("littles_in_flight_bytes_per_sm: non-positive input");
  const auto ns = latency_at(curve, gbs);
  if (!ns)
    return std::nullopt;
  return gbs * *ns / (moved_per_loaded_byte * sm_count);
}

} // namespace apod
