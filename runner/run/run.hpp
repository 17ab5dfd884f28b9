// `apod run`: walks the experiment matrix on one GPU and stores each experiment as it finishes.
#pragma once

#include "core/environment.hpp"
#include "core/experiment.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace apod {

struct RunRequest {
  std::string db_path = "apod.db";
  std::string label;
  std::vector<std::string> only; ///< experiment names; empty means the whole matrix
  RunOptions options;
  int repeat = 1;                ///< run the matrix this many times, one stored run each
  bool monitor_clocks = true;    ///< flag samples taken under low clocks or throttling (NVML)
  double min_clock_ratio = 0.75; ///< of the maximum SM clock (nvbench's default)
  bool show_progress = false;    ///< progress lines on stderr (when it is a terminal)
  /// `apod run --resume RUN`: complete that interrupted run (id or unique prefix) with the
  /// experiments of its plan it has not stored, under its own settings; the fields above but
  /// db_path and show_progress are then unused.
  std::string resume_run;
};

struct ExperimentOutcome {
  std::string name, status, error, headline; ///< headline: e.g. "4012 GB/s (83.3% of theoretical)"
  int points_ok = 0, points_failed = 0;
  double wall_s = 0;
  /// The first few failed points, "metric {params}: reason", for the summary (all are stored).
  std::vector<std::string> failures;
  /// The clock monitor's events during the experiment, e.g. "monitor_failed: clocks event
  /// reasons (NVML error 15)"; they are stored among the run's telemetry too.
  std::vector<std::string> monitor_events;
};

struct RunOutcome {
  std::string run_id;
  std::string status; ///< complete | partial; running when unfinished (context_lost)
  std::vector<ExperimentOutcome> experiments; ///< those run by this process
  /// An experiment left the CUDA context broken beyond cudaDeviceReset: this process can run
  /// nothing more. If the run has experiments left, it stays "running" and cmd_run.cpp
  /// re-executes apod to resume it in a fresh process.
  bool context_lost = false;
};

/// The experiments `only` names, in matrix order; throws InputError for an unknown name.
std::vector<const ExperimentInfo*> select_experiments(const std::vector<std::string>& only);

/// Runs the matrix request.repeat times, one stored run each, or resumes request.resume_run.
/// Throws NoDevice before touching the database when there is no GPU, and InputError for bad
/// names, an unusable database or a run that cannot be resumed; experiment failures are stored,
/// not thrown. Stops early (the last outcome's context_lost) when a fault left the CUDA context
/// unusable.
std::vector<RunOutcome> run_matrix(const RunRequest& request, std::ostream& progress);

/// Prints the end-of-run summary table.
void print_summary(const RunOutcome& outcome, std::ostream& out);

/// Provenance of this process and device: host, OS, CPU, build, and the GPU's NUMA node
/// (environment.cpp). NVML's view of the device is added by the run loop.
Environment collect_environment(const DeviceInfo& device);

/// `apod run --device all` tells each child how the GPUs are run through this environment
/// variable; collect_environment records it as `device_all` {devices, mode}.
inline constexpr const char* device_all_variable = "APOD_DEVICE_ALL";
/// The variable's value: "4 one_at_a_time" or "4 concurrent".
std::string device_all_value(int devices, bool all_at_once);

/// The device's settings from `nvidia-smi --query-gpu`, for machines without a loadable NVML.
GpuState nvidia_smi_state(const DeviceInfo& device);

} // namespace apod
