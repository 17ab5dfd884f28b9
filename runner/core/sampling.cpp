#include "core/sampling.hpp"

namespace apod {

bool over_ci_target(const std::vector<double>& used, double target_ci_rel) {
  return used.empty() || summarize(used).ci_half_width_rel() > target_ci_rel;
}

void finish_fixed(TimedSamples& t, const SamplingPolicy& policy) {
  t.stop_reason = stop_fixed;
  t.target_ci_rel = policy.target_ci_rel;
  t.noisy = over_ci_target(used_values(t.ms, t.excluded), policy.target_ci_rel);
}

AdaptiveSampler::AdaptiveSampler(const SamplingPolicy& policy) : policy_(policy) {
  result_.target_ci_rel = policy.target_ci_rel;
}

void AdaptiveSampler::add(double ms, uint8_t flags, double sm_clock_mhz) {
  result_.ms.push_back(ms);
  result_.excluded.push_back(flags);
  result_.sm_clock_mhz.push_back(sm_clock_mhz);
  if (flags == 0)
    used_.push_back(ms);
}

bool AdaptiveSampler::want_more() {
  const int taken = static_cast<int>(result_.ms.size());
  const int used = static_cast<int>(used_.size());
  if (taken >= policy_.max_samples) {
    result_.stop_reason = stop_max_samples;
    result_.noisy = used < policy_.min_samples || over_ci_target(used_, policy_.target_ci_rel);
    return false;
  }
  if (used < policy_.min_samples)
    return true;
  if (!over_ci_target(used_, policy_.target_ci_rel)) {
    result_.stop_reason = stop_converged;
    return false;
  }
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed_s >= policy_.max_point_s) {
    result_.stop_reason = stop_time_cap;
    result_.noisy = true;
    return false;
  }
  return true;
}

std::optional<double> sm_clock_mhz_between(const ClockStamps& s) {
  if (s.stop_ns < s.start_ns + min_clock_interval_ns || s.stop_cycles < s.start_cycles)
    return std::nullopt;
  // cycles per nanosecond is GHz; x 1000 for MHz.
  return 1e3 * static_cast<double>(s.stop_cycles - s.start_cycles) /
         static_cast<double>(s.stop_ns - s.start_ns);
}

} // namespace apod
