// What tensor work draws and how its samples are judged. Two things the run's defaults get wrong
// for it (H100 development run, 2026-11-26):
// - Sustained tensor work runs at the board's power cap: NVML reports the SW power-cap clocks-event
//   reason and the SM clock falls (1140-1650 MHz against 1980 at 8192^3 INT8/FP8). The run's
//   monitor leaves such samples out, so every sample of a GEMM point was flagged and sampling ran
//   to its 1000-sample cap. Here the power cap is the steady state being measured, so
//   CappedMonitor keeps the samples taken under it and counts them (stored beside the point).
// - The GPU's energy counter moves in steps about 0.1 s apart, so energy over a 0.15 s sampling
//   window is off by up to one step (fp8 mma.sync read 229 W). EnergyTicks polls the counter on a
//   thread while the point samples and divides the energy between its first and last step by the
//   time between them: no step is cut.
#pragma once

#include "core/experiment.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

namespace apod::tensor {

/// The run's monitor, but a sample NVML reports a clocks-event reason for (the power cap) is kept,
/// low clock included: the cap is the state measured. A low clock with no reason (a GPU not yet
/// boosted, what the low-clock rule is for) and a monitor that stopped answering still exclude.
class CappedMonitor : public SampleMonitor {
public:
  explicit CappedMonitor(SampleMonitor* inner) : inner_(inner) {}
  uint8_t check() override;
  uint8_t check_measured_clock(double sm_clock_mhz) override;
  int throttled() const { return throttled_; } ///< samples kept under a clocks-event reason
  int low_clock() const { return low_clock_; } ///< of those, the ones under the low-clock threshold

private:
  SampleMonitor* inner_;
  int throttled_ = 0, low_clock_ = 0;
  bool capped_ = false, low_ = false; ///< the current sample: under a reason, and its clock low
};

/// A reading of the energy counter: run-clock seconds and joules.
struct EnergyReading {
  double t_s = 0;
  double energy_j = 0;
};

/// Mean power in W between the first and the last step of `readings` (a poll's readings, the
/// first one taken before any step): (E_last_step - E_first_step) / (t_last_step - t_first_step).
/// Nothing with fewer than two steps or steps under `min_span_s` apart.
std::optional<double> watts_between_steps(const std::vector<EnergyReading>& readings,
                                          double min_span_s);

/// Polls in_flight::energy_j() on a thread from construction to stop(), keeping the readings
/// at which it changed.
class EnergyTicks {
public:
  EnergyTicks();
  ~EnergyTicks();
  EnergyTicks(const EnergyTicks&) = delete;
  EnergyTicks& operator=(const EnergyTicks&) = delete;
  /// Stops polling; the power between the steps seen (watts_between_steps, 0.05 s at least).
  std::optional<double> stop();
  /// Seconds between the first and the last step seen (0 before stop() or without two steps).
  double span_s() const { return span_s_; }

private:
  std::atomic<bool> running_{true};
  std::vector<EnergyReading> readings_;
  std::thread thread_;
  double span_s_ = 0;
};

} // namespace apod::tensor
