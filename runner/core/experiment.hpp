// The experiment interface. An experiment is one folder in experiments/: its declaration
// (core/catalog.hpp: params, metrics, extras, charts; host code) and a run function in its .cu
// file, registered with APOD_EXPERIMENT(name, run); the runner, store and report need nothing
// else.
#pragma once

#include "core/catalog.hpp"
#include "core/device.hpp"
#include "core/measurement.hpp"
#include "core/vocabulary.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace apod {

/// Checks the conditions a sample was taken under (run/clock_monitor.cpp implements it with NVML).
class SampleMonitor {
public:
  virtual ~SampleMonitor() = default;
  /// Flags for the sample just taken: 0 if it may be used, else sample_flag bits (vocabulary.hpp):
  /// low_clock, throttled, monitor_failed.
  virtual uint8_t check() = 0;
  /// Flags for a sample whose timed region ran at `sm_clock_mhz`, as the timing core measured it
  /// on the device: sample_flag::low_clock when under the monitor's threshold. Default: none.
  virtual uint8_t check_measured_clock(double /*sm_clock_mhz*/) { return 0; }
};

/// How each point is sampled (runner/sampling.cpp applies the rules). Experiments pass it on to
/// the timing core; the command line sets it.
struct SamplingPolicy {
  int warmup = 3;                   ///< untimed launches before the first sample
  int min_samples = 10;             ///< timed samples per point, at least
  int max_samples = 1000;           ///< hard cap on samples per point
  double target_ci_rel = 0.005;     ///< stop once the median's 95% CI half-width <= this x median
  double max_point_s = 1.0;         ///< stop after this much wall time on one point (flagged noisy)
  bool flush_l2 = true;             ///< overwrite the L2 cache before every sample
  SampleMonitor* monitor = nullptr; ///< clock and throttle checks; null: none

  /// The monitor's flags for the sample just taken (0 without a monitor).
  uint8_t check_sample() const { return monitor ? monitor->check() : 0; }
  /// Same, with the SM clock measured over the sample's timed region (NaN: not measured).
  uint8_t check_sample(double measured_sm_clock_mhz) const {
    if (!monitor)
      return 0;
    const uint8_t flags = monitor->check();
    return measured_sm_clock_mhz == measured_sm_clock_mhz // not NaN
               ? flags | monitor->check_measured_clock(measured_sm_clock_mhz)
               : flags;
  }
};

/// What `apod run` asked for.
struct RunOptions {
  int device = 0;
  bool quick = false; ///< reduced sizes: the gpu test suite and smoke runs
  SamplingPolicy sampling;
  /// The long sweeps too (`apod run --full`): an experiment may add points behind it, never
  /// change the default's, so a --full run's default points compare with any run's.
  bool full = false;
};

/// Receives an experiment's measurements as they are made.
class Recorder {
public:
  virtual ~Recorder() = default;
  virtual void record(Measurement m) = 0;
};

/// Handed to an experiment's run function.
struct ExperimentContext {
  const DeviceInfo& device;
  const RunOptions& options;
  Recorder& recorder;
  std::string experiment; ///< the name under which measurements are filed
  /// What the run has measured before this experiment (every earlier experiment's points, in
  /// the order recorded): an experiment may set its model from the same run's figures, e.g.
  /// littles_law from memory_latency's DRAM latency and peak_copy's achievable peak. Empty when
  /// the experiment runs alone (`--only`); it then says so or measures what it needs itself.
  const std::vector<Measurement>* earlier = nullptr;
  /// What the experiment declared: every record is checked against it (null: not checked, a
  /// test's own context).
  const Declaration* declaration = nullptr;

  /// File a measurement under this experiment, with the class its declaration gives it. A
  /// record its declaration does not allow (an undeclared metric, param or extra key, another
  /// unit) is filed as a failed point that says why (declaration_mismatch).
  void record(Measurement m);

  /// The median of the used samples of the first ok point of `experiment` ("" : any) with
  /// `metric` whose params contain every key of `params` with the same value, from earlier in
  /// this run.
  std::optional<double> earlier_median(const std::string& experiment, const std::string& metric,
                                       const json& params = json::object()) const;

  /// The achievable DRAM bandwidth this run measured for `access_type` (access::copy, ...):
  /// the run's keys::access_peak of that type, else its keys::achievable_peak, else nothing. A
  /// copy-like kernel is read against the copy peak, not against a faster write-only fill.
  std::optional<double> achievable_peak_gbs(const std::string& access_type) const;
};

/// A declared experiment with its run function: what `apod run` executes.
struct ExperimentInfo : Declaration {
  std::function<void(ExperimentContext&)> run;
};

/// Every declared experiment whose run function is linked into this binary, in matrix order.
/// Throws std::logic_error when a run function was registered for an undeclared name.
const std::vector<ExperimentInfo>& experiments();

/// The experiment called `name`, or nullptr.
const ExperimentInfo* find_experiment(const std::string& name);

/// Registers the run function of the declared experiment `name` (APOD_EXPERIMENT).
bool register_run(const std::string& name, std::function<void(ExperimentContext&)> run);

} // namespace apod

#define APOD_CONCAT_INNER(a, b) a##b
#define APOD_CONCAT(a, b) APOD_CONCAT_INNER(a, b)
/// Registers an experiment's run function at static-initialisation time:
/// APOD_EXPERIMENT(name, run); its declaration (APOD_DECLARE) carries everything else.
#define APOD_EXPERIMENT(name, run)                                                                 \
  [[maybe_unused]] static const bool APOD_CONCAT(apod_registered_, __LINE__) =                     \
      ::apod::register_run(name, run)
