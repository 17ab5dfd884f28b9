// The stopping rules of the measurement core, kept on the host so they can be tested without a
// GPU: at least min_samples, then stop when the median's 95% confidence interval is within the
// target, when the point has used its time cap, or at max_samples. Samples the monitor flags
// (low SM clock, throttling, a monitor that stopped answering) are kept but do not count toward
// the statistics. Also the host arithmetic of the SM clock measured over each timed region.
#pragma once

#include "core/experiment.hpp"
#include "core/in_flight.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod {

/// The samples of one point: times in ms in the order taken, and how sampling ended.
struct TimedSamples {
  std::vector<double> ms;
  std::vector<uint8_t> excluded; ///< per sample; 0 = used
  std::string stop_reason = stop_fixed;
  bool noisy = false;
  /// Per sample: the SM clock in MHz over its timed region, measured on the device; NaN where
  /// it could not be measured. Empty when the timing core did not measure it.
  std::vector<double> sm_clock_mhz;
  SamplingWindow window;    ///< when the point was sampled (run clock) and the energy used
  double target_ci_rel = 0; ///< the policy's CI target the noisy rule used (0: none)

  // No conversion to a plain vector of times: experiments read a TimedSamples through Series
  // (core/series.hpp), whose statistics use only the unflagged samples.
  size_t size() const { return ms.size(); }
  bool empty() const { return ms.empty(); }
};

/// The noisy rule, one for adaptive and fixed-count points alike: the used samples' median
/// interval (ci_label(): a 95% CI from 6 samples on, else [min, max]) is wider than
/// target_ci_rel of the median on either side, or no sample is used.
bool over_ci_target(const std::vector<double>& used, double target_ci_rel);

/// Ends a fixed-count point (time_fixed_ms): stop reason "fixed", the policy's target recorded,
/// and noisy by over_ci_target over its used samples.
void finish_fixed(TimedSamples& t, const SamplingPolicy& policy);

class AdaptiveSampler {
public:
  explicit AdaptiveSampler(const SamplingPolicy& policy);
  /// Records one sample, the monitor's flags for it and the SM clock measured over it (NaN: none).
  void add(double ms, uint8_t excluded_flags = 0, double sm_clock_mhz = std::nan(""));
  /// True while another sample should be taken.
  bool want_more();
  TimedSamples finish() { return std::move(result_); }

private:
  SamplingPolicy policy_;
  TimedSamples result_;
  std::vector<double> used_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// Two readings of an SM's cycle counter (clock64) and of the GPU's nanosecond timer
/// (%globaltimer), taken on the same SM just before and just after a timed region (nvbench's
/// gpu_frequency does the same).
struct ClockStamps {
  uint64_t start_ns = 0, start_cycles = 0;
  uint64_t stop_ns = 0, stop_cycles = 0;
};

/// Intervals shorter than this give no clock: %globaltimer advances in steps of up to 1 us on
/// some GPUs, so a shorter interval could be off by more than 5%.
inline constexpr uint64_t min_clock_interval_ns = 20000;

/// The mean SM clock in MHz between the stamps: cycles / nanoseconds x 1000. Nothing when the
/// interval is under min_clock_interval_ns or the readings go backwards.
std::optional<double> sm_clock_mhz_between(const ClockStamps& stamps);

} // namespace apod
