#include "core/sampling.hpp"

namespace apod {

AdaptiveSampler::AdaptiveSampler(const SamplingPolicy& policy) : policy_(policy) {}

void AdaptiveSampler::add(double ms, uint8_t flags) {
  result_.ms.push_back(ms);
  result_.excluded.push_back(flags);
  if (flags == 0) used_.push_back(ms);
}

bool AdaptiveSampler::want_more() {
  const int taken = static_cast<int>(result_.ms.size());
  const int used = static_cast<int>(used_.size());
  if (taken >= policy_.max_samples) {
    result_.stop_reason = stop_max_samples;
    result_.noisy = used < policy_.min_samples || summarize(used_).ci_half_width_rel() > policy_.target_ci_rel;
    return false;
  }
  if (used < policy_.min_samples) return true;
  if (summarize(used_).ci_half_width_rel() <= policy_.target_ci_rel) {
    result_.stop_reason = stop_converged;
    return false;
  }
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed_s >= policy_.max_point_s) {
    result_.stop_reason = stop_time_cap;
    result_.noisy = true;
    return false;
  }
  return true;
}

void apply_sampling(Measurement& m, const TimedSamples& t) {
  m.excluded = t.excluded;
  m.stop_reason = t.stop_reason;
  m.noisy = t.noisy;
}

void merge_excluded(std::vector<uint8_t>& into, const std::vector<uint8_t>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[i] |= from[i];
}

void apply_fixed_exclusions(Measurement& m, std::vector<uint8_t> excluded) {
  m.stop_reason = stop_fixed;
  m.excluded = std::move(excluded);
  if (!m.samples.empty() && m.used_samples().empty() && m.error.empty())
    m.error = "every sample was taken with the SM clock under the threshold or while throttled";
}

}  // namespace apod
