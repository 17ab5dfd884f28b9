// Host-side arithmetic of the staged-copy experiment (staged_copy.cu): the guide's
// estimate of the overall time, the choice of a kernel length that matches the transfer, and the
// closed form of the kernel's work that lets the host check every element cheaply.
#pragma once

#include "core/series.hpp"

#include <cstddef>
#include <cstdint>

namespace apod {

/// CUDA C++ Best Practices Guide 9.1.2 (Asynchronous and Overlapping Transfers with Computation):
/// a host-to-device copy taking `transfer_ms` (tT) and a kernel taking `kernel_ms` (tE), split
/// into `n_streams` stages that each copy and process their own chunk, take roughly
/// tE + tT / nStreams when tE > tT, and tT + tE / nStreams otherwise. With one stream this is
/// tE + tT, the guide's figure for the sequential version. Throws std::invalid_argument for
/// negative times or n_streams < 1.
double staged_estimate_ms(double transfer_ms, double kernel_ms, int n_streams);

/// Amdahl's limit 1 / (1 - P) per sample pair, for the pairs that have one: P_i >= 1 (a tE sample
/// longer than its total, timed apart) or NaN has none and is left out; `left_out` counts them.
/// The pairs kept keep their order, flags, stop reason and noisiness.
Series amdahl_limits(const Series& parallel_fractions, size_t& left_out);

/// Iterations that should make a kernel take `target_ms`, from two timed runs (iterations_a
/// taking time_a_ms, iterations_b taking time_b_ms) and a straight line through them: the
/// intercept is the part that does not grow with the work (launch, memory traffic). Falls back to
/// scaling run b alone when the line does not rise (timing noise), and never returns less than 1.
int64_t iterations_for_time(int64_t iterations_a, double time_a_ms, int64_t iterations_b,
                            double time_b_ms, double target_ms);

/// The affine map x -> multiplier * x + increment (mod 2^32), applied `steps` times, is again
/// affine; this is its pair of coefficients, found by repeated squaring in O(log steps).
struct AffineMap32 {
  uint32_t multiplier = 1;
  uint32_t increment = 0;
  uint32_t operator()(uint32_t x) const { return multiplier * x + increment; }
};
AffineMap32 affine_power(AffineMap32 step, uint64_t steps);

} // namespace apod
