#include "in_flight.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace apod {

std::vector<FlightShape> flight_shapes(int max_threads_per_sm, bool quick) {
  const std::vector<int> widths = quick ? std::vector<int>{4, 16} : std::vector<int>{4, 8, 16};
  const std::vector<int> loads = quick ? std::vector<int>{1, 8} : std::vector<int>{1, 2, 4, 8};
  const std::vector<int> threads =
      quick ? std::vector<int>{128, 1024} : std::vector<int>{128, 256, 512, 768, 1024, 1536, 2048};
  std::vector<FlightShape> shapes;
  for (int w : widths)
    for (int l : loads)
      for (int t : threads)
        if (t <= max_threads_per_sm)
          shapes.push_back({w, l, t});
  return shapes;
}

std::optional<double> in_flight_for_bandwidth(std::vector<InFlightPoint> points,
                                              double target_gbs) {
  std::map<double, double> envelope; // bytes in flight -> best bandwidth with that many
  for (const InFlightPoint& p : points)
    if (p.in_flight_bytes > 0)
      envelope[p.in_flight_bytes] = std::max(envelope[p.in_flight_bytes], p.gbs);
  const auto reached = std::find_if(envelope.begin(), envelope.end(),
                                    [&](const auto& e) { return e.second >= target_gbs; });
  if (reached == envelope.end())
    return std::nullopt;
  if (reached == envelope.begin())
    return reached->first;
  const auto below = std::prev(reached);
  const double t = (target_gbs - below->second) / (reached->second - below->second);
  const double log2_bytes =
      std::log2(below->first) + t * (std::log2(reached->first) - std::log2(below->first));
  return std::exp2(log2_bytes);
}

} // namespace apod
