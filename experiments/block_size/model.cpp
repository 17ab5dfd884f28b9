// Host arithmetic of the block_size experiment: see model.hpp.
#include "model.hpp"

#include "declaration.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace apod::block_size {

int64_t grid_blocks(const std::string& grid, int sm_count, int blocks_per_sm) {
  if (sm_count <= 0 || blocks_per_sm <= 0)
    throw std::invalid_argument("grid_blocks: non-positive SM or block count");
  if (grid == one_block_per_sm)
    return sm_count;
  if (grid == one_wave)
    return int64_t(sm_count) * blocks_per_sm;
  if (grid == many_waves)
    return int64_t(many_waves_count) * sm_count * blocks_per_sm;
  throw std::invalid_argument("grid_blocks: unknown grid " + grid);
}

int resident_threads_per_sm(const std::string& grid, int block_size, int blocks_per_sm) {
  return grid == one_block_per_sm ? block_size : block_size * blocks_per_sm;
}

int fma_steps(double total_fmas, int64_t threads) {
  if (threads <= 0)
    throw std::invalid_argument("fma_steps: no threads");
  return std::max(1, int(std::llround(total_fmas / (double(threads) * fma_chains))));
}

float fma_output(float x, int steps) {
  float c[fma_chains];
  for (int i = 0; i < fma_chains; ++i)
    c[i] = x + float(i) / 8.0f;
  for (int s = 0; s < steps; ++s)
    for (float& v : c)
      v = std::fma(v, fma_multiplier, fma_addend);
  float sum = 0;
  for (float v : c)
    sum += v;
  return sum;
}

} // namespace apod::block_size
