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

/// The shapes swept (each a persistent grid of blocks_per_sm x SMs blocks), in order: 64-thread
/// blocks at 1, 2, 3, 4, 6, 8, 12, 16, 24 and 32 resident blocks per SM (64 to 2048 threads, the
/// slides' axis), then 256-thread blocks at 1, 2, 3, 4, 6 and 8 (the guide's usual block size).
/// Shapes past the device's threads or blocks per SM are left out. Quick mode: 64 x 2, 64 x 32, 256
/// x 1 and 256 x 4.
std::vector<HidingShape> hiding_shapes(int max_threads_per_sm, int max_blocks_per_sm, bool quick);

/// The block sizes whose launch rate is measured (blocks of a near-empty kernel per second).
std::vector<int> launch_rate_block_sizes();

/// The bandwidth a one-element-per-thread launch (a block per block_size elements, the grid
/// covering the array) cannot exceed when the GPU starts `blocks_per_s` blocks a second:
/// blocks_per_s x block_size x bytes_per_thread, in GB/s. Stich's kernel moves 8 bytes per
/// thread (a 4-byte read and write): 64-thread blocks at 1.65 G blocks/s give 845 GB/s, the
/// flat line the non-persistent sweep sat on (851 GB/s on both the H100 and the H200).
/// Throws std::invalid_argument on non-positive input.
double launch_bound_gbs(double blocks_per_s, int block_size, double bytes_per_thread);

/// The least dynamic shared memory per block, a multiple of `granularity` up to `max_bytes`, at
/// which `blocks_at(bytes)` (resident blocks per SM, non-increasing in bytes) is `target`: the
/// smallest allocation that keeps residency down to target blocks. Empty when no amount gives
/// exactly `target` (e.g. registers already allow fewer, or shared memory cannot go that low).
std::optional<size_t> shared_bytes_for_blocks(int target, size_t max_bytes, size_t granularity,
                                              const std::function<int(size_t)>& blocks_at);

} // namespace apod
