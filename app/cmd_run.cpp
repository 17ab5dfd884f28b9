// apod run: the experiment matrix on one GPU.
#include "analysis/siblings.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "run/run.hpp"
#include "store/store.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

namespace apod::cli {

namespace {

// The sibling check after `--device all` (analysis/siblings.hpp, docs/siblings.md): the runs
// the children stored from `started_at` on, each GPU against the other GPUs of its model, each
// GPU's own run-to-run noise from its history in the database. Prints the verdict; returns
// exit_regression when a GPU is slower than its siblings, except for --quick runs (a smoke test,
// not a measurement: said, never failed on; SiblingVerdict::quick).
int judge_this_node(const std::string& db, const std::string& started_at) {
  try {
    Store store(db, Store::Mode::read_only);
    const std::vector<RunRecord> runs = store.read_runs();
    int code = exit_ok;
    for (const auto& set : device_all_sets(runs)) {
      if (set.front()->started_at < started_at)
        continue; // an earlier invocation's
      std::set<std::string> ids;
      for (const RunRecord* r : set)
        ids.insert(r->id);
      NoiseModel own = NoiseModel::from_runs(runs, {}, ids);
      own.lend_across_gpus = false; // each GPU on its own noise (docs/siblings.md)
      const SiblingVerdict verdict = judge_siblings(set, own);
      std::cout << "\n" << format_siblings_text(verdict);
      code = std::max(code, verdict.exit_code());
    }
    return code;
  } catch (const InputError& e) { // no database (every child failed before storing a run)
    std::cerr << "apod: the sibling check could not read the runs: " << e.what() << "\n";
    return exit_ok;
  }
}

// `--device all`: this same command once per visible GPU, in child processes that write into the
// one database (WAL and a busy timeout make concurrent writers safe). By default the children run
// in turn: run at the same time (`--all-at-once`), device-memory figures do not notice, but
// transfers, zero copy and the staged copy share the host's memory and root complex and lose up
// to 13% (docs/ci.md has the H200 figures). Each child's environment records which it was
// (APOD_DEVICE_ALL, environment.cpp). Each prints its own summary; the exit code is the worst,
// and the sibling check (judge_this_node) follows.
int run_on_every_device(bool all_at_once, const std::string& db) {
  const std::string started_at = now_iso8601(); // the children's runs start after this
  const int count = device_count();
  if (count == 0)
    throw no_device_error("apod run");
  std::vector<std::string> args;
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  for (std::string arg; std::getline(cmdline, arg, '\0');)
    if (arg != "--all-at-once")
      args.push_back(arg);
  const std::string prefix = std::string(device_all_variable) + "=";
  std::string marker = prefix + device_all_value(count, all_at_once);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0)
      envp.push_back(*e);
  envp.push_back(marker.data());
  envp.push_back(nullptr);
  int worst = exit_ok;
  const auto wait_for = [&worst](pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    worst = std::max(worst, WIFEXITED(status) ? WEXITSTATUS(status) : exit_no_device);
  };
  std::vector<pid_t> children;
  for (int d = 0; d < count; ++d) {
    std::vector<std::string> child = args;
    for (size_t i = 0; i < child.size(); ++i) {
      if (child[i] == "--device" && i + 1 < child.size())
        child[i + 1] = std::to_string(d);
      if (child[i] == "--device=all")
        child[i] = "--device=" + std::to_string(d);
    }
    std::vector<char*> argv;
    for (auto& a : child)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0)
      throw ResourceError("cannot start a runner for device " + std::to_string(d));
    if (all_at_once)
      children.push_back(pid);
    else
      wait_for(pid);
  }
  for (pid_t pid : children)
    wait_for(pid);
  if (count > 1)
    worst = std::max(worst, judge_this_node(db, started_at));
  return worst;
}

// A fault left this process's CUDA context unusable (run.hpp, context_lost). A new process image
// gets a fresh driver state; exec keeps the pid, so the run stays this runner's while the new
// image resumes it. Returns only if exec fails.
void continue_in_fresh_process(const std::string& db, const std::string& run_id) {
  std::cerr << "apod: the CUDA context could not be recovered after a fault; resuming run "
            << run_id << " in a fresh process\n";
  std::cout.flush();
  std::cerr.flush();
  std::vector<std::string> args = {"apod", "run", "--db", db, "--resume", run_id};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  throw ResourceError("cannot re-execute apod to resume run " + run_id + ": " +
                      std::strerror(errno) + "; resume it with `apod run --resume " + run_id + "`");
}

/// The options that shape how each point is sampled (--min-samples ... --no-clock-check).
void add_sampling_options(CLI::App& run, RunRequest& req, std::pair<bool, bool>& flags) {
  auto& sampling = req.options.sampling;
  run.add_option("--min-samples", sampling.min_samples, "timed samples per point, at least")
      ->check(CLI::Range(3, 100000))
      ->capture_default_str();
  run.add_option("--max-samples", sampling.max_samples, "timed samples per point, at most")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  run.add_option(
         "--target-ci", sampling.target_ci_rel,
         "stop a point when its median's 95% CI half-width is within this fraction of the median")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  run.add_option("--point-time-cap", sampling.max_point_s,
                 "seconds of sampling per point at most (then flagged noisy)")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  run.add_option(
         "--min-clock-ratio", req.min_clock_ratio,
         "samples taken while the SM clock is under this fraction of its maximum are left out")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  run.add_flag("--no-l2-flush", flags.first, "do not overwrite the L2 cache before each sample");
  run.add_flag("--no-clock-check", flags.second,
               "keep samples taken under low clocks or throttling");
}

