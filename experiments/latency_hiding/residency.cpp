#include "residency.hpp"

#include <stdexcept>

namespace apod {

std::vector<HidingShape> hiding_shapes(int max_threads_per_sm, int max_blocks_per_sm, bool quick) {
  std::vector<HidingShape> wanted;
  if (quick) {
    wanted = {{64, 2}, {64, 32}, {256, 1}, {256, 4}};
  } else {
    for (int blocks : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32})
      wanted.push_back({64, blocks});
    for (int blocks : {1, 2, 3, 4, 6, 8})
      wanted.push_back({256, blocks});
  }
  std::vector<HidingShape> shapes;
  for (const HidingShape& s : wanted)
    if (s.threads_per_sm() <= max_threads_per_sm && s.blocks_per_sm <= max_blocks_per_sm)
      shapes.push_back(s);
  return shapes;
}

std::vector<int> launch_rate_block_sizes() {
  return {32, 64, 128, 256};
}

double launch_bound_gbs(double blocks_per_s, int block_size, double bytes_per_thread) {
  if (!(blocks_per_s > 0) || block_size <= 0 || !(bytes_per_thread > 0))
    throw std::invalid_argument("launch_bound_gbs: non-positive input");
  return blocks_per_s * block_size * bytes_per_thread / 1e9;
}

std::optional<size_t> shared_bytes_for_blocks(int target, size_t max_bytes, size_t granularity,
                                              const std::function<int(size_t)>& blocks_at) {
  if (target < 1 || granularity == 0)
    throw std::invalid_argument("shared_bytes_for_blocks: need target >= 1 and a granularity");
  // Bisect on steps of `granularity`: blocks_at(lo) > target >= blocks_at(hi) is kept.
  size_t lo = 0, hi = max_bytes / granularity;
  if (blocks_at(0) <= target)
    return blocks_at(0) == target ? std::optional<size_t>(0) : std::nullopt;
  if (blocks_at(hi * granularity) > target)
    return std::nullopt;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (blocks_at(mid * granularity) > target ? lo : hi) = mid;
  }
  const size_t bytes = hi * granularity;
  return blocks_at(bytes) == target ? std::optional<size_t>(bytes) : std::nullopt;
}

} // namespace apod
