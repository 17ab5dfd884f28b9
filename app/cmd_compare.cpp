// apod compare and apod baseline: the verdict on candidate runs against a baseline, judged on the
// run-to-run noise of each point on its machine (runner/analysis/compare.hpp, docs/ci.md).
#include "analysis/compare.hpp"
#include "analysis/siblings.hpp"
#include "analysis/verdict_junit.hpp"
#include "commands.hpp"
#include "core/catalog.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/run_dates.hpp"
#include "core/text.hpp"
#include "core/vocabulary.hpp"
#include "run/run.hpp"
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
  bool all = false, pool = false, only_changed = false, power = false;
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
    NoiseModel own = NoiseModel::from_runs(runs, {}, ids);
    own.lend_across_gpus = false; // each GPU on its own noise (docs/siblings.md)
    const SiblingVerdict verdict = judge_siblings(set, own);
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

void print_verdicts(const std::vector<Verdict>& verdicts, const CompareArgs& args) {
  FormatOptions format;
  format.only_changed = args.only_changed;
  format.power = args.power;
  if (args.format == "json")
    std::cout << to_json(verdicts, format).dump(2, ' ', false, json::error_handler_t::replace)
              << "\n";
  else if (args.format == "markdown")
    std::cout << format_markdown(verdicts, format);
  else if (args.format == "junit")
    std::cout << format_junit(verdicts);
  else
    std::cout << format_text(verdicts, format);
}

/// `apod confirm`: the newest run (or the one named) judged against the baseline; the
/// experiments holding a regression or an unconfirmed slowdown re-measured `repeat` times on this
/// GPU (each repeat runs them in turn, so no transient spans the re-measures of one point), and
/// the verdict given again on the median of the re-measures (judge_confirmed, docs/ci.md).
int run_confirm(const CompareArgs& args, int repeat, const std::string& device) {
  const CompareOptions options = load_options(args);
  check_database_path(args.db);
  std::vector<RunRecord> runs;
  std::string base_id, cand_id;
  {
    Store store(args.db, Store::Mode::read_only);
    const bool named = !args.runs.empty() && args.runs[0] != pinned_word;
    base_id = named ? store.resolve_run_id(args.runs[0]) : pinned_baseline(store, args.db);
    runs = store.read_runs();
    const std::vector<std::string> ids = choose_candidates(args, store, runs, base_id);
    if (ids.size() != 1)
      throw InputError("apod confirm re-measures one run: name one candidate (BASELINE CANDIDATE)");
    cand_id = ids.front();
  }
  const RunRecord& base = find_run(runs, base_id);
  const RunRecord& cand = find_run(runs, cand_id);
  const Verdict first =
      judge(base, cand, NoiseModel::for_candidate(runs, cand_id, {cand_id}), options);
  const std::set<std::string> experiments = experiments_to_confirm(first);
  if (experiments.empty()) {
    std::cerr << "apod confirm: nothing to re-measure (no regression and no unconfirmed "
                 "slowdown in run "
              << terminal_text(cand_id) << ")\n";
    print_verdicts({first}, args);
    return first.exit_code();
  }
  if (device_count() == 0)
    throw no_device_error("apod confirm");
  RunRequest req;
  req.db_path = args.db;
  req.only.assign(experiments.begin(), experiments.end());
  req.repeat = repeat;
  req.label = "apod confirm: re-measures of " + cand_id;
  if (device == "auto") {
    // The GPU that ran the candidate, by UUID: a re-measure on another GPU would judge the GPU,
    // not the build.
    req.options.device = -1;
    for (int d = 0; d < device_count(); ++d)
      if (query_device(d).uuid == cand.device.uuid)
        req.options.device = d;
    if (req.options.device < 0)
      throw InputError("run " + cand_id + " ran on GPU " + cand.device.uuid +
                       ", which is not on this machine: apod confirm re-measures on the GPU that "
                       "ran the candidate (or name one with --device N)");
  } else {
    try {
      size_t used = 0;
      req.options.device = std::stoi(device, &used);
      if (used != device.size() || req.options.device < 0)
        throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw InputError("--device must be a device ordinal (0, 1, ...) or auto, not '" + device +
                       "'");
    }
  }
  req.show_progress = false;
  std::cerr << fmt::format("apod confirm: re-measuring {} ({} times, in turn) for run {}\n",
                           fmt::join(req.only, ", "), repeat, terminal_text(cand_id));
  const auto outcomes = run_matrix(req, std::cerr);
  std::set<std::string> remeasure_ids;
  for (const auto& o : outcomes)
    remeasure_ids.insert(o.run_id);
  std::vector<RunRecord> after;
  {
    Store store(args.db, Store::Mode::read_only);
    after = store.read_runs();
  }
  std::vector<const RunRecord*> remeasured;
  for (const RunRecord& r : after)
    if (remeasure_ids.count(r.id))
      remeasured.push_back(&r);
  const RunRecord& base2 = find_run(after, base_id);
  std::set<std::string> excluded = remeasure_ids;
  excluded.insert(cand_id);
  const NoiseModel noise = NoiseModel::from_runs(after, excluded);
  const Verdict final_verdict = judge_confirmed(first, base2, remeasured, noise, options);
  print_verdicts({final_verdict}, args);
  return final_verdict.exit_code();
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

  print_verdicts(verdicts, args);
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
                 "on a regression, 7 when inconclusive, 2 when nothing could be compared");
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
                  "smallest change that counts, for every class, as a percentage (\"5%\") or a "
                  "fraction (\"0.05\"); default per class: 1.5% device memory and on-chip, 3% "
                  "links, 10% host phases");
  cmp->add_flag("--only-changed", args->only_changed, "leave out the points that stayed the same");
  cmp->add_flag("--power", args->power,
                "print what the compare could see: per class and per experiment taken whole, the "
                "smallest slowdown it would flag with the history at hand, and what an "
                "inconclusive one needs");
  auto* siblings = cmp->add_flag(
      "--siblings", args->siblings,
      "judge the GPUs of one host against each other (no baseline): RUN... names their runs; "
      "default the newest `apod run --device all`, --all every one; exit 1 when a GPU is slower "
      "than its siblings");
  for (const char* other : {"--baseline-db", "--batch", "--pool", "--config", "--threshold",
                            "--only-changed", "--power"})
    siblings->excludes(cmp->get_option(other));
  cmp->add_option("--format", args->format,
                  "text, markdown (a CI job summary, within GitHub's 1 MiB), json, or junit (JUnit "
                  "XML for CI test reporters: a test case per gated point, experiment taken whole "
                  "and point left out)")
      ->check(CLI::IsMember({"text", "markdown", "json", "junit"}))
      ->capture_default_str();
  cmp->callback([&action, args, batch] {
    args->batch_given = batch->count() > 0; // `--batch ""` is given too, and refused
    action = [args] { return run_compare(*args); };
  });
}

