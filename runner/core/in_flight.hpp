// What this process is measuring right now, for the power readings: the run loop names the
// experiment in flight, the timing core opens a point around each sampling loop, and the
// telemetry thread tags every reading with both. All three read one run clock, so a point's
// sampling window and the readings taken during it can be matched afterwards (per-watt figures
// from the power drawn during the work, not over the whole run). Thread-safe; process-wide
// because one apod process measures one device at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace apod {

/// When a point was sampled, on the run clock. A series derived from several sampling loops
/// (Series::zip) spans them all: start_s and end_s are the hull, busy_s and energy_j the sums.
struct SamplingWindow {
  double start_s = 0, end_s = 0;  ///< run-clock seconds at the first and after the last sample
  double busy_s = 0;              ///< seconds spent sampling (end - start for one loop)
  std::optional<double> energy_j; ///< GPU energy used meanwhile (NVML counter), if readable
  bool empty() const { return busy_s <= 0 && end_s <= start_s; }
  /// The window covering both (hull of the times, sums of busy time and energy).
  static SamplingWindow merge(const SamplingWindow& a, const SamplingWindow& b);
};

namespace in_flight {

/// Starts the run clock at zero and forgets the experiment and point (the run loop, per run).
void start_run();
/// Seconds since start_run() (steady clock); since the first call when no run started it.
double run_clock_s();

/// The experiment being measured ("" between experiments); set by the run loop.
void set_experiment(const std::string& name);

/// Where the GPU's energy counter is read (joules, monotonic); empty: not readable. The run loop
/// sets it from NVML and clears it before NVML goes away.
void set_energy_reader(std::function<std::optional<double>()> reader);
/// The counter now, or nothing without a reader or when it does not answer.
std::optional<double> energy_j();

/// What a telemetry reading is tagged with.
struct Tag {
  std::string experiment; ///< "" when none
  int64_t point = -1;     ///< the sampling loop in flight (numbered from 0 per run); -1: none
};
Tag tag();

/// Opened by the timing core around one point's sampling loop: numbers the point, sets it in
/// flight, and reads the run clock and the energy counter at both ends.
class PointScope {
public:
  PointScope();
  ~PointScope();
  PointScope(const PointScope&) = delete;
  PointScope& operator=(const PointScope&) = delete;
  /// Ends the point (idempotent) and returns its window.
  SamplingWindow finish();
  int64_t id() const { return id_; }

private:
  int64_t id_ = -1;
  double start_s_ = 0;
  std::optional<double> start_energy_j_;
  bool open_ = true;
  SamplingWindow window_;
};

} // namespace in_flight
} // namespace apod
