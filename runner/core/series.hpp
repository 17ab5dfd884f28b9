// How an experiment turns what it timed into a stored record: a Series is a set of samples with
// the monitor's flag for each (0 = used), the SM clock measured over each, how sampling ended and
// when it ran. The timing core returns one (timing.cuh; Series(const TimedSamples&) keeps all of
// it); a figure derived from others is made with map() or zip(), which carry the flags over, so a
// derived sample is left out whenever any of its inputs was. make_measurement() is the one way to
// build a Measurement. There is no conversion to a plain vector: statistics come from summary(),
// which uses only the unflagged samples.
#pragma once

#include "core/catalog.hpp"
#include "core/in_flight.hpp"
#include "core/measurement.hpp"
#include "core/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace apod {

/// The metrics several experiments share (an experiment's own are defined beside its kernel).
namespace metrics {
/// Bytes read plus written per second, read against the theoretical DRAM bandwidth (an
/// experiment over another link declares it `.against(LimitKind::pcie).of_class(...)`).
inline const Metric effective_bandwidth{.name = "effective_bandwidth",
                                        .unit = "GB/s",
                                        .direction = Direction::higher,
                                        .metric_class = MetricClass::device_memory,
                                        .limit = LimitKind::dram};
inline const Metric time_ms{.name = "time_ms",
                            .unit = "ms",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::host_phase};
} // namespace metrics

class Series {
public:
  Series() = default;
  /// Values with their flags (`flags` empty: every value used; else as long as `values`).
  Series(std::vector<double> values, std::vector<uint8_t> flags,
         std::string stop_reason = stop_fixed, bool noisy = false);
  /// What the timing core measured, all of it: times in ms, flags, stop reason and noisiness,
  /// the SM clock over each sample, the sampling window and the CI target of the noisy rule.
  Series(const TimedSamples& timed);

  /// Appends one sample, the monitor's flags for it and the SM clock over it (NaN: unknown).
  void add(double value, uint8_t flags = 0, double sm_clock_mhz = std::nan(""));

  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  const std::vector<double>& values() const { return values_; }
  const std::vector<uint8_t>& flags() const { return flags_; }
  /// The values whose flag is 0.
  std::vector<double> used() const;
  /// Statistics of the used values.
  Summary summary() const { return summarize(used()); }

  /// Per sample, the SM clock in MHz over its timed region (NaN: unknown); empty when the
  /// series carries no clocks.
  const std::vector<double>& sm_clock_mhz() const { return clocks_; }
  double clock(size_t i) const { return i < clocks_.size() ? clocks_[i] : std::nan(""); }
  const SamplingWindow& window() const { return window_; }
  /// The CI target of the noisy rule (0: none known); make_measurement applies it to fixed counts.
  double target_ci_rel() const { return target_ci_rel_; }

  const std::string& stop_reason() const { return stop_reason_; }
  bool noisy() const { return noisy_; }
  void set_stop(std::string reason, bool noisy) {
    stop_reason_ = std::move(reason);
    noisy_ = noisy;
  }

  /// f applied to each value; flags, stop reason and noisiness kept.
  template <class F> Series map(F&& f) const {
    Series out = *this;
    for (double& v : out.values_)
      v = f(v);
    return out;
  }

  /// f(a[i], b[i]) for series taken side by side (the i-th sample of each in one trial): the
  /// flags are OR-ed, so a derived sample is left out when either input was; its clock is the
  /// lower of the two; the window spans both. The result counts as fixed-count, noisy if either
  /// input is (make_measurement also applies the noisy rule to the derived values). Throws
  /// std::logic_error on unequal lengths.
  template <class F> static Series zip(const Series& a, const Series& b, F&& f) {
    if (a.size() != b.size())
      throw std::logic_error("Series::zip: the series differ in length");
    Series out;
    for (size_t i = 0; i < a.size(); ++i)
      out.add(f(a.values_[i], b.values_[i]), a.flag(i) | b.flag(i),
              lower_clock(a.clock(i), b.clock(i)));
    out.noisy_ = a.noisy_ || b.noisy_;
    out.window_ = SamplingWindow::merge(a.window_, b.window_);
    out.target_ci_rel_ = std::max(a.target_ci_rel_, b.target_ci_rel_);
    return out;
  }

  /// The samples for which keep(value) is true, with their flags; the count left out is
  /// returned through `left_out` (e.g. pairs without a finite Amdahl limit).
  template <class Keep> Series where(Keep&& keep, size_t* left_out = nullptr) const {
    Series out;
    out.stop_reason_ = stop_reason_, out.noisy_ = noisy_;
    out.window_ = window_, out.target_ci_rel_ = target_ci_rel_;
    for (size_t i = 0; i < size(); ++i)
      if (keep(values_[i]))
        out.add(values_[i], flag(i), clock(i));
    if (left_out)
      *left_out = size() - out.size();
    return out;
  }

  uint8_t flag(size_t i) const { return i < flags_.size() ? flags_[i] : 0; }

private:
  /// The lower of two clocks, or the one that is known.
  static double lower_clock(double a, double b) {
    return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
  }

  std::vector<double> values_;
  std::vector<uint8_t> flags_;
  std::vector<double> clocks_; ///< empty, or one per value
  std::string stop_reason_ = stop_fixed;
  bool noisy_ = false;
  SamplingWindow window_;
  double target_ci_rel_ = 0;
};

/// The one way to build a measurement: the point's parameters, its metric, the series it is
/// made of (values in metric.unit), whether the output matched the host's answer, and facts for
/// extra. Whether the point is ok is decided later, once, by point_status(). A fixed-count
/// series with a CI target is marked noisy by the adaptive points' rule (over_ci_target) over
/// the values stored; the measured SM clocks and the sampling window go to
/// extra[keys::sm_clock_mhz] and extra[keys::sampling_window].
Measurement make_measurement(json params, const Metric& metric, const Series& series, bool verified,
                             json extra = json::object());

/// Effective bandwidth in GB/s per sample, from times in ms and the bytes each sample moved
/// (read + written, as the experiment counts them).
Series bandwidth_gbs(const Series& times_ms, double bytes_moved);

/// make_measurement with metrics::effective_bandwidth from times in ms; records bytes_moved.
Measurement bandwidth_measurement(json params, double bytes_moved, const Series& times_ms,
                                  bool verified, json extra = json::object());

} // namespace apod
