// The serial phase of the scaling experiment's Amdahl and Gustafson workloads: a host reduction
// (the mean of a fixed array, summed in order) whose result sets the GPU phase's multiplier, as
// a serial setup step feeds a parallel one. It is timed on its own, several times, and its
// median is held fixed in every point's speed-up: re-timing it beside each point let host noise
// and clock drift (3.3 ms at 16-24 SMs, 2.3 ms at 128 on an H200) bend the curve.
#pragma once

#include "core/series.hpp"

#include <cstddef>
#include <vector>

namespace apod {

class SerialPhase {
public:
  /// Sizes the array so that one pass takes about `target_ms` on this host (from the fastest
  /// of five trial passes over 2^20 elements), between 2^12 and 2^27 elements.
  explicit SerialPhase(double target_ms);

  struct Pass {
    double ms = 0;   ///< wall time of the pass (steady_clock)
    double mean = 0; ///< its result, in [0, 1)
  };
  /// One timed pass.
  Pass run() const;
  /// One untimed pass, then `count` timed ones back to back with nothing else running; the
  /// host's time is not the GPU monitor's business, so no sample is flagged.
  Series sample(int count) const;
  size_t elements() const { return data_.size(); }

private:
  void resize(size_t n);
  std::vector<double> data_;
};

} // namespace apod
