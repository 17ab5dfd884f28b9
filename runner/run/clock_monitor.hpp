// The per-sample check of SamplingPolicy::monitor. After every sample it asks the driver for the
// SM clock and the active clocks-event (throttle) reasons; the timing core also hands it the SM
// clock it measured over the sample on the device. It fails closed: a query that answered when
// the run began and stops answering flags every sample from then on (sample_flag::
// monitor_failed) and is reported as an event, so a run whose monitor died never passes for a
// clean one. Queries that never answered, or no NVML at all, are recorded once in the run's
// environment (availability()), and the measured clock is still checked.
#pragma once

#include "core/experiment.hpp"
#include "run/nvml.hpp"

#include <string>
#include <vector>

namespace apod {

class ClockMonitor : public SampleMonitor {
public:
  /// `source` null: no NVML (`why_unavailable` says why). The threshold is `min_clock_ratio` of
  /// the source's maximum SM clock, else of `device_max_sm_clock_mhz` (cudaDevAttrClockRate).
  ClockMonitor(ClockSource* source, double min_clock_ratio, double device_max_sm_clock_mhz,
               std::string why_unavailable = "");

  /// NVML's view after the sample: sample_flag low_clock, throttled, monitor_failed bits.
  uint8_t check() override;
  /// low_clock when the clock measured over the sample's timed region is under the threshold.
  uint8_t check_measured_clock(double sm_clock_mhz) override;

  /// What the run's environment records (environment.sampling.monitor): whether NVML answers,
  /// which checks run, the threshold, or why there is no NVML check.
  MonitorAvailability availability() const;
  /// Events since the last call: a query that stopped answering ("monitor_failed", with the
  /// NVML return code) or answered again ("monitor_recovered"), each with the experiment in
  /// flight; the telemetry sampler stamps them with the time it files them.
  std::vector<TelemetryReading> take_events();
  /// True once any query that answered at the start has stopped answering in this run.
  bool failed() const { return failed_; }

private:
  /// One NVML query the monitor relies on, and whether it is answering now.
  struct Query {
    const char* name;
    bool used = false; ///< answered when the monitor was made
    bool answering = false;
  };
  void note(Query& q, int code);

  ClockSource* source_;
  std::string why_unavailable_;
  double min_clock_mhz_ = 0;
  double max_clock_mhz_ = 0;
  std::string max_clock_source_;
  Query clock_{"nvmlDeviceGetClockInfo(SM)"};
  Query reasons_{"clocks event reasons"};
  bool failed_ = false;
  std::vector<TelemetryReading> events_;
};

} // namespace apod
