#include "model.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod {

const char* window_name(Window w) {
  switch (w) {
  case Window::hit_ratio_1:
    return "hit_ratio_1";
  case Window::tuned:
    return "tuned";
  case Window::none:
    break;
  }
  return "none";
}

std::vector<double> set_aside_fractions(bool quick) {
  if (quick)
    return {0.0, 0.25, 1.0};
  return {0.0, 0.25, 0.5, 0.75, 1.0};
}

size_t set_aside_bytes(size_t max_set_aside_bytes, double fraction) {
  if (!(fraction >= 0) || fraction > 1)
    throw std::invalid_argument("a set-aside fraction lies in [0, 1]");
  constexpr size_t page = 4096;
  return size_t(double(max_set_aside_bytes) * fraction) / page * page;
}

std::vector<double> region_ratios(bool quick) {
  if (quick)
    return {0.25, 2.0};
  return {0.25, 0.5, 1.0, 2.0};
}

size_t region_bytes(size_t set_aside_bytes, double ratio) {
  if (set_aside_bytes == 0 || !(ratio > 0))
    throw std::invalid_argument("need a set-aside and a positive ratio");
  constexpr size_t page = 4096;
  const size_t bytes = size_t(double(set_aside_bytes) * ratio) / page * page;
  return std::max(bytes, page);
}

double hit_ratio(Window w, size_t set_aside_bytes, size_t region_bytes) {
  switch (w) {
  case Window::hit_ratio_1:
    return 1.0;
  case Window::tuned:
    if (region_bytes == 0)
      throw std::invalid_argument("empty persistent region");
    return std::min(1.0, double(set_aside_bytes) / double(region_bytes));
  case Window::none:
    break;
  }
  return 0.0;
}

double compulsory_bytes(size_t streaming_words, size_t region_bytes) {
  return 2.0 * sizeof(uint32_t) * double(streaming_words) + double(region_bytes);
}

uint32_t streaming_after(uint32_t initial, uint32_t persistent, uint64_t launches) {
  return initial + uint32_t(launches) * persistent;
}

} // namespace apod

namespace apod {

std::optional<size_t> best_net_gain(const std::vector<GainCandidate>& candidates) {
  std::optional<size_t> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const GainCandidate& c = candidates[i];
    if (c.windowed && c.ok && (!best || c.speedup > candidates[*best].speedup))
      best = i;
  }
  return best;
}

} // namespace apod
