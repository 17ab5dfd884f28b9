#include "model.hpp"

#include "core/theory.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace apod {

Series amdahl_limits(const Series& parallel_fractions, size_t& left_out) {
  // `p < 1` is false for NaN too.
  return parallel_fractions.where([](double p) { return p < 1; }, &left_out).map(amdahl_limit);
}

double staged_estimate_ms(double transfer_ms, double kernel_ms, int n_streams) {
  if (transfer_ms < 0 || kernel_ms < 0 || n_streams < 1)
    throw std::invalid_argument("need non-negative times and at least one stream");
  // Whichever of the two is longer runs in full; only the first chunk of it waits for (or the
  // last chunk of it is followed by) one stage of the shorter one.
  return kernel_ms > transfer_ms ? kernel_ms + transfer_ms / n_streams
                                 : transfer_ms + kernel_ms / n_streams;
}

int64_t iterations_for_time(int64_t iterations_a, double time_a_ms, int64_t iterations_b,
                            double time_b_ms, double target_ms) {
  if (iterations_a < 1 || iterations_b <= iterations_a || time_a_ms <= 0 || time_b_ms <= 0 ||
      target_ms <= 0)
    throw std::invalid_argument("need 1 <= iterations_a < iterations_b and positive times");
  const double slope_ms = (time_b_ms - time_a_ms) / double(iterations_b - iterations_a);
  const double iterations = slope_ms > 0 ? iterations_a + (target_ms - time_a_ms) / slope_ms
                                         : iterations_b * target_ms / time_b_ms;
  // 2^30 caps a runaway fit; no real calibration comes near it.
  return std::llround(std::clamp(iterations, 1.0, double(1 << 30)));
}

AffineMap32 affine_power(AffineMap32 step, uint64_t steps) {
  AffineMap32 result; // identity
  // result accumulates step^(bits seen so far); composing g after f is g(f(x)).
  for (; steps; steps >>= 1) {
    if (steps & 1)
      result = {step.multiplier * result.multiplier,
                step.multiplier * result.increment + step.increment};
    step = {step.multiplier * step.multiplier, step.multiplier * step.increment + step.increment};
  }
  return result;
}

} // namespace apod
