// The power-cap-tolerant monitor and the step-aligned energy counter; see power_window.hpp.
#include "power_window.hpp"

#include "core/in_flight.hpp"
#include "core/vocabulary.hpp"

namespace apod::tensor {

namespace {
constexpr uint8_t cap_flags = sample_flag::throttled | sample_flag::low_clock;
constexpr auto poll_interval = std::chrono::microseconds(250);
constexpr double min_step_span_s = 0.05;
} // namespace

uint8_t CappedMonitor::check() {
  const uint8_t f = inner_ ? inner_->check() : 0;
  capped_ = (f & sample_flag::throttled) != 0;
  low_ = capped_ && (f & sample_flag::low_clock) != 0;
  throttled_ += capped_;
  low_clock_ += low_;
  return capped_ ? f & ~cap_flags : f;
}

uint8_t CappedMonitor::check_measured_clock(double sm_clock_mhz) {
  const uint8_t f = inner_ ? inner_->check_measured_clock(sm_clock_mhz) : 0;
  if (!capped_)
    return f;
  // The policy asks check() first for the same sample: count a sample once.
  low_clock_ += (f & sample_flag::low_clock) != 0 && !low_;
  low_ = low_ || (f & sample_flag::low_clock) != 0;
  return f & ~cap_flags;
}

std::optional<double> watts_between_steps(const std::vector<EnergyReading>& readings,
                                          double min_span_s) {
  // readings[0] is where polling began, not a step: the steps are readings[1..].
  if (readings.size() < 3)
    return std::nullopt;
  const EnergyReading& first = readings[1];
  const EnergyReading& last = readings.back();
  const double span = last.t_s - first.t_s;
  if (!(span >= min_span_s) || !(last.energy_j > first.energy_j))
    return std::nullopt;
  return (last.energy_j - first.energy_j) / span;
}

EnergyTicks::EnergyTicks() {
  thread_ = std::thread([this] {
    std::optional<double> previous;
    while (running_.load(std::memory_order_relaxed)) {
      const std::optional<double> e = in_flight::energy_j();
      if (!e)
        return; // no counter: no power figure
      if (!previous || *e != *previous)
        readings_.push_back({in_flight::run_clock_s(), *e});
      previous = e;
      std::this_thread::sleep_for(poll_interval);
    }
  });
}

EnergyTicks::~EnergyTicks() {
  stop();
}

std::optional<double> EnergyTicks::stop() {
  running_ = false;
  if (thread_.joinable())
    thread_.join();
  const std::optional<double> watts = watts_between_steps(readings_, min_step_span_s);
  if (watts)
    span_s_ = readings_.back().t_s - readings_[1].t_s;
  return watts;
}

} // namespace apod::tensor