void add_confirm(CLI::App& app, Action& action) {
  auto args = std::make_shared<CompareArgs>();
  auto repeat = std::make_shared<int>(3);
  auto device = std::make_shared<std::string>("auto");
  auto* confirm = app.add_subcommand(
      "confirm", "re-measure what compare left unconfirmed or flagged in the newest run, then "
                 "judge again: exit 0, 1 (regression), 7 (inconclusive) or 2 as compare");
  confirm->add_option("runs", args->runs,
                      "[BASELINE [CANDIDATE]]: run ids or prefixes (default: the pinned "
                      "baseline and the newest other run)");
  confirm
      ->add_option("--db", args->db, "database holding the runs; the re-measures are stored in it")
      ->capture_default_str();
  confirm
      ->add_option("--device", *device,
                   "CUDA device ordinal to re-measure on; auto: the GPU that ran the candidate "
                   "(by UUID)")
      ->capture_default_str();
  confirm->add_option("--repeat", *repeat, "re-measures of each flagged experiment, taken in turn")
      ->check(CLI::Range(2, 20))
      ->capture_default_str();
  confirm->add_option("--config", args->config, "JSON options, as for compare")
      ->check(CLI::ExistingFile);
  confirm->add_option("--threshold", args->threshold, "as for compare");
  confirm->add_flag("--only-changed", args->only_changed,
                    "leave out the points that stayed the same");
  confirm->add_flag("--power", args->power, "as for compare");
  confirm->add_option("--format", args->format, "text, markdown, json or junit")
      ->check(CLI::IsMember({"text", "markdown", "json", "junit"}))
      ->capture_default_str();
  confirm->callback([&action, args, repeat, device] {
    action = [args, repeat, device] { return run_confirm(*args, *repeat, *device); };
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