/// Applies and checks what the command line asked of the run: the device ordinal, the sampling
/// flags, finite numbers, and --quick's short look at each point.
void apply_run_options(RunRequest& req, const std::string& device, std::pair<bool, bool> flags,
                       bool resuming) {
  try {
    size_t used = 0;
    req.options.device = resuming ? 0 : std::stoi(device, &used);
    if (!resuming && (used != device.size() || req.options.device < 0))
      throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw InputError("--device must be a device ordinal (0, 1, ...) or 'all', not '" + device +
                     "'");
  }
  auto& sampling = req.options.sampling;
  req.show_progress = isatty(STDERR_FILENO);
  sampling.flush_l2 = !flags.first;
  req.monitor_clocks = !flags.second;
  if (sampling.max_samples < sampling.min_samples)
    throw InputError("--max-samples must be at least --min-samples");
  if (!std::isfinite(sampling.target_ci_rel) || !std::isfinite(sampling.max_point_s) ||
      !std::isfinite(req.min_clock_ratio)) // CLI11's range check lets "nan" through
    throw InputError("--target-ci, --point-time-cap and --min-clock-ratio must be finite numbers");
  if (req.options.quick) { // a smoke test: small sizes, a short look at each point
    sampling.max_point_s = std::min(sampling.max_point_s, 0.1);
    sampling.warmup = 1;
  }
}

} // namespace

void add_run(CLI::App& app, Action& action) {
  auto req = std::make_shared<RunRequest>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false); // no L2 flush, no clock check
  auto device = std::make_shared<std::string>("0");
  auto* run =
      app.add_subcommand("run", "run the experiment matrix on a GPU and store every sample");
  run->add_option("--db", req->db_path, "SQLite database to add the run to")->capture_default_str();
  run->add_option("--device", *device,
                  "CUDA device ordinal, or 'all': one process per visible GPU, one database, then "
                  "each GPU judged against the others of its model (exit 1 if one is slower; "
                  "docs/siblings.md)")
      ->capture_default_str();
  run->add_option("--only", req->only, "experiments to run (comma separated)")->delimiter(',');
  run->add_option("--label", req->label, "free-text label stored with the run");
  auto all_at_once = std::make_shared<bool>(false);
  run->add_flag(
      "--all-at-once", *all_at_once,
      "with --device all: run the GPUs at the same time, not in turn (faster; host-side transfer "
      "figures then share the host and drop)");
  run->add_flag("--quick", req->options.quick,
                "reduced sizes and sampling: a smoke test, not a measurement");
  run->add_flag("--full", req->options.full,
                "the long sweeps too: experiments add points past the default's representative "
                "ones (the default's points are measured as always)")
      ->excludes("--quick");
  run->add_option("--repeat", req->repeat, "run the matrix K times, one stored run each")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  add_sampling_options(*run, *req, *flags);
  // The matrix and its settings come from the run being resumed; only --db goes with --resume.
  std::vector<CLI::Option*> matrix_options;
  for (const auto* name :
       {"--device", "--only", "--label", "--quick", "--full", "--repeat", "--min-samples",
        "--max-samples", "--target-ci", "--point-time-cap", "--min-clock-ratio", "--no-l2-flush",
        "--no-clock-check", "--all-at-once"})
    matrix_options.push_back(run->get_option(name));
  auto* resume = run->add_option(
      "--resume", req->resume_run,
      "complete an interrupted run (id or unique prefix): the experiments it has not "
      "stored, with its own settings, into the same run");
  for (auto* option : matrix_options)
    resume->excludes(option);

  run->callback([&action, req, flags, device, all_at_once] {
    action = [req, flags, device, all_at_once]() -> int {
      check_database_path(req->db_path); // "", ":memory:" or a URI would store the run nowhere
      const bool resuming = !req->resume_run.empty(); // the run's own device and settings
      if (!resuming && *device == "all")
        return run_on_every_device(*all_at_once, req->db_path);
      if (*all_at_once)
        throw InputError("--all-at-once goes with --device all");
      apply_run_options(*req, *device, *flags, resuming);
      bool complete = true;
      const auto outcomes = run_matrix(*req, std::cerr);
      for (const auto& outcome : outcomes) {
        print_summary(outcome, std::cout);
        complete = complete && outcome.status == "complete";
      }
      if (!outcomes.empty() && outcomes.back().context_lost) {
        if (!resuming && static_cast<int>(outcomes.size()) < req->repeat)
          std::cerr << "apod: " << req->repeat - outcomes.size()
                    << " repeat(s) not run: the CUDA context "
                    << "could not be recovered after a fault\n";
        if (outcomes.back().status == "running")
          continue_in_fresh_process(req->db_path, outcomes.back().run_id);
      }
      return complete ? exit_ok : exit_partial;
    };
  });
}

} // namespace apod::cli
