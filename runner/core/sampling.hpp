// The stopping rules of the measurement core, kept on the host so they can be tested without a
// GPU: at least min_samples, then stop when the median's 95% confidence interval is within the
// target, when the point has used its time cap, or at max_samples. Samples the monitor flags
// (low SM clock, throttling) are kept but do not count toward the statistics.
#pragma once

#include "core/experiment.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace apod {

/// The samples of one point: times in ms in the order taken, and how sampling ended.
struct TimedSamples {
  std::vector<double> ms;
  std::vector<uint8_t> excluded;   ///< per sample; 0 = used
  std::string stop_reason = stop_fixed;
  bool noisy = false;

  // Lets experiments treat the result as the vector of times it used to be.
  operator const std::vector<double>&() const { return ms; }
  size_t size() const { return ms.size(); }
  double operator[](size_t i) const { return ms[i]; }
  auto begin() const { return ms.begin(); }
  auto end() const { return ms.end(); }
  bool empty() const { return ms.empty(); }
};

class AdaptiveSampler {
 public:
  explicit AdaptiveSampler(const SamplingPolicy& policy);
  /// Records one sample and the monitor's flags for it.
  void add(double ms, uint8_t excluded_flags = 0);
  /// True while another sample should be taken.
  bool want_more();
  TimedSamples finish() { return std::move(result_); }

 private:
  SamplingPolicy policy_;
  TimedSamples result_;
  std::vector<double> used_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// Copies what the sampler decided into a measurement (samples must already be set).
void apply_sampling(Measurement& m, const TimedSamples& t);

/// For a series derived sample by sample from others taken side by side (the i-th of each): ORs
/// `from`'s flags into `into`, so a derived sample is left out when any of its inputs was.
/// The result is as long as the longer of the two.
void merge_excluded(std::vector<uint8_t>& into, const std::vector<uint8_t>& from);

/// Sets a fixed-count measurement's exclusion flags (stop_reason "fixed"). When the monitor
/// flagged every sample the point carries no figure: it gets an error saying so.
void apply_fixed_exclusions(Measurement& m, std::vector<uint8_t> excluded);

}  // namespace apod
