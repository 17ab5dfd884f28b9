// Host-side arithmetic of the latency_hiding experiment: the launch shapes swept (block size x
// resident blocks per SM) and the dynamic shared memory that holds a kernel to that many
// resident blocks, found through the occupancy API (passed in, so the search is testable).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace apod {

struct HidingShape {
  int block_size = 0;
  int blocks_per_sm = 0; ///< resident blocks per SM the shape asks for
  int threads_per_sm() const { return block_size * blocks_per_sm; }
};

/// The shapes swept, in order: 64-thread blocks at 1, 2, 3, 4, 6, 8, 12, 16, 24 and 32 resident
/// blocks per SM (64 to 2048 threads, the slides' axis), then 256-thread blocks at 1, 2, 3, 4, 6
/// and 8 (the guide's usual block size). Shapes past the device's threads or blocks per SM are
/// left out. Quick mode: 64 x 2, 256 x 1 and 256 x 4.
std::vector<HidingShape> hiding_shapes(int max_threads_per_sm, int max_blocks_per_sm, bool quick);

/// The least dynamic shared memory per block, a multiple of `granularity` up to `max_bytes`, at
/// which `blocks_at(bytes)` (resident blocks per SM, non-increasing in bytes) is `target`: the
/// smallest allocation that keeps residency down to target blocks. Empty when no amount gives
/// exactly `target` (e.g. registers already allow fewer, or shared memory cannot go that low).
std::optional<size_t> shared_bytes_for_blocks(int target, size_t max_bytes, size_t granularity,
                                              const std::function<int(size_t)>& blocks_at);

} // namespace apod
