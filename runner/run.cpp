#include "run.hpp"

#include "errors.hpp"
#include "nvml.hpp"
#include "store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <memory>

namespace apod {

namespace {

class CollectingRecorder : public Recorder {
 public:
  void record(Measurement m) override { measurements.push_back(std::move(m)); }
  std::vector<Measurement> measurements;
};

std::string headline(const ExperimentInfo& info, const std::vector<Measurement>& ms, const DeviceInfo& d) {
  const Measurement* best = nullptr;
  double best_median = 0;
  for (const auto& m : ms) {
    if (!m.ok()) continue;
    const double med = summarize(m.samples).median;
    const bool better = !best || (m.direction == Direction::higher ? med > best_median : med < best_median);
    if (better) best = &m, best_median = med;
  }
  if (!best) return "-";
  std::string s = fmt::format("{:.4g} {}", best_median, best->unit);
  std::optional<double> limit;
  if (best->unit == "GB/s" && info.chart.limit == "dram") limit = d.theoretical_bandwidth_gbs();
  if (best->unit == "GB/s" && info.chart.limit == "pcie") limit = d.theoretical_pcie_gbs();
  if (limit && *limit > 0) s += fmt::format(" ({:.1f}% of theoretical)", 100.0 * best_median / *limit);
  return s;
}

}  // namespace

std::vector<const ExperimentInfo*> select_experiments(const std::vector<std::string>& only) {
  std::vector<const ExperimentInfo*> chosen;
  for (const auto& name : only) {
    if (!find_experiment(name)) {
      std::string known;
      for (const auto& e : experiments())
      if (!e.hidden) known += (known.empty() ? "" : ", ") + e.name;
      throw InputError(fmt::format("unknown experiment '{}' (known: {})", name, known));
    }
  }
  for (const auto& e : experiments()) {
    const bool named = std::find(only.begin(), only.end(), e.name) != only.end();
    if (named || (only.empty() && !e.hidden)) chosen.push_back(&e);
  }
  return chosen;
}

namespace {

RunOutcome run_once(const RunRequest& req, const std::vector<const ExperimentInfo*>& chosen,
                    const DeviceInfo& device, Store& store, Nvml& nvml, const json& environment,
                    std::ostream& progress) {
  RunOutcome outcome;
  outcome.run_id = store.begin_run(req.label, device, environment);
  const std::string branch = environment["gpu_state"].value("driver_branch", "");
  const std::string driver = branch.empty() ? "cuda-driver-" + std::to_string(device.driver_version) : branch;

  std::unique_ptr<ClockMonitor> monitor;
  RunOptions options = req.options;
  if (req.monitor_clocks && nvml.available()) {
    monitor = std::make_unique<ClockMonitor>(nvml, req.min_clock_ratio);
    options.sampling.monitor = monitor.get();
  }
  std::unique_ptr<TelemetrySampler> telemetry;
  if (nvml.available()) telemetry = std::make_unique<TelemetrySampler>(nvml, 250);

  int index = 0;
  for (const ExperimentInfo* info : chosen) {
    ++index;
    if (req.show_progress)
      progress << fmt::format("[{}/{}] {} ...", index, chosen.size(), info->name) << std::flush;
    CollectingRecorder recorder;
    ExperimentRecord record;
    record.name = info->name;
    record.version = info->version;
    record.started_at = now_iso8601();
    const auto t0 = std::chrono::steady_clock::now();
    try {
      ExperimentContext ctx{device, options, recorder, info->name};
      info->run(ctx);
    } catch (const std::exception& e) {
      record.status = "failed";
      record.error = e.what();
      reset_device_after_failure(req.options.device);
    }
    record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ExperimentOutcome eo{info->name, record.status, record.error,
                         headline(*info, recorder.measurements, device), 0, 0, record.wall_s};
    for (auto& m : recorder.measurements) {
      (m.ok() ? eo.points_ok : eo.points_failed)++;
      m.comparability_key = comparability_key(device.name, driver, info->name, info->version, m.params, m.metric);
    }
    record.measurements = std::move(recorder.measurements);
    store.save_experiment(outcome.run_id, record);
    if (req.show_progress)
      progress << fmt::format(" {} ({} points, {:.1f} s)\n", eo.status, eo.points_ok + eo.points_failed, eo.wall_s);
    outcome.experiments.push_back(std::move(eo));
  }
  if (telemetry) store.save_telemetry(outcome.run_id, telemetry->stop());
  const bool all_ok = std::all_of(outcome.experiments.begin(), outcome.experiments.end(),
                                  [](const auto& e) { return e.status == "complete" && e.points_failed == 0; });
  outcome.status = all_ok ? "complete" : "partial";
  store.finish_run(outcome.run_id, outcome.status);
  return outcome;
}

}  // namespace

std::vector<RunOutcome> run_matrix(const RunRequest& req, std::ostream& progress) {
  // Order matters: names, then the GPU, then the database, so a bad request or a machine
  // without a GPU never creates or touches a database file.
  if (req.repeat < 1) throw InputError("--repeat must be at least 1");
  const auto chosen = select_experiments(req.only);
  const DeviceInfo device = query_device(req.options.device);
  Store store(req.db_path, Store::Mode::read_write_create);
  Nvml nvml(device.pci_bus_id);
  json environment = collect_environment(device);
  environment["gpu_state"] = nvml.available() ? nvml.device_state() : nvidia_smi_state(device);
  environment["sampling"] = {{"min_samples", req.options.sampling.min_samples},
                             {"max_samples", req.options.sampling.max_samples},
                             {"target_ci_rel", req.options.sampling.target_ci_rel},
                             {"max_point_s", req.options.sampling.max_point_s},
                             {"flush_l2", req.options.sampling.flush_l2},
                             {"monitor_clocks", req.monitor_clocks && nvml.available()},
                             {"min_clock_ratio", req.min_clock_ratio},
                             {"quick", req.options.quick}};
  const std::string batch = new_run_id().substr(0, 12);
  std::vector<RunOutcome> outcomes;
  for (int i = 0; i < req.repeat; ++i) {
    environment["repeat"] = {{"index", i + 1}, {"count", req.repeat}, {"batch", batch}};
    if (req.show_progress && req.repeat > 1) progress << fmt::format("repeat {}/{}\n", i + 1, req.repeat);
    outcomes.push_back(run_once(req, chosen, device, store, nvml, environment, progress));
  }
  return outcomes;
}

void print_summary(const RunOutcome& o, std::ostream& out) {
  out << fmt::format("run {} ({})\n", o.run_id, o.status);
  out << fmt::format("{:<18} {:<9} {:>6} {:>7} {:>8}  {}\n", "experiment", "status", "ok", "failed", "wall s", "headline");
  for (const auto& e : o.experiments) {
    out << fmt::format("{:<18} {:<9} {:>6} {:>7} {:>8.2f}  {}\n", e.name, e.status, e.points_ok,
                       e.points_failed, e.wall_s, e.headline);
    if (!e.error.empty()) out << "    error: " << e.error << "\n";
  }
}

}  // namespace apod
