#include "core/bandwidth.hpp"

#include "core/theory.hpp"

namespace apod {

Measurement bandwidth_measurement(json params, double bytes_moved, const std::vector<double>& samples_ms) {
  Measurement m;
  m.params = std::move(params);
  m.metric = "effective_bandwidth";
  m.unit = "GB/s";
  m.direction = Direction::higher;
  m.samples.reserve(samples_ms.size());
  for (double ms : samples_ms) m.samples.push_back(bandwidth_gbs_from_ms(bytes_moved, ms));
  m.extra["bytes_moved"] = bytes_moved;
  return m;
}

Measurement bandwidth_measurement(json params, double bytes_moved, const TimedSamples& samples) {
  Measurement m = bandwidth_measurement(std::move(params), bytes_moved, samples.ms);
  apply_sampling(m, samples);
  return m;
}

}  // namespace apod
