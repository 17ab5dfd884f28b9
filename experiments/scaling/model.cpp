#include "model.hpp"

#include "core/theory.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod {

int partition_step(int total_sms, int min_partition, int max_partitions) {
  if (total_sms < 1 || min_partition < 1 || max_partitions < 1)
    throw std::invalid_argument("partition_step needs positive SM counts and a positive limit");
  int step = min_partition;
  while ((total_sms - 1) / step > max_partitions)
    step += min_partition;
  return step;
}

std::vector<uint32_t> chase_segment_starts(ChaseChain chain, uint32_t steps, size_t segments) {
  // steps links at a time: the composition of the affine step with itself, mod 2^32 (the mask
  // divides 2^32, so masking once at the end gives the same index).
  uint32_t a = 1, c = 0;
  for (uint32_t i = 0; i < steps; ++i) {
    a *= ChaseChain::multiplier;
    c = ChaseChain::multiplier * c + ChaseChain::increment;
  }
  std::vector<uint32_t> starts(segments + 1);
  starts[0] = 0;
  for (size_t k = 1; k <= segments; ++k)
    starts[k] = (a * starts[k - 1] + c) & chain.mask;
  return starts;
}

double BandwidthModel::knee_sm_count() const {
  return bandwidth_knee_sm_count(per_sm_gbs(), limit_gbs);
}

double BandwidthModel::gbs(int sm_count) const {
  return sm_bandwidth_model_gbs(sm_count, per_sm_gbs(), limit_gbs);
}

double BandwidthModel::speedup(int sm_count) const {
  return gbs(sm_count) / base_gbs;
}

std::optional<int> measured_knee_sm_count(const std::vector<int>& sm_counts,
                                          const std::vector<double>& gbs, double fraction) {
  if (gbs.empty() || gbs.size() != sm_counts.size())
    return std::nullopt;
  const double top = *std::max_element(gbs.begin(), gbs.end());
  for (size_t i = 0; i < gbs.size(); ++i)
    if (gbs[i] >= fraction * top)
      return sm_counts[i];
  return std::nullopt;
}

} // namespace apod
