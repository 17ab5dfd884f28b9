// apod compare and apod baseline: regression gating between two runs.
#include "commands.hpp"
#include "analysis/compare.hpp"
#include "core/errors.hpp"
#include "core/vocabulary.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

namespace apod::cli {

namespace {
constexpr const char* baseline_setting = settings::baseline_run;

RunRecord load_run(Store& store, const std::string& id) { return store.read_run(id); }
}  // namespace

void add_compare(CLI::App& app, Action& action) {
  struct Args {
    std::vector<std::string> runs;
    std::string db = "apod.db", baseline_db, config, format = "text";
    double threshold = -1;
  };
  auto args = std::make_shared<Args>();
  auto* cmp = app.add_subcommand("compare",
      "compare a candidate run with a baseline; exit 1 on a significant slowdown beyond the threshold");
  cmp->add_option("runs", args->runs,
                  "BASELINE [CANDIDATE] run ids or prefixes (default: the pinned baseline and the latest run)")
      ->expected(0, 2);
  cmp->add_option("--db", args->db, "database holding the candidate (and, by default, the baseline)")->capture_default_str();
  cmp->add_option("--baseline-db", args->baseline_db, "another database holding the baseline run");
  cmp->add_option("--config", args->config, "JSON thresholds: {\"threshold\":0.05,\"experiments\":{\"x\":{\"threshold\":0.1}}}")
      ->check(CLI::ExistingFile);
  cmp->add_option("--threshold", args->threshold, "relative slowdown that counts as a regression (default 0.05)")
      ->check(CLI::Range(0.0, 10.0));
  cmp->add_option("--format", args->format, "text, markdown (for a CI job summary) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))->capture_default_str();
  cmp->callback([&action, args] {
    action = [args]() -> int {
      CompareConfig config;
      if (!args->config.empty()) {
        std::ifstream in(args->config);
        json doc;
        try {
          doc = json::parse(in);
        } catch (const json::exception& e) {
          throw InputError(fmt::format("'{}' is not valid JSON: {}", args->config, e.what()));
        }
        config = parse_compare_config(doc);
      }
      if (args->threshold >= 0) config.threshold = args->threshold;
      Store candidates(args->db, Store::Mode::read_only);
      std::unique_ptr<Store> other;
      if (!args->baseline_db.empty()) other = std::make_unique<Store>(args->baseline_db, Store::Mode::read_only);
      Store& baselines = other ? *other : candidates;

      std::string base_id;
      if (!args->runs.empty()) {
        base_id = baselines.resolve_run_id(args->runs[0]);
      } else if (auto pinned = baselines.setting(baseline_setting)) {
        base_id = *pinned;
      } else {
        throw InputError("no baseline: name one (apod compare BASELINE [CANDIDATE]) or pin one with `apod baseline set RUN`");
      }
      std::string cand_id;
      if (args->runs.size() == 2) {
        cand_id = candidates.resolve_run_id(args->runs[1]);
      } else {
        for (const auto& r : candidates.list_runs())
          if (r.id != base_id || other) cand_id = r.id;  // the latest run other than the baseline
        if (cand_id.empty()) throw InputError("no candidate run in '" + args->db + "' besides the baseline");
      }
      const Comparison c = compare_runs(load_run(baselines, base_id), load_run(candidates, cand_id), config);
      if (args->format == "json")
        std::cout << to_json(c).dump(2) << "\n";
      else if (args->format == "markdown")
        std::cout << format_markdown(c);
      else
        std::cout << format_text(c);
      return c.regression() ? exit_regression : exit_ok;
    };
  });
}

void add_baseline(CLI::App& app, Action& action) {
  struct Args { std::string db = "apod.db", run; };
  auto args = std::make_shared<Args>();
  auto* baseline = app.add_subcommand("baseline", "pin or show the run that `apod compare` uses as its baseline");
  baseline->require_subcommand(1);
  auto* set = baseline->add_subcommand("set", "pin RUN as the baseline");
  set->add_option("run", args->run, "run id or unique prefix")->required();
  set->add_option("--db", args->db, "database")->capture_default_str();
  auto* show = baseline->add_subcommand("show", "print the pinned baseline run");
  show->add_option("--db", args->db, "database")->capture_default_str();
  set->callback([&action, args] {
    action = [args]() -> int {
      Store store(args->db, Store::Mode::read_write_create);
      const std::string id = store.resolve_run_id(args->run);
      store.set_setting(baseline_setting, id);
      std::cout << "baseline: " << id << "\n";
      return exit_ok;
    };
  });
  show->callback([&action, args] {
    action = [args]() -> int {
      Store store(args->db, Store::Mode::read_only);
      const auto id = store.setting(baseline_setting);
      if (!id) throw InputError("no baseline pinned in '" + args->db + "'");
      std::cout << *id << "\n";
      return exit_ok;
    };
  });
}

}  // namespace apod::cli
