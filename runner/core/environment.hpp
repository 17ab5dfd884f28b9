// A run's provenance (docs/results-format.md, `environment`): the host and build that produced
// it (run/environment.cpp), the GPU's settings when it began (run/nvml.cpp, or nvidia-smi), the
// sampling settings and plan it ran under, its --repeat batch, and which processes wrote it
// (store/writer.cpp, store_recovery.cpp). Each type has one to_json and one *_from_json; those
// read from a document are written back as they were read (core/stored_object.hpp).
#pragma once

#include "core/stored_object.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apod {

/// One NVLink of the GPU as NVML reported it (`gpu_state.nvlinks`): a link NVML answered for.
struct NvLink {
  int link = 0;        ///< the link's index, 0 .. NVML_NVLINK_MAX_LINKS - 1 (18)
  bool active = false; ///< nvmlDeviceGetNvLinkState: enabled (trained and up)
  /// nvmlDeviceGetNvLinkVersion's answer as given. NVML documents it as nvmlNvlinkVersion_t
  /// (NVLink 4.0 = 6), while older drivers answered the major number (4): read it with care.
  std::optional<int64_t> version;
  std::string remote_pci_bus_id; ///< the device at the link's far end; "" where unknown
  bool operator==(const NvLink&) const = default;
};

/// The GPU's settings when the run began (`gpu_state`): from NVML, or, where NVML did not load,
/// from `nvidia-smi --query-gpu`. NVML's settings are nothing where it did not answer.
struct GpuState {
  std::string nvml;           ///< "available", or why NVML was not used; "" from nvidia-smi
  std::string nvidia_smi;     ///< "available" or "unavailable" where nvidia-smi was asked; else ""
  std::string driver_version; ///< e.g. "580.95.05"; "" where unknown
  std::string driver_branch;  ///< from NVML: branch_of_driver(driver_version); "" otherwise
  std::optional<int64_t> persistence_mode;
  std::optional<std::string> compute_mode; ///< "default", "exclusive_process", ...
  std::optional<int64_t> mig_mode;         ///< nothing: written "not supported"
  std::optional<double> power_limit_w;
  std::optional<int64_t> max_sm_clock_mhz, max_memory_clock_mhz, max_graphics_clock_mhz;
  std::optional<int64_t> application_sm_clock_mhz, application_memory_clock_mhz;
  std::optional<int64_t> pcie_generation_now, pcie_width_now, pcie_generation_max, pcie_width_max;
  /// The NVLinks NVML answered for (none: no NVLink, NVML too old, or a record older than them).
  std::vector<NvLink> nvlinks;
  /// ECC error counts (nvmlDeviceGetTotalEccErrors): volatile since the driver loaded, aggregate
  /// over the board's life; nothing where ECC is off, NVML did not answer, or the record is older.
  std::optional<int64_t> ecc_corrected_volatile, ecc_uncorrected_volatile;
  std::optional<int64_t> ecc_corrected_aggregate, ecc_uncorrected_aggregate;
  /// The NVML entry points the per-sample checks use (`nvml_entry_points`); nothing where absent.
  std::optional<std::string> clocks_event_reasons_entry_point, temperature_entry_point;
  /// nvidia-smi's answers after the driver version, under its query names ("power.limit",
  /// "700.00"), as it printed them.
  std::vector<std::pair<std::string, std::string>> nvidia_smi_answers;
};

/// What the clock monitor could do when the run began (`sampling.monitor`, clock_monitor.cpp);
/// with --no-clock-check only `available` (false) and `why`.
struct MonitorAvailability {
  bool available = false;
  std::optional<bool> sm_clock_check, clocks_event_reasons_check, measured_clock_check;
  std::optional<double> min_sm_clock_mhz;
  std::optional<std::string> max_sm_clock_source;
  std::string why; ///< why not available; "" when it is
};

/// The sampling settings the run began with (`sampling`), which `apod run --resume` runs its
/// remaining experiments under. Nothing where a record from an older apod does not say.
struct SamplingSettings {
  std::optional<int64_t> min_samples, max_samples;
  std::optional<double> target_ci_rel, max_point_s;
  std::optional<bool> flush_l2, monitor_clocks;
  std::optional<MonitorAvailability> monitor;
  std::optional<double> min_clock_ratio;
  std::optional<bool> quick;
  std::optional<bool> full; ///< `apod run --full`; nothing: a run begun before --full existed
  std::optional<int64_t> warmup;
};

/// An experiment the run set out to run (`plan`).
struct PlannedExperiment {
  std::string name;
  std::optional<int64_t> version;
};

/// The run's place in a `apod run --repeat` batch (`repeat`).
struct RepeatIndex {
  int64_t index = 1, count = 1;
  std::string batch; ///< the batch's id, shared by its runs
};

/// How `apod run --device all` ran its GPUs (`device_all`).
struct DeviceAll {
  int64_t devices = 0;
  std::string mode; ///< "one_at_a_time" or "concurrent"
};

/// The process writing a run (`writer`; store/writer.hpp tells whether it still lives).
struct Writer {
  std::string host, boot_id, pid_namespace;
  int64_t pid = 0;
  int64_t start_ticks = -1; ///< the pid's start time in clock ticks after boot; -1 unknown
  StoredObject stored;
};

/// A takeover of an interrupted run by `apod run --resume` (`resumed`).
struct Resumption {
  std::string at;                        ///< when, ISO 8601
  std::optional<Writer> previous_writer; ///< nothing: the run named none
  StoredObject stored;
};

struct Environment {
  std::string host, os, kernel, machine, cpu_model;
  int64_t cpu_count = 0;
  std::string apod_version, apod_commit;
  bool apod_dirty = false;
  std::string compiler, build_type, cuda_architectures;
  int64_t cuda_toolkit_build = 0; ///< CUDART_VERSION apod was built with
  std::string extra_cuda_flags;
  int64_t gpu_numa_node = -1;
  std::optional<DeviceAll> device_all;
  std::optional<GpuState> gpu_state;
  std::optional<SamplingSettings> sampling;
  /// Nothing in a run begun by an apod older than `apod run --resume`, which cannot resume it.
  std::optional<std::vector<PlannedExperiment>> plan;
  std::optional<RepeatIndex> repeat;
  std::optional<Writer> writer;
  std::vector<Resumption> resumed;
  StoredObject stored;

  /// The driver branch NVML reported ("580"), "" where unknown: runs of two branches are not
  /// compared point by point (the comparability key, compare's verdict, the report).
  std::string driver_branch() const;
};

/// Driver branch from a driver version string: "580.159.04" -> "580".
std::string branch_of_driver(const std::string& driver_version);

/// The wire forms of the environment and its parts, in the order the runner writes their keys.
/// The readers never throw: a field absent or of another type reads as unknown (0, "", false,
/// nothing). A part is written back as it was read, fields changed since excepted: the parts that
/// apod changes after reading (the writer, the takeovers) and the environment keep the object
/// they were read from; the others are written back whole by the environment unless changed.
json to_json(const GpuState& s);
GpuState gpu_state_from_json(const json& j);
json to_json(const MonitorAvailability& a);
MonitorAvailability monitor_availability_from_json(const json& j);
json to_json(const SamplingSettings& s);
SamplingSettings sampling_from_json(const json& j);
json to_json(const Writer& w);
Writer writer_from_json(const json& j);
json to_json(const Resumption& r);
Resumption resumption_from_json(const json& j);
json to_json(const Environment& e);
Environment environment_from_json(const json& j);

} // namespace apod
