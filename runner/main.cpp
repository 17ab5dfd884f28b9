// apod's command line. Each subcommand is a thin layer over the runner, the store or the report;
// every error becomes a one-line message on stderr and a documented exit code (errors.hpp).
#include "errors.hpp"
#include "experiment.hpp"
#include "report.hpp"
#include "results_json.hpp"
#include "run.hpp"
#include "store.hpp"
#include "version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace {

using apod::json;

void print_device(const apod::DeviceInfo& d, bool as_json) {
  if (as_json) {
    std::cout << apod::to_json(d).dump(2) << "\n";
    return;
  }
  const auto pcie = d.theoretical_pcie_gbs();
  std::cout << fmt::format(
      "device {}: {}\n  uuid                {}\n  compute capability  {}.{}\n  SMs                 {}\n"
      "  memory clock        {:.0f} MHz\n  memory bus width    {} bits\n  L2 cache            {:.1f} MiB\n"
      "  memory              {:.1f} GiB\n  ECC                 {}\n  copy engines        {}\n"
      "  driver / runtime    {} / {}\n  PCIe                {} (gen {} x{}, now gen {} x{})\n"
      "theoretical DRAM bandwidth  {:.1f} GB/s  (memory clock x bus width / 8 x 2)\n",
      d.ordinal, d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, d.memory_clock_khz / 1e3,
      d.memory_bus_width_bits, d.l2_bytes / 1048576.0, d.total_memory_bytes / 1073741824.0,
      d.ecc_enabled ? "on" : "off", d.copy_engines, d.driver_version, d.runtime_version, d.pci_bus_id,
      d.pcie_generation, d.pcie_width, d.pcie_current_generation, d.pcie_current_width,
      d.theoretical_bandwidth_gbs());
  if (pcie)
    std::cout << fmt::format("theoretical PCIe bandwidth  {:.1f} GB/s per direction (after line encoding)\n", *pcie);
  else
    std::cout << "theoretical PCIe bandwidth  unknown (link generation not readable)\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"apod: measures what an NVIDIA GPU delivers against what it should deliver, and keeps the evidence"};
  app.set_version_flag("--version", std::string("apod ") + APOD_VERSION + " (" + APOD_GIT_DESCRIBE + ")");
  app.require_subcommand(1);

  apod::RunRequest run_req;
  auto* run = app.add_subcommand("run", "run the experiment matrix on a GPU and store every sample");
  run->add_option("--db", run_req.db_path, "SQLite database to add the run to")->capture_default_str();
  run->add_option("--device", run_req.options.device, "CUDA device ordinal")->capture_default_str();
  run->add_option("--only", run_req.only, "experiments to run (comma separated)")->delimiter(',');
  run->add_option("--label", run_req.label, "free-text label stored with the run");
  run->add_flag("--quick", run_req.options.quick, "reduced sizes and sampling: a smoke test, not a measurement");
  run->add_option("--repeat", run_req.repeat, "run the matrix K times, one stored run each")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  auto& sampling = run_req.options.sampling;
  run->add_option("--min-samples", sampling.min_samples, "timed samples per point, at least")
      ->check(CLI::Range(3, 100000))->capture_default_str();
  run->add_option("--max-samples", sampling.max_samples, "timed samples per point, at most")
      ->check(CLI::Range(3, 1000000))->capture_default_str();
  run->add_option("--target-ci", sampling.target_ci_rel,
                  "stop a point when its median's 95% CI half-width is within this fraction of the median")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_option("--point-time-cap", sampling.max_point_s, "seconds of sampling per point at most (then flagged noisy)")
      ->check(CLI::Range(0.0, 3600.0))->capture_default_str();
  run->add_option("--min-clock-ratio", run_req.min_clock_ratio,
                  "samples taken while the SM clock is under this fraction of its maximum are left out")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  bool no_l2_flush = false, no_clock_check = false;
  run->add_flag("--no-l2-flush", no_l2_flush, "do not overwrite the L2 cache before each sample");
  run->add_flag("--no-clock-check", no_clock_check, "keep samples taken under low clocks or throttling");

  std::string db = "apod.db", out = "apod-report.html", format = "json";
  std::vector<std::string> run_ids, files;
  auto* report = app.add_subcommand("report", "render the stored runs as one self-contained HTML page");
  report->add_option("--db", db, "SQLite database to read")->capture_default_str();
  report->add_option("--out", out, "HTML file to write")->capture_default_str();
  report->add_option("--run", run_ids, "runs to include (id or unique prefix; default: all)");

  bool list_runs = false;
  auto* list = app.add_subcommand("list", "list the experiments of the matrix, or with --runs the stored runs");
  list->add_flag("--runs", list_runs, "list the runs stored in --db instead");
  list->add_option("--db", db, "SQLite database to read (with --runs)")->capture_default_str();

  int device_ordinal = 0;
  bool device_json = false;
  auto* device = app.add_subcommand("device", "print the device's facts and theoretical limits");
  device->add_option("--device", device_ordinal, "CUDA device ordinal")->capture_default_str();
  device->add_flag("--json", device_json, "print as JSON");

  std::string export_out = "-";
  auto* exp = app.add_subcommand("export", "write stored runs as an apod-results JSON document");
  exp->add_option("--db", db, "SQLite database to read")->capture_default_str();
  exp->add_option("--format", format, "output format")->check(CLI::IsMember({"json"}))->capture_default_str();
  exp->add_option("--out", export_out, "file to write, - for stdout")->capture_default_str();
  exp->add_option("--run", run_ids, "runs to export (id or unique prefix; default: all)");

  auto* imp = app.add_subcommand("import", "add the runs of apod-results JSON files to a database");
  imp->add_option("--db", db, "SQLite database to add to (created if missing)")->capture_default_str();
  imp->add_option("files", files, "apod-results JSON files")->required()->check(CLI::ExistingFile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return apod::exit_usage;
  }

  try {
    if (*run) {
      run_req.show_progress = isatty(STDERR_FILENO);
      run_req.options.sampling.flush_l2 = !no_l2_flush;
      run_req.monitor_clocks = !no_clock_check;
      if (sampling.max_samples < sampling.min_samples)
        throw apod::InputError("--max-samples must be at least --min-samples");
      if (run_req.options.quick) {  // a smoke test: small sizes, a short look at each point
        sampling.max_point_s = std::min(sampling.max_point_s, 0.1);
        sampling.warmup = 1;
      }
      bool complete = true;
      for (const auto& outcome : apod::run_matrix(run_req, std::cerr)) {
        apod::print_summary(outcome, std::cout);
        complete = complete && outcome.status == "complete";
      }
      return complete ? apod::exit_ok : apod::exit_partial;
    }
    if (*report) {
      apod::Store store(db, apod::Store::Mode::read_only);
      const json results = store.export_results(run_ids);
      const std::string html = apod::report::render_html(results, apod::experiment_catalog(), json::array());
      apod::write_file_atomically(out, html);
      std::cerr << fmt::format("wrote {} ({} run(s), {:.1f} KiB)\n", out, results["runs"].size(), html.size() / 1024.0);
      return apod::exit_ok;
    }
    if (*list) {
      if (!list_runs) {
        for (const auto& e : apod::experiments())
          std::cout << fmt::format("{:<18} v{}  {}\n", e.name, e.version, e.title);
        return apod::exit_ok;
      }
      apod::Store store(db, apod::Store::Mode::read_only);
      std::cout << fmt::format("{:<32}  {:<24}  {:<11}  {:>6}  {:<20}  {}\n", "id", "started", "status", "points", "device", "label");
      for (const auto& r : store.list_runs())
        std::cout << fmt::format("{:<32}  {:<24}  {:<11}  {:>6}  {:<20}  {}\n", r.id, r.started_at, r.status,
                                 r.measurements, r.device_name, r.label);
      return apod::exit_ok;
    }
    if (*device) {
      print_device(apod::query_device(device_ordinal), device_json);
      return apod::exit_ok;
    }
    if (*exp) {
      apod::Store store(db, apod::Store::Mode::read_only);
      const std::string text = store.export_results(run_ids).dump(2) + "\n";
      if (export_out == "-")
        std::cout << text;
      else
        apod::write_file_atomically(export_out, text);
      return apod::exit_ok;
    }
    if (*imp) {
      std::vector<json> docs;  // validate every file before the database is touched
      for (const auto& f : files) docs.push_back(apod::read_results_file(f));
      apod::Store store(db, apod::Store::Mode::read_write_create);
      int added = 0, skipped = 0;
      for (const auto& doc : docs)
        for (const auto& r : doc["runs"]) (store.import_run(r) ? added : skipped)++;
      std::cerr << fmt::format("imported {} run(s) into {}; {} already present\n", added, db, skipped);
      return apod::exit_ok;
    }
  } catch (const apod::InputError& e) {
    std::cerr << "apod: error: " << e.what() << "\n";
    return apod::exit_usage;
  } catch (const apod::NoDevice& e) {
    std::cerr << "apod: error: " << e.what() << "\n";
    return apod::exit_no_device;
  } catch (const std::exception& e) {
    std::cerr << "apod: error: " << e.what() << "\n";
    return apod::exit_no_device;
  }
  return apod::exit_usage;
}
