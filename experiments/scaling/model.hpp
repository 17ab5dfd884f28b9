// The scaling experiment's host maths besides the fits: which SM partitions to measure, the
// latency workload's pointer chain, and the memory-bound workload's model (SM count x per-SM
// bandwidth until the DRAM limit). Host-only, unit-tested in test_model.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace apod {

/// The step between partition sizes: the smallest multiple of `min_partition` (the driver's
/// smallest SM group, 8 on Hopper) that gives at most `max_partitions` sizes below `total_sms`,
/// so a GPU with small groups (2 SMs before Hopper) is not measured at 50 sizes.
int partition_step(int total_sms, int min_partition, int max_partitions);

/// The latency workload's chain: next(i) = (a i + c) mod 2^k, a full-period LCG (Hull and
/// Dobell: c odd, a = 1 mod 4), so following it from any index visits all 2^k indices in one
/// cycle before it repeats. Numerical Recipes' multiplier and increment. constexpr, so the
/// kernel that fills the table and the host that checks the chase share one definition.
struct ChaseChain {
  static constexpr uint32_t multiplier = 1664525u, increment = 1013904223u;
  uint32_t mask; ///< 2^k - 1
  constexpr uint32_t next(uint32_t i) const { return (multiplier * i + increment) & mask; }
};

/// Where chains of `steps` links start when the cycle from 0 is cut into consecutive segments:
/// element k is the index reached after k x steps links, for k = 0 .. segments. The chase from
/// segment k's start must end at segment k + 1's start, which is how its output is checked.
std::vector<uint32_t> chase_segment_starts(ChaseChain chain, uint32_t steps, size_t segments);

/// The memory-bound workload's model: what one SM moves, measured on the smallest partition
/// (its bandwidth / its SMs), times the SM count, until the DRAM limit (theory.hpp).
struct BandwidthModel {
  double base_gbs = 0; ///< measured on the base partition
  int base_sms = 0;
  double limit_gbs = 0; ///< achievable peak of the run, else theoretical
  double per_sm_gbs() const { return base_gbs / base_sms; }
  double knee_sm_count() const;       ///< where SM count x per-SM bandwidth meets the limit
  double gbs(int sm_count) const;     ///< the model's bandwidth on sm_count SMs
  double speedup(int sm_count) const; ///< gbs(sm_count) / base_gbs
};

/// The first SM count (in the order given, increasing) whose bandwidth reaches `fraction` of the
/// largest measured; empty for no points.
std::optional<int> measured_knee_sm_count(const std::vector<int>& sm_counts,
                                          const std::vector<double>& gbs, double fraction);

} // namespace apod
