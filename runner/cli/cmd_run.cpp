// apod run: the experiment matrix on one GPU.
#include "commands.hpp"
#include "errors.hpp"
#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

namespace apod::cli {

void add_run(CLI::App& app, Action& action) {
  auto req = std::make_shared<RunRequest>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);  // no L2 flush, no clock check
  auto* run = app.add_subcommand("run", "run the experiment matrix on a GPU and store every sample");
  run->add_option("--db", req->db_path, "SQLite database to add the run to")->capture_default_str();
  run->add_option("--device", req->options.device, "CUDA device ordinal")->capture_default_str();
  run->add_option("--only", req->only, "experiments to run (comma separated)")->delimiter(',');
  run->add_option("--label", req->label, "free-text label stored with the run");
  run->add_flag("--quick", req->options.quick, "reduced sizes and sampling: a smoke test, not a measurement");
  run->add_option("--repeat", req->repeat, "run the matrix K times, one stored run each")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  auto& sampling = req->options.sampling;
  run->add_option("--min-samples", sampling.min_samples, "timed samples per point, at least")
      ->check(CLI::Range(3, 100000))->capture_default_str();
  run->add_option("--max-samples", sampling.max_samples, "timed samples per point, at most")
      ->check(CLI::Range(3, 1000000))->capture_default_str();
  run->add_option("--target-ci", sampling.target_ci_rel,
                  "stop a point when its median's 95% CI half-width is within this fraction of the median")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_option("--point-time-cap", sampling.max_point_s,
                  "seconds of sampling per point at most (then flagged noisy)")
      ->check(CLI::Range(0.0, 3600.0))->capture_default_str();
  run->add_option("--min-clock-ratio", req->min_clock_ratio,
                  "samples taken while the SM clock is under this fraction of its maximum are left out")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_flag("--no-l2-flush", flags->first, "do not overwrite the L2 cache before each sample");
  run->add_flag("--no-clock-check", flags->second, "keep samples taken under low clocks or throttling");

  run->callback([&action, req, flags] {
    action = [req, flags] {
      auto& sampling = req->options.sampling;
      req->show_progress = isatty(STDERR_FILENO);
      sampling.flush_l2 = !flags->first;
      req->monitor_clocks = !flags->second;
      if (sampling.max_samples < sampling.min_samples)
        throw InputError("--max-samples must be at least --min-samples");
      if (req->options.quick) {  // a smoke test: small sizes, a short look at each point
        sampling.max_point_s = std::min(sampling.max_point_s, 0.1);
        sampling.warmup = 1;
      }
      bool complete = true;
      for (const auto& outcome : run_matrix(*req, std::cerr)) {
        print_summary(outcome, std::cout);
        complete = complete && outcome.status == "complete";
      }
      return complete ? exit_ok : exit_partial;
    };
  });
}

}  // namespace apod::cli
