#include "model.hpp"

#include "staged_copy/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace apod::engines {

double overlap_fraction_of(double cpu_ms, double gpu_ms, double both_ms) {
  if (!(cpu_ms > 0) || !(gpu_ms > 0) || !(both_ms > 0))
    throw std::invalid_argument("overlap_fraction: every time must be positive");
  return (cpu_ms + gpu_ms - both_ms) / std::min(cpu_ms, gpu_ms);
}

double bidirectional_ratio_of(double total_gbs, double h2d_alone_gbs, double d2h_alone_gbs) {
  if (!(total_gbs > 0) || !(h2d_alone_gbs > 0) || !(d2h_alone_gbs > 0))
    throw std::invalid_argument("bidirectional_ratio: every rate must be positive");
  return total_gbs / (h2d_alone_gbs + d2h_alone_gbs);
}

int passes_for(double pass_ms, double target_ms, int max_passes) {
  if (!(pass_ms > 0) || !(target_ms > 0) || max_passes < 1)
    throw std::invalid_argument("passes_for: need positive times and at least one pass");
  return int(std::clamp(std::llround(target_ms / pass_ms), 1ll, (long long)max_passes));
}

uint64_t cpu_function(uint64_t x, uint64_t iterations, Lcg64 step) {
  for (uint64_t i = 0; i < iterations; ++i)
    x = x * step.multiplier + step.increment;
  return x;
}

uint64_t cpu_function_closed_form(uint64_t x, uint64_t iterations, Lcg64 step) {
  // Repeated squaring of the affine map; result accumulates step^(bits seen so far).
  uint64_t mul = 1, add = 0;
  for (; iterations; iterations >>= 1) {
    if (iterations & 1) {
      mul = step.multiplier * mul;
      add = step.multiplier * add + step.increment;
    }
    step = {step.multiplier * step.multiplier, step.multiplier * step.increment + step.increment};
  }
  return mul * x + add;
}

uint64_t iterations_for_ms(uint64_t measured_iterations, double measured_ms, double target_ms) {
  if (measured_iterations < 1 || !(measured_ms > 0) || !(target_ms > 0))
    throw std::invalid_argument("iterations_for_ms: need positive inputs");
  const double n = double(measured_iterations) * target_ms / measured_ms;
  return uint64_t(std::clamp(std::llround(n), 1ll, 1ll << 40));
}

double staged_model_at_rate_ms(double chunk_ms, double copy_slowdown, double kernel_ms,
                               int n_streams) {
  if (!(copy_slowdown > 0))
    throw std::invalid_argument("staged_model_at_rate_ms: the slowdown must be positive");
  return staged_estimate_ms(n_streams * chunk_ms * copy_slowdown, kernel_ms, n_streams);
}

} // namespace apod::engines
