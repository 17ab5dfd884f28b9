// apod compare and apod baseline: the verdict on candidate runs against a baseline, judged on the
// run-to-run noise of each point on its machine (runner/analysis/compare.hpp, docs/ci.md).
#include "analysis/compare.hpp"
#include "analysis/siblings.hpp"
#include "commands.hpp"
#include "core/catalog.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/run_dates.hpp"
#include "core/text.hpp"
#include "core/vocabulary.hpp"
#include "store/run_conflict.hpp"
#include "store/store.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <map>
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
  bool siblings = false;    ///< judge GPUs of one host against each other, not against a baseline
  bool batch_given = false; ///< --batch was on the command line, even as ""
};

CompareOptions load_options(const CompareArgs& args) {
  CompareOptions options;
  if (!args.config.empty())
    options = parse_compare_config(read_json_file(args.config, limits::compare_config));
  // A threshold for an experiment apod does not have (a typo, a renamed experiment) would be
  // ignored in silence: refused, naming the ones it has.
  for (const auto& [name, threshold] : options.experiment_threshold)
    if (!find_declaration(name)) {
      std::vector<std::string> known;
      for (const Declaration& d : declarations())
        known.push_back(d.name);
      throw InputError(fmt::format("compare config '{}': experiments.{} is not an experiment of "
                                   "apod (known: {})",
                                   args.config, name, fmt::join(known, ", ")));
    }
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

/// The batch `wanted` names: a --repeat batch id or a prefix of exactly one (an id that is also
/// a prefix of another is that id). Empty, unknown or ambiguous: InputError naming the batches.
std::string resolve_batch(const std::string& wanted, const std::vector<RunRecord>& runs,
                          const std::string& db) {
  std::set<std::string> batches, matching;
  for (const RunRecord& r : runs)
    if (const auto& repeat = r.environment.repeat)
      batches.insert(repeat->batch);
  const auto listed = [](const std::set<std::string>& names) {
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
  };
  if (wanted.empty())
    throw InputError("--batch \"\" names no batch; the batches in '" + db +
                     "' are: " + listed(batches));
  if (batches.count(wanted))
    return wanted;
  for (const auto& b : batches)
    if (b.starts_with(wanted))
      matching.insert(b);
  if (matching.size() == 1)
    return *matching.begin();
  if (matching.empty())
    throw InputError("no run of batch '" + wanted + "' in '" + db +
                     "'; its batches are: " + listed(batches));
  throw InputError("--batch '" + wanted + "' is a prefix of " + std::to_string(matching.size()) +
                   " batches (" + listed(matching) + "); give more of the id");
}

/// The candidates' ids: those named, a whole database (--all), a --repeat batch (--batch), or by
/// default the newest run other than the baseline: the one that started last, leaving out runs
/// dated more than clock_skew after this machine's clock (run_dates.hpp), which are said.
std::vector<std::string> choose_candidates(const CompareArgs& args, Store& store,
                                           const std::vector<RunRecord>& runs,
                                           const std::string& base_id) {
  std::vector<std::string> ids;
  for (size_t i = 1; i < args.runs.size(); ++i)
    ids.push_back(store.resolve_run_id(args.runs[i]));
  const std::optional<std::string> batch =
      args.batch_given ? std::optional(resolve_batch(args.batch, runs, args.db)) : std::nullopt;
  for (const RunRecord& r : runs) {
    const auto& repeat = r.environment.repeat;
    const bool in_batch = batch && repeat && repeat->batch == *batch;
    if (r.id != base_id && (args.all || in_batch))
      ids.push_back(r.id);
  }
  if (batch && ids.empty())
    throw InputError("batch '" + *batch + "' in '" + args.db + "' holds only the baseline");
  if (ids.empty() && args.runs.size() <= 1 && !args.all) {
    const UtcTime now = utc_now();
    for (const RunRecord& r : runs) { // in start order: the newest wins
      if (r.id == base_id)
        continue;
      if (const auto field = date_from_the_future(r, now)) {
        std::cerr << fmt::format("apod: note: run {} is not taken for the newest: its {} {} lies "
                                 "more than an hour after this machine's clock\n",
                                 terminal_text(r.id), *field, terminal_text(r.started_at));
        continue;
      }
      ids = {r.id};
    }
  }
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

/// `apod compare --siblings`: the GPUs of one host judged against each other (siblings.hpp). The
/// runs named, else every `--device all` set of the database (--all), else its newest set.
int run_siblings(const CompareArgs& args) {
  check_database_path(args.db);
  Store store(args.db, Store::Mode::read_only);
  const std::vector<RunRecord> runs = store.read_runs();
  std::vector<std::vector<const RunRecord*>> sets;
  if (!args.runs.empty()) {
    sets.emplace_back();
    for (const auto& wanted : args.runs)
      sets.back().push_back(&find_run(runs, store.resolve_run_id(wanted)));
  } else {
    sets = device_all_sets(runs);
    if (sets.empty())
      throw InputError("no run of `apod run --device all` in '" + args.db +
                       "': name the runs of one host's GPUs (apod compare --siblings RUN RUN ...)");
    if (!args.all)
      sets.erase(sets.begin(), sets.end() - 1); // the newest
  }
  int code = exit_ok;
  bool judged = false;
  for (const auto& set : sets) {
    std::set<std::string> ids;
    for (const RunRecord* r : set)
      ids.insert(r->id);
    // Each GPU's own run-to-run noise: its history in the database and its runs of this set.
    const SiblingVerdict verdict = judge_siblings(set, NoiseModel::from_runs(runs, {}, ids));
    if (args.format == "json")
      std::cout << to_json(verdict).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    else if (args.format == "markdown")
      std::cout << format_siblings_markdown(verdict);
    else
      std::cout << format_siblings_text(verdict);
    code = std::max(code, verdict.exit_code());
    for (const SiblingSet& s : verdict.sets)
      judged = judged || s.not_judged.empty();
  }
  if (!judged) {
    std::cerr << "apod: error: nothing compared: no two GPUs of one model on one host among "
                 "these runs\n";
    return exit_usage;
  }
  return code;
}

/// More than one GPU of one model and host among the runs `ids`: what `--siblings` is for.
bool several_gpus_of_one_host(const std::vector<RunRecord>& runs,
                              const std::vector<std::string>& ids) {
  std::map<std::string, std::set<std::string>> gpus; // host|model -> uuids
  for (const auto& id : ids)
    for (const RunRecord& r : runs)
      if (r.id == id)
        gpus[r.environment.host + "|" + r.device.name].insert(r.device.uuid);
  return std::any_of(gpus.begin(), gpus.end(), [](const auto& g) { return g.second.size() > 1; });
}

int run_compare(const CompareArgs& args) {
  if (args.siblings)
    return run_siblings(args);
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
  // A run in both databases must be one run: were the copies different, which one is the
  // baseline (or the history) would depend on which database was read first.
  if (other)
    for (RunRecord& r : other->read_runs()) {
      const auto it =
          std::find_if(runs.begin(), runs.end(), [&](const RunRecord& x) { return x.id == r.id; });
      if (it == runs.end())
        runs.push_back(std::move(r));
      else if (const RunConflict c = classify(*it, r); c.kind != RunConflict::same)
        throw InputError(fmt::format("run {} is in '{}' and in '{}' with different contents ({}): "
                                     "compare would not know which copy to judge; merge them "
                                     "(apod merge --on-conflict ...) or give another --db",
                                     r.id, args.db, args.baseline_db, c.difference));
    }
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
  std::vector<std::string> all_ids = cand_ids;
  all_ids.push_back(base_id);
  if (several_gpus_of_one_host(runs, all_ids))
    std::cerr << "apod: note: the candidates are several GPUs of one model on one host; `apod "
                 "compare --siblings` judges them against each other\n";
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
  auto* batch = cmp->add_option("--batch", args->batch,
                                "judge every run of this --repeat batch (id or prefix)");
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
  auto* siblings = cmp->add_flag(
      "--siblings", args->siblings,
      "judge the GPUs of one host against each other (no baseline): RUN... names their runs; "
      "default the newest `apod run --device all`, --all every one; exit 1 when a GPU is slower "
      "than its siblings");
  for (const char* other :
       {"--baseline-db", "--batch", "--pool", "--config", "--threshold", "--only-changed"})
    siblings->excludes(cmp->get_option(other));
  cmp->add_option("--format", args->format, "text, markdown (for a CI job summary) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))
      ->capture_default_str();
  cmp->callback([&action, args, batch] {
    args->batch_given = batch->count() > 0; // `--batch ""` is given too, and refused
    action = [args] { return run_compare(*args); };
  });
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
