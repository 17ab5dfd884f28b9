// apod compare and apod baseline: the verdict on candidate runs against a baseline, judged on the
// run-to-run noise of each point on its machine (runner/analysis/compare.hpp, docs/ci.md).
#include "analysis/compare.hpp"
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"
#include "core/vocabulary.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <set>

namespace apod::cli {

namespace {

constexpr const char* baseline_setting = settings::baseline_run;
/// The word that names the pinned baseline where a run id is expected.
constexpr const char* pinned_word = "pinned";

struct CompareArgs {
  std::vector<std::string> runs; ///< BASELINE [CANDIDATE...]
  std::string db = "apod.db", baseline_db, config, format = "text", threshold, batch;
  bool all = false, pool = false, only_changed = false;
};

CompareOptions load_options(const CompareArgs& args) {
  CompareOptions options;
  if (!args.config.empty())
    options = parse_compare_config(read_json_file(args.config, limits::compare_config));
  if (!args.threshold.empty())
    options.threshold = parse_threshold(args.threshold);
  return options;
}

std::string pinned_baseline(Store& store, const std::string& db) {
  if (auto pinned = store.setting(baseline_setting))
    return *pinned;
  throw InputError("no baseline pinned in '" + db +
                   "': name one (apod compare BASELINE [CANDIDATE...]) or pin one with "
                   "`apod baseline set RUN`");
}

/// The candidates' ids: those named, a whole database (--all), a --repeat batch (--batch), or by
/// default the newest run other than the baseline.
std::vector<std::string> choose_candidates(const CompareArgs& args, Store& store,
                                           const std::vector<RunRecord>& runs,
                                           const std::string& base_id) {
  std::vector<std::string> ids;
  for (size_t i = 1; i < args.runs.size(); ++i)
    ids.push_back(store.resolve_run_id(args.runs[i]));
  for (const RunRecord& r : runs) {
    const auto& repeat = r.environment.repeat;
    const bool in_batch = !args.batch.empty() && repeat && repeat->batch.starts_with(args.batch);
    if (r.id != base_id && (args.all || in_batch))
      ids.push_back(r.id);
  }
  if (!args.batch.empty() && ids.empty())
    throw InputError("no run of batch '" + args.batch + "' in '" + args.db + "'");
  if (ids.empty() && args.runs.size() <= 1 && !args.all)
    for (const RunRecord& r : runs)
      if (r.id != base_id)
        ids = {r.id}; // runs are in start order: the newest wins
  if (ids.empty())
    throw InputError("no candidate run in '" + args.db + "' besides the baseline");
  std::vector<std::string> unique;
  for (const auto& id : ids)
    if (std::find(unique.begin(), unique.end(), id) == unique.end())
      unique.push_back(id);
  return unique;
}

const RunRecord& find_run(const std::vector<RunRecord>& runs, const std::string& id) {
  for (const RunRecord& r : runs)
    if (r.id == id)
      return r;
  throw InputError("no run " + id);
}

int run_compare(const CompareArgs& args) {
  const CompareOptions options = load_options(args);
  check_database_path(args.db);
  if (!args.baseline_db.empty())
    check_database_path(args.baseline_db);
  Store candidates(args.db, Store::Mode::read_only);
  std::unique_ptr<Store> other;
  if (!args.baseline_db.empty())
    other = std::make_unique<Store>(args.baseline_db, Store::Mode::read_only);
  Store& baselines = other ? *other : candidates;
  const bool named = !args.runs.empty() && args.runs[0] != pinned_word;
  const std::string base_id =
      named ? baselines.resolve_run_id(args.runs[0])
            : pinned_baseline(baselines, args.baseline_db.empty() ? args.db : args.baseline_db);

  // Every run of both databases is history for the noise model; the candidates are judged.
  std::vector<RunRecord> runs = candidates.read_runs();
  const std::vector<std::string> cand_ids = choose_candidates(args, candidates, runs, base_id);
  if (other)
    for (RunRecord& r : other->read_runs())
      if (std::none_of(runs.begin(), runs.end(), [&](const RunRecord& x) { return x.id == r.id; }))
        runs.push_back(std::move(r));
  const std::set<std::string> judged(cand_ids.begin(), cand_ids.end());
  const RunRecord& base = find_run(runs, base_id);
  std::vector<Verdict> verdicts;
  if (args.pool) {
    std::vector<const RunRecord*> batch;
    for (const auto& id : cand_ids)
      batch.push_back(&find_run(runs, id));
    verdicts.push_back(judge_pooled(base, batch, NoiseModel::from_runs(runs, {}, judged), options));
  } else {
    for (const auto& id : cand_ids)
      verdicts.push_back(
          judge(base, find_run(runs, id), NoiseModel::for_candidate(runs, id, judged), options));
  }

  const FormatOptions format{args.only_changed};
  if (args.format == "json")
    std::cout << to_json(verdicts, format).dump(2, ' ', false, json::error_handler_t::replace)
              << "\n";
  else if (args.format == "markdown")
    std::cout << format_markdown(verdicts, format);
  else
    std::cout << format_text(verdicts, format);
  for (const Verdict& v : verdicts)
    if (!v.nothing_compared.empty())
      std::cerr << fmt::format("apod: error: nothing compared between {} and {}: {}\n",
                               terminal_text(v.baseline.id), terminal_text(v.candidate.id),
                               terminal_text(v.nothing_compared));
  return exit_code(verdicts);
}

/// Which run, device, date and label: what `baseline set` and `baseline show` say.
std::string describe(const RunRecord& r) {
  const RunFacts f = RunFacts::of(r);
  const auto t = [](const std::string& s) { return terminal_text(s); }; // stored text
  return fmt::format("baseline: {}\n  label    \"{}\"\n  started  {}\n  device   {} ({}) on {}{}\n",
                     t(f.id), t(f.label), t(f.started_at), t(f.device), t(f.uuid),
                     f.host.empty() ? "?" : t(f.host),
                     f.driver_branch.empty() ? "" : ", driver branch " + t(f.driver_branch));
}

} // namespace

void add_compare(CLI::App& app, Action& action) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmp = app.add_subcommand(
      "compare", "judge candidate runs against a baseline on each point's run-to-run noise; exit 1 "
                 "on a regression, 2 when nothing could be compared");
  cmp->add_option(
      "runs", args->runs,
      "BASELINE [CANDIDATE...]: run ids or prefixes; BASELINE 'pinned' is the pinned one "
      "(default: the pinned baseline and the newest other run)");
  cmp->add_option("--db", args->db, "database holding the candidates and the history")
      ->capture_default_str();
  cmp->add_option("--baseline-db", args->baseline_db, "another database holding the baseline run");
  cmp->add_flag("--all", args->all, "judge every run of --db against the baseline");
  cmp->add_option("--batch", args->batch, "judge every run of this --repeat batch (id or prefix)");
  cmp->add_flag("--pool", args->pool,
                "judge the candidates (of one GPU) as one, by each point's median over the runs");
  cmp->add_option("--config", args->config,
                  "JSON options: {\"threshold\": 0.015, \"fwer\": 0.01, "
                  "\"experiments\": {\"x\": {\"threshold\": 0.1}}}")
      ->check(CLI::ExistingFile);
  cmp->add_option("--threshold", args->threshold,
                  "smallest change that counts, as a percentage (\"5%\") or a fraction (\"0.05\"); "
                  "default 1.5%");
  cmp->add_flag("--only-changed", args->only_changed, "leave out the points that stayed the same");
  cmp->add_option("--format", args->format, "text, markdown (for a CI job summary) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))
      ->capture_default_str();
  cmp->callback([&action, args] { action = [args] { return run_compare(*args); }; });
}

void add_baseline(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db", run;
  };
  auto args = std::make_shared<Args>();
  auto* baseline = app.add_subcommand(
      "baseline", "pin or show the run that `apod compare` uses as its baseline");
  baseline->require_subcommand(1);
  auto* set = baseline->add_subcommand("set", "pin RUN as the baseline");
  set->add_option("run", args->run, "run id or unique prefix")->required();
  set->add_option("--db", args->db, "database")->capture_default_str();
  auto* show = baseline->add_subcommand(
      "show", "say which run is the pinned baseline: id, label, date, device");
  show->add_option("--db", args->db, "database")->capture_default_str();
  set->callback([&action, args] {
    action = [args]() -> int {
      check_database_path(args->db);
      Store store(args->db, Store::Mode::read_write); // a baseline is a stored run: no new file
      const std::string id = store.resolve_run_id(args->run);
      store.set_setting(baseline_setting, id);
      std::cout << describe(store.read_run(id));
      return exit_ok;
    };
  });
  show->callback([&action, args] {
    action = [args]() -> int {
      check_database_path(args->db);
      Store store(args->db, Store::Mode::read_only);
      std::cout << describe(store.read_run(pinned_baseline(store, args->db)));
      return exit_ok;
    };
  });
}

} // namespace apod::cli
