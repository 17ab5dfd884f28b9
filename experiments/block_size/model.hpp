// Host arithmetic of the block_size experiment (block_size.cu): the grid of each shape, the FMA
// work per thread that keeps every launch's total work the same, and the chains the outputs are
// checked against.
#pragma once

#include <cstdint>
#include <string>

namespace apod::block_size {

/// Blocks of a launch: one per SM, one wave (SMs x resident blocks per SM, the occupancy API's
/// answer) or `many_waves_count` waves. Throws std::invalid_argument for an unknown grid or a
/// non-positive count.
int64_t grid_blocks(const std::string& grid, int sm_count, int blocks_per_sm);

/// Threads per SM resident while the grid runs: one block's threads when one block per SM, else
/// the resident blocks' (the occupancy API's blocks per SM x block size).
int resident_threads_per_sm(const std::string& grid, int block_size, int blocks_per_sm);

/// Steps of each thread's 4 FMA chains so the launch does about `total_fmas` FMAs whatever its
/// shape (the same problem, split differently): total / (threads x 4), at least 1.
int fma_steps(double total_fmas, int64_t threads);

inline constexpr int fma_chains = 4;
inline constexpr float fma_multiplier = 0.9999f;
inline constexpr float fma_addend = 0.0001f;
inline constexpr int fma_inputs = 64; ///< thread t starts from input_value(t % fma_inputs)
/// 1 + v / 64: exact in float.
constexpr float input_value(int v) {
  return 1.0f + float(v) / 64.0f;
}
/// The output of a thread starting from x after `steps` steps: chain c starts at x + c / 8, each
/// step is c = fma(c, multiplier, addend), the output is the 4 chains summed in order.
float fma_output(float x, int steps);

} // namespace apod::block_size
