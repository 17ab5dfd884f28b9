#include "run/clock_monitor.hpp"

#include "core/in_flight.hpp"

#include <utility>

namespace apod {

ClockMonitor::ClockMonitor(ClockSource* source, double min_clock_ratio,
                           double device_max_sm_clock_mhz, std::string why_unavailable)
    : source_(source), why_unavailable_(std::move(why_unavailable)) {
  max_clock_mhz_ = device_max_sm_clock_mhz;
  max_clock_source_ = "cudaDevAttrClockRate";
  if (source_) {
    if (const auto max = source_->max_sm_clock_mhz(); max && *max > 0) {
      max_clock_mhz_ = *max;
      max_clock_source_ = "nvmlDeviceGetMaxClockInfo(SM)";
    }
    // Only what answers now is relied on: a query the device never supports is recorded as
    // missing, not as a failure of every sample.
    clock_.used = clock_.answering = static_cast<bool>(source_->sm_clock_mhz());
    reasons_.used = reasons_.answering = static_cast<bool>(source_->clocks_event_reasons());
  }
  min_clock_mhz_ = max_clock_mhz_ * min_clock_ratio;
}

void ClockMonitor::note(Query& q, int code) {
  const bool answering = code == 0;
  if (answering == q.answering)
    return;
  q.answering = answering;
  const in_flight::Tag tag = in_flight::tag();
  TelemetryReading event;
  event.event = MonitorEvent{answering ? "monitor_recovered" : "monitor_failed", q.name, {}};
  event.tagged = true;
  if (!tag.experiment.empty())
    event.experiment = tag.experiment;
  if (!answering) {
    event.event->nvml_code = code;
    failed_ = true;
  }
  events_.push_back(std::move(event));
}

uint8_t ClockMonitor::check() {
  if (!source_)
    return 0;
  uint8_t flags = 0;
  if (clock_.used) {
    const auto clock = source_->sm_clock_mhz();
    note(clock_, clock ? 0 : (clock.code ? clock.code : -1));
    if (!clock)
      flags |= sample_flag::monitor_failed;
    else if (*clock < min_clock_mhz_)
      flags |= sample_flag::low_clock;
  }
  if (reasons_.used) {
    const auto reasons = source_->clocks_event_reasons();
    note(reasons_, reasons ? 0 : (reasons.code ? reasons.code : -1));
    if (!reasons)
      flags |= sample_flag::monitor_failed;
    else if (*reasons != 0)
      flags |= sample_flag::throttled;
  }
  return flags;
}

uint8_t ClockMonitor::check_measured_clock(double sm_clock_mhz) {
  return sm_clock_mhz < min_clock_mhz_ ? sample_flag::low_clock : 0;
}

MonitorAvailability ClockMonitor::availability() const {
  MonitorAvailability a;
  a.available = source_ && (clock_.used || reasons_.used);
  a.sm_clock_check = clock_.used;
  a.clocks_event_reasons_check = reasons_.used;
  a.measured_clock_check = true;
  a.min_sm_clock_mhz = min_clock_mhz_;
  a.max_sm_clock_source = max_clock_source_;
  if (!source_)
    a.why = why_unavailable_.empty() ? "NVML not loaded" : why_unavailable_;
  else if (!clock_.used && !reasons_.used)
    a.why = "NVML answered neither the SM clock nor the clocks-event reasons";
  return a;
}

std::vector<TelemetryReading> ClockMonitor::take_events() {
  return std::exchange(events_, {});
}

} // namespace apod
