// A stored run as one record: its facts, its experiments and their measurements. The wire form
// of a Measurement, an experiment and a run (docs/results-format.md) is defined here once:
// to_json / *_from_json are the only code that spells their fields, and export, import, merge,
// the store's read-out, compare and the report all go through them. *_from_json is also the
// validation: whatever it accepts, the store can hold and export again.
#pragma once

#include "core/device.hpp"
#include "core/environment.hpp"
#include "core/measurement.hpp"
#include "core/telemetry.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod {

/// One experiment of a run with its measurements (what the runner hands to the store in one
/// transaction, and what the store gives back).
struct ExperimentRecord {
  std::string name;
  int version = 1;
  std::string status = "complete"; ///< one of experiment_statuses
  std::string error;               ///< why it failed, or why it was skipped
  std::string started_at;
  std::optional<double> wall_s;
  std::vector<Measurement> measurements;
};

inline constexpr const char* experiment_statuses[] = {"complete", "failed", "skipped"};
inline constexpr const char* run_statuses[] = {"running", "complete", "partial", "failed",
                                               "interrupted"};

struct RunRecord {
  std::string id; ///< 1 to 64 lowercase hex digits
  std::string label;
  std::string started_at;
  std::optional<std::string> finished_at;
  std::string status = "running"; ///< one of run_statuses
  std::string apod_version = "unknown";
  Environment environment; ///< provenance: host, build, gpu_state, sampling, plan, writer, ...
  DeviceInfo device;       ///< the device's facts during this run
  std::vector<ExperimentRecord> experiments;
  std::vector<TelemetryReading> telemetry; ///< NVML readings and the clock monitor's events

  /// Every measurement of the run, in experiment order.
  std::vector<const Measurement*> measurements() const;
};

/// The wire form of a measurement: its fields, the statistics of its used samples
/// (summarize()), and its status and failure text (point_status()).
json to_json(const Measurement& m);
/// Reads and checks a measurement's wire form; `where` names it in messages
/// ("runs[0].measurements[3]"). Stored statistics are checked for type and then ignored: they
/// are recomputed from the samples. Throws InputError naming the first offending field.
Measurement measurement_from_json(const json& j, const std::string& where);

json to_json(const ExperimentRecord& e); ///< without its measurements (the run lists those)
json to_json(const RunRecord& r);
/// Reads and checks a run object of an apod-results document (validate() included).
RunRecord run_from_json(const json& j, const std::string& where);

/// The rules every run must meet however it arrives (import, merge, the store's read-out):
/// a hex id, known statuses, experiments named once, finite samples with one flag each (a device
/// without a name, or a telemetry entry that is not an object, is refused as it is read:
/// device_from_json, telemetry_from_json). Throws InputError naming `where` and the field.
void validate(const RunRecord& r, const std::string& where);

/// The driver a comparability key names: NVML's branch ("580"), else, where only the CUDA driver
/// API answered, "cuda-driver-13000". One owner: the runner keys its points with it and every
/// way in re-derives the keys with it.
std::string key_driver(const Environment& environment, const DeviceInfo& device);

/// The comparability key `m` must carry in run `r`, where its experiment has version `version`:
/// derived from the run's GPU model and driver, the experiment, the parameters and the metric,
/// never from a stored hash (docs/results-format.md).
std::string derived_key(const RunRecord& r, int version, const Measurement& m);

/// Gives every point of `r` without a key (a document of an apod older than the keys) its
/// derived key. A point whose stored key disagrees is left as it is: validate() refuses it.
void derive_keys(RunRecord& r);

} // namespace apod
