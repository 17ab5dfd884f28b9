#include "run/run.hpp"

#include "core/errors.hpp"
#include "core/in_flight.hpp"
#include "run/clock_monitor.hpp"
#include "run/nvml.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <memory>

namespace apod {

namespace {

constexpr size_t max_failures_listed = 5; // per experiment, in the summary printed at the end

class CollectingRecorder : public Recorder {
public:
  void record(Measurement m) override { measurements.push_back(std::move(m)); }
  std::vector<Measurement> measurements;
};

std::string headline(const ExperimentInfo& info, const std::vector<Measurement>& ms,
                     const DeviceInfo& d) {
  std::vector<const Measurement*> points;
  for (const auto& m : ms)
    points.push_back(&m);
  const Measurement* best = headline_point(info, points); // the one rule the report uses too
  if (!best)
    return "-";
  const Summary stats = summarize(best->used_samples());
  std::string s = fmt::format("{:.4g} {} {}", stats.median, best->unit, best->metric);
  const LimitKind limit = info.headline_metric().limit;
  if (const auto pct = percent_of(stats.median, limit_gbs(limit, d, best->unit, best->extra)))
    s += fmt::format(" ({:.1f}% of {})", *pct, limit_words(limit, best->extra));
  // The interval with what it is: a 95% CI of the median from 6 samples on, else only a range.
  s += fmt::format(" [{:.4g} – {:.4g}, {}{}]", stats.ci_low, stats.ci_high, ci_label(stats.n),
                   best->noisy ? ", noisy" : "");
  return s;
}

} // namespace

std::vector<const ExperimentInfo*> select_experiments(const std::vector<std::string>& only) {
  std::vector<const ExperimentInfo*> chosen;
  for (const auto& name : only) {
    if (!find_experiment(name)) {
      std::string known;
      for (const auto& e : experiments())
        if (!e.hidden)
          known += (known.empty() ? "" : ", ") + e.name;
      throw InputError(fmt::format("unknown experiment '{}' (known: {})", name, known));
    }
  }
  for (const auto& e : experiments()) {
    const bool named = std::find(only.begin(), only.end(), e.name) != only.end();
    if (named || (only.empty() && !e.hidden))
      chosen.push_back(&e);
  }
  return chosen;
}

namespace {

// Test hook (tests/reliability, docs/reliability.md): treat every fault as one that survives
// cudaDeviceReset, to exercise the continue-in-a-fresh-process path on a GPU that recovers.
bool assume_unrecoverable_context() {
  const char* v = std::getenv("APOD_TEST_ASSUME_UNRECOVERABLE");
  return v && std::string(v) == "1";
}

/// What one runner process needs to measure experiments into a stored run.
struct RunSettings {
  RunOptions options;
  bool monitor_clocks = true;
  double min_clock_ratio = 0.75;
  bool show_progress = false;
};

/// The per-sample clock check the settings ask for, or null (--no-clock-check).
std::unique_ptr<ClockMonitor> make_monitor(bool monitor_clocks, double min_clock_ratio, Nvml& nvml,
                                           const DeviceInfo& device) {
  if (!monitor_clocks)
    return nullptr;
  return std::make_unique<ClockMonitor>(nvml.available() ? &nvml : nullptr, min_clock_ratio,
                                        device.sm_clock_khz / 1e3, nvml.why_unavailable());
}

/// While it lives, the energy counter per point (in_flight.hpp) is read through this NVML.
class EnergyReader {
public:
  explicit EnergyReader(Nvml& nvml) {
    if (nvml.available())
      in_flight::set_energy_reader([&nvml] { return nvml.total_energy_j(); });
  }
  ~EnergyReader() { in_flight::set_energy_reader(nullptr); }
  EnergyReader(const EnergyReader&) = delete;
  EnergyReader& operator=(const EnergyReader&) = delete;
};

/// Moves the monitor's events into the telemetry and the summary: a monitor that stopped
/// answering is said in both.
void report_monitor_events(ClockMonitor* monitor, TelemetrySampler* telemetry,
                           ExperimentOutcome& eo) {
  if (!monitor)
    return;
  for (TelemetryReading& event : monitor->take_events()) {
    const MonitorEvent& e = *event.event;
    eo.monitor_events.push_back(
        fmt::format("{}: {}{}", e.name, e.query,
                    e.nvml_code ? fmt::format(" (NVML error {})", *e.nvml_code) : ""));
    if (telemetry)
      telemetry->add_event(std::move(event));
  }
}

/// Runs one experiment and returns its record (status, error, wall time and measurements).
/// `context_usable` turns false when a failure left the CUDA context beyond repair.
ExperimentRecord run_one(const ExperimentInfo& info, const DeviceInfo& device,
                         const RunOptions& options, std::vector<Measurement>& earlier,
                         bool& context_usable) {
  CollectingRecorder recorder;
  ExperimentRecord record;
  record.name = info.name;
  record.version = info.version;
  record.started_at = now_iso8601();
  const auto t0 = std::chrono::steady_clock::now();
  in_flight::set_experiment(info.name);
  try {
    ExperimentContext ctx{device, options, recorder, info.name, &earlier, &info};
    info.run(ctx);
  } catch (const ExperimentSkipped& e) {
    record.status = "skipped"; // a feature the device lacks: neither a failure nor a figure
    record.error = e.what();
  } catch (const std::exception& e) {
    record.status = "failed";
    record.error = e.what();
    context_usable = reset_device_after_failure(options.device) && !assume_unrecoverable_context();
  }
  in_flight::set_experiment("");
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  record.measurements = std::move(recorder.measurements);
  return record;
}

/// Runs `todo` into the stored run `run_id` in order, each saved in its own transaction as it
/// ends; then, unless a fault left the context unusable, sets the run's final status from
/// everything stored in it (experiments of an earlier, interrupted part included).
RunOutcome run_experiments(const std::string& run_id,
                           const std::vector<const ExperimentInfo*>& todo,
                           const RunSettings& settings, const DeviceInfo& device, Store& store,
                           Nvml& nvml, const Environment& environment, std::ostream& progress) {
  RunOutcome outcome;
  outcome.run_id = run_id;
  const std::string driver = key_driver(environment, device);

  in_flight::start_run(); // the run clock of telemetry t_s and of every point's sampling window
  RunOptions options = settings.options;
  std::unique_ptr<ClockMonitor> monitor =
      make_monitor(settings.monitor_clocks, settings.min_clock_ratio, nvml, device);
  options.sampling.monitor = monitor.get();
  EnergyReader energy(nvml);
  std::unique_ptr<TelemetrySampler> telemetry;
  if (nvml.available())
    telemetry = std::make_unique<TelemetrySampler>(nvml, 250);

  std::vector<Measurement>
      earlier; // what this process measured so far, for ExperimentContext::earlier
  try {
    int index = 0;
    for (const ExperimentInfo* info : todo) {
      ++index;
      if (settings.show_progress)
        progress << fmt::format("[{}/{}] {} ...", index, todo.size(), info->name) << std::flush;
      bool context_usable = true;
      ExperimentRecord record = run_one(*info, device, options, earlier, context_usable);
      ExperimentOutcome eo{info->name,
                           record.status,
                           record.error,
                           headline(*info, record.measurements, device),
                           0,
                           0,
                           record.wall_s.value_or(0),
                           {},
                           {}};
      report_monitor_events(monitor.get(), telemetry.get(), eo);
      for (auto& m : record.measurements) {
        (m.ok() ? eo.points_ok : eo.points_failed)++;
        if (!m.ok() && eo.failures.size() < max_failures_listed)
          eo.failures.push_back(
              fmt::format("{} {}: {}", m.metric, m.params.dump(), point_status(m).reason));
        m.comparability_key =
            comparability_key(device.name, driver, info->name, info->version, m.params, m.metric);
      }
      store.save_experiment(run_id, record);
      for (const auto& m : record.measurements)
        earlier.push_back(m);
      if (settings.show_progress)
        progress << fmt::format(" {} ({} points, {:.1f} s)\n", eo.status,
                                eo.points_ok + eo.points_failed, eo.wall_s);
      outcome.experiments.push_back(std::move(eo));
      if (!context_usable) {
        outcome.context_lost = true;
        break;
      }
    }
    if (telemetry)
      store.save_telemetry(run_id, telemetry->stop());
    if (outcome.experiments.size() < todo.size()) {
      outcome.status = "running"; // a fresh process finishes it (context_lost)
      return outcome;
    }
    outcome.status = store.run_has_failures(run_id) ? "partial" : "complete";
    store.finish_run(run_id, outcome.status);
  } catch (...) {
    // A full disk or another fault of the store: leave the run resumable, not 'running'.
    try {
      store.mark_interrupted(run_id);
    } catch (...) { // the store may refuse this too; the next open marks it from the dead pid
    }
    throw;
  }
  return outcome;
}

/// The device whose UUID the run was measured on, among those visible now.
DeviceInfo device_of_run(const std::string& run_id, const DeviceInfo& stored) {
  for (int i = 0; i < device_count(); ++i) {
    DeviceInfo d = query_device(i);
    if (d.uuid != stored.uuid)
      continue;
    if (stored.driver_version != 0 && stored.driver_version != d.driver_version) // 0: not stored
      throw InputError(fmt::format("run {} was measured with CUDA driver {}, this machine has {}: "
                                   "its two parts would not be comparable",
                                   run_id, stored.driver_version, d.driver_version));
    return d;
  }
  throw InputError(fmt::format("run {} was measured on {} ({}), which is not visible here", run_id,
                               stored.uuid, stored.name.empty() ? "?" : stored.name));
}

/// `apod run --resume`: the experiments of the run's plan it has not stored, under the settings
/// it began with, on the device it began on, into the same run.
RunOutcome resume(const RunRequest& req, std::ostream& progress) {
  if (device_count() == 0)
    throw no_device_error("apod run");
  Store store(req.db_path, Store::Mode::read_write);
  ResumableRun run = store.claim_run(store.resolve_run_id(req.resume_run));
  try {
    const Environment& env = run.environment;
    if (!env.plan)
      throw InputError(
          fmt::format("run {} has no plan of experiments (it was begun by an apod older than "
                      "--resume); it cannot be resumed",
                      run.id));
    std::vector<const ExperimentInfo*> todo;
    for (const PlannedExperiment& step : *env.plan) {
      if (std::find(run.stored.begin(), run.stored.end(), step.name) != run.stored.end())
        continue;
      const ExperimentInfo* info = find_experiment(step.name);
      if (!info)
        throw InputError(fmt::format("run {} planned experiment '{}', which this apod lacks",
                                     run.id, step.name));
      if (info->version != step.version.value_or(info->version))
        throw InputError(
            fmt::format("run {} planned {} version {}; this apod has version {}, whose results "
                        "are not comparable",
                        run.id, step.name, *step.version, info->version));
      todo.push_back(info);
    }
    const DeviceInfo device = device_of_run(run.id, run.device);
    const SamplingSettings sampling = env.sampling.value_or(SamplingSettings{});
    RunSettings settings;
    settings.options.device = device.ordinal;
    settings.options.quick = sampling.quick.value_or(false);
    settings.options.full = sampling.full.value_or(false);
    auto& policy = settings.options.sampling;
    policy.min_samples = static_cast<int>(sampling.min_samples.value_or(policy.min_samples));
    policy.max_samples = static_cast<int>(sampling.max_samples.value_or(policy.max_samples));
    policy.target_ci_rel = sampling.target_ci_rel.value_or(policy.target_ci_rel);
    policy.max_point_s = sampling.max_point_s.value_or(policy.max_point_s);
    policy.flush_l2 = sampling.flush_l2.value_or(policy.flush_l2);
    policy.warmup =
        static_cast<int>(sampling.warmup.value_or(settings.options.quick ? 1 : policy.warmup));
    settings.monitor_clocks = sampling.monitor_clocks.value_or(true);
    settings.min_clock_ratio = sampling.min_clock_ratio.value_or(settings.min_clock_ratio);
    settings.show_progress = req.show_progress;
    if (req.show_progress)
      progress << fmt::format("resuming run {}: {} of {} experiments stored, {} to run\n", run.id,
                              run.stored.size(), env.plan->size(), todo.size());
    Nvml nvml(device.pci_bus_id);
    return run_experiments(run.id, todo, settings, device, store, nvml, env, progress);
  } catch (const json::exception& e) {
    store.mark_interrupted(run.id);
    throw InputError(fmt::format(
        "run {} cannot be resumed: its stored settings are unreadable ({})", run.id, e.what()));
  } catch (const InputError&) {
    store.mark_interrupted(run.id); // give it back as it was
    throw;
  }
}

} // namespace

std::vector<RunOutcome> run_matrix(const RunRequest& req, std::ostream& progress) {
  if (!req.resume_run.empty())
    return {resume(req, progress)};
  // Order matters: names, then the GPU, then the database, so a bad request or a machine
  // without a GPU never creates or touches a database file.
  if (req.repeat < 1)
    throw InputError("--repeat must be at least 1");
  try {
    (void)json(req.label).dump();
  } catch (const json::type_error&) {
    throw InputError("--label must be UTF-8 text (results are exported as JSON)");
  }
  const auto chosen = select_experiments(req.only);
  const DeviceInfo device = query_device(req.options.device);
  Store store(req.db_path, Store::Mode::read_write_create);
  Nvml nvml(device.pci_bus_id);
  Environment environment = collect_environment(device);
  environment.gpu_state = nvml.available() ? nvml.device_state() : nvidia_smi_state(device);
  const auto monitor = make_monitor(req.monitor_clocks, req.min_clock_ratio, nvml, device);
  SamplingSettings& sampling = environment.sampling.emplace();
  sampling.min_samples = req.options.sampling.min_samples;
  sampling.max_samples = req.options.sampling.max_samples;
  sampling.target_ci_rel = req.options.sampling.target_ci_rel;
  sampling.max_point_s = req.options.sampling.max_point_s;
  sampling.flush_l2 = req.options.sampling.flush_l2;
  sampling.monitor_clocks = req.monitor_clocks;
  sampling.monitor = monitor ? monitor->availability()
                             : MonitorAvailability{false, {}, {}, {}, {}, {}, "--no-clock-check"};
  sampling.min_clock_ratio = req.min_clock_ratio;
  sampling.quick = req.options.quick;
  sampling.full = req.options.full;
  sampling.warmup = req.options.sampling.warmup;
  // What the run sets out to do, so `apod run --resume` can finish it after a crash.
  environment.plan.emplace();
  for (const ExperimentInfo* info : chosen)
    environment.plan->push_back({info->name, info->version});
  const RunSettings settings{req.options, req.monitor_clocks, req.min_clock_ratio,
                             req.show_progress};
  const std::string batch = new_run_id().substr(0, 12);
  std::vector<RunOutcome> outcomes;
  for (int i = 0; i < req.repeat; ++i) {
    environment.repeat = RepeatIndex{i + 1, req.repeat, batch};
    if (req.show_progress && req.repeat > 1)
      progress << fmt::format("repeat {}/{}\n", i + 1, req.repeat);
    const std::string run_id = store.begin_run(req.label, device, environment);
    outcomes.push_back(
        run_experiments(run_id, chosen, settings, device, store, nvml, environment, progress));
    if (outcomes.back().context_lost)
      break;
  }
  return outcomes;
}

void print_summary(const RunOutcome& o, std::ostream& out) {
  out << fmt::format("run {} ({})\n", o.run_id, o.status);
  out << fmt::format("{:<18} {:<9} {:>6} {:>7} {:>8}  {}\n", "experiment", "status", "ok", "failed",
                     "wall s", "headline");
  for (const auto& e : o.experiments) {
    out << fmt::format("{:<18} {:<9} {:>6} {:>7} {:>8.2f}  {}\n", e.name, e.status, e.points_ok,
                       e.points_failed, e.wall_s, e.headline);
    if (!e.error.empty())
      out << (e.status == "skipped" ? "    skipped: " : "    error: ") << e.error << "\n";
    for (const auto& m : e.monitor_events)
      out << "    clock monitor " << m << "\n";
    for (const auto& f : e.failures)
      out << "    failed: " << f << "\n";
    if (e.points_failed > static_cast<int>(e.failures.size()))
      out << fmt::format("    ... and {} more failed points (apod export shows them all)\n",
                         e.points_failed - static_cast<int>(e.failures.size()));
  }
}

} // namespace apod
