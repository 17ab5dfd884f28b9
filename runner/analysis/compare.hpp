// `apod compare`: the verdict on a candidate run (or a batch of runs) against a baseline run.
// Points are paired by comparability key; each pair's change, ln(candidate / baseline) turned so
// that positive is slower, is tested against the run-to-run noise of that point on that machine
// (noise.hpp), the p-values of all gated points are adjusted together (Holm: the family-wise
// error rate holds whatever the dependence between points), and a significant slowdown beyond
// the threshold is a regression. Beside the points, each experiment's gated points of one class
// are also taken whole (the median of their slowdowns, against the run-to-run noise of that
// median, noise.hpp) in the same Holm family: a slowdown of a whole experiment is found even where
// single points are too noisy to show it (a 5% slowdown of every pinned transfer on an H100
// whose PCIe transfers hiccup 5-8% for a whole point now and then), while a transient on one
// point moves the median not at all. docs/ci.md documents the model, its defaults and how they were
// measured, the false-alarm rate and the smallest change detected per class.
#pragma once

#include "analysis/metric_class.hpp"
#include "analysis/noise.hpp"
#include "analysis/verdict_word.hpp"
#include "core/run_record.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace apod {

struct CompareOptions {
  /// One threshold for every class (--threshold, a --config file's "threshold"); unset, each
  /// class has its own (ClassDefaults::threshold: 1.5% device memory and on-chip, 3% links, 10%
  /// host phases; docs/ci.md says why).
  std::optional<double> threshold;
  double fwer = 0.01; ///< family-wise error rate of one compare (Holm over the gated points)
  std::map<std::string, double> experiment_threshold; ///< per-experiment override
  /// A change must exceed this to count, and a point that cannot see it is inconclusive.
  double threshold_for(const std::string& experiment, MetricClass c) const;
};

/// Parses a `--config` file: {"threshold": 0.01, "fwer": 0.01, "experiments": {"EXPERIMENT":
/// {"threshold": 0.10}}}. Throws InputError naming the bad field.
CompareOptions parse_compare_config(const json& doc);

/// A threshold from the command line: "5%" or a fraction ("0.05"). A bare number of 1 or more is
/// refused (InputError) with a message saying which is meant: "5" is 500%, not 5%.
double parse_threshold(const std::string& text);

/// The direction of a significant change; the word a reader sees is wording(decision_of(point))
/// (verdict_word.hpp), which also says whether a slowdown gates.
enum class Change { same, faster, slower };

/// What a compare says of a run (and of a batch: the worst of its runs'): a regression, no
/// regression where every gated figure could have shown a change of its threshold, or
/// inconclusive where some could not (no history of the machine, too few runs, noise beyond the
/// threshold, or a slowdown that needs re-measuring: `apod confirm`). Nothing compared: no point
/// paired at all.
enum class Outcome { no_regression, inconclusive, regression, nothing_compared };
/// "REGRESSION", "NO REGRESSION", "INCONCLUSIVE", "NOTHING COMPARED".
const char* outcome_word(Outcome o);
/// The exit code of an outcome: 0, 7 (exit_inconclusive), 1, 2.
int exit_code_of(Outcome o);

/// One point compared: the run-level figures and what the noise model says of their difference.
struct PointVerdict {
  std::string key, experiment, metric, unit;
  Direction direction = Direction::higher;
  json params;
  MetricClass metric_class = MetricClass::device_memory;
  bool gated = true;
  double baseline = 0, candidate = 0; ///< run medians (a batch: the geometric mean of its runs')
  double slowdown = 0; ///< ln of the slowdown factor: > 0 slower, < 0 faster, in any unit
  double noise = 0;    ///< standard deviation of that difference under no change
  double df = 0;       ///< of its t reference
  /// Two tests of one change (docs/ci.md, "Two tails"). p: against the class's heavy tails
  /// (ClassDefaults::tail_df: a whole point hiccups now and then), which a slowdown must pass to
  /// gate on one run's measurement. p_light: against the noise estimate's own df, as for a
  /// measurement that repeats: a slowdown it finds and the heavy test does not is unconfirmed
  /// until `apod confirm` re-measures it. Both Holm-adjusted within the point's family.
  double p = 1, p_adjusted = 1;
  double p_light = 1, p_light_adjusted = 1;
  double df_light = 0;  ///< df of p_light (the estimate's own; the class cap for class defaults)
  double threshold = 0; ///< the point's threshold (CompareOptions::threshold_for)
  /// Smallest slowdown factor - 1 this pair can flag once confirmed (the light test), and
  /// on one measurement alone (the heavy test); never below the threshold.
  double detectable = 0, detectable_alone = 0;
  NoiseSource noise_source = NoiseSource::class_default;
  int history_runs = 0;
  Change change = Change::same;
  /// The candidate's own point missed its precision target (Measurement::noisy): a slowdown
  /// there is reported as unconfirmed and does not gate. On 8 back-to-back H100 runs every false
  /// alarm was such a point (littles_law, a 4 ms window shifted 6-8%); a real regression moves
  /// points that measured cleanly too, and `apod confirm` re-measures it (docs/ci.md).
  bool noisy_candidate = false;
  /// Slower beyond the threshold by the light test only: a regression if re-measuring confirms it.
  bool suspect = false;
  /// Judged on `apod confirm`'s re-measures (judge_confirmed): the light test gates.
  bool confirmed = false;
  bool regression = false;
  /// A regression by the size of the change alone (gross_point, ClassDefaults::gross_whole),
  /// found where no history could give the noise.
  bool gross = false;
  /// Gated, no significant change, and the change it could detect exceeds its threshold: not
  /// "the same", since a change of the threshold would not have shown. `needs` says what would.
  bool inconclusive = false;
  std::string needs;
  /// 0 for a point; n > 0 for an experiment's n gated points of `metric_class` taken whole, whose
  /// slowdown is the median of theirs (baseline 1, candidate the relative level, unit "1").
  int points_taken_whole = 0;
  /// A gated slowdown beyond the threshold that needs re-measuring before it gates: the
  /// candidate measured the point as noisy, or only the light test finds it.
  bool unconfirmed() const {
    return gated && !regression && change == Change::slower && (noisy_candidate || suspect);
  }
  double factor() const; ///< exp(|slowdown|): "1.34x slower"
};

/// The key of an experiment's points of class `c` taken whole (PointVerdict::key of a whole).
inline std::string whole_key(const std::string& experiment, MetricClass c) {
  return "whole|" + experiment + "|" + class_name(c);
}

enum class LeftOutReason { new_point, removed, not_comparable, failed_baseline, failed_candidate };
const char* reason_name(LeftOutReason r);

struct LeftOut {
  std::string experiment, metric;
  json params;
  LeftOutReason reason = LeftOutReason::new_point;
  std::string detail; ///< why, in words (the failure text, what differs)
};

/// Who ran: what a reader needs to tell two runs apart.
struct RunFacts {
  std::string id, label, started_at, device, uuid, host, driver_branch;
  int runs = 1; ///< more than 1: a batch judged by its medians
  static RunFacts of(const RunRecord& run);
};

/// What one class of figures could show in a verdict: the smallest slowdown it would flag at the
/// configured error rate with the history at hand (docs/ci.md, "What a verdict could see").
struct ClassPower {
  MetricClass metric_class = MetricClass::device_memory;
  double threshold = 0;
  int points = 0, inconclusive = 0; ///< gated points of the class; of those, inconclusive
  int wholes = 0;                   ///< experiments of the class taken whole
  double point_median = 0;          ///< median detectable change of its points
  double whole_median = 0;          ///< median detectable change of its wholes (0: none)
  double whole_largest = 0;         ///< largest detectable change of its wholes (0: none)
  std::string least_sensitive;      ///< the experiment whose whole has the largest
  /// What the class could see, as the power line says it and the outcome uses it: the median
  /// of its experiments taken whole where it has them, else the median of its points.
  double headline() const { return wholes ? whole_median : point_median; }
};

struct Verdict {
  RunFacts baseline, candidate;
  bool same_machine = true;
  /// Runs of the candidate's GPU in the history (0: none, every point on class defaults).
  int history_runs = 0;
  double fwer = 0;
  std::optional<double> threshold; ///< one for every class, if the options set one
  int gated_points = 0;
  std::vector<PointVerdict> points; ///< in the order of their decisions (verdict_word.hpp)
  /// Each experiment's gated points of one class taken whole (PointVerdict::points_taken_whole),
  /// where its history gives the noise of their median; in the points' Holm family.
  std::vector<PointVerdict> wholes;
  std::vector<LeftOut> left_out;
  std::string nothing_compared;  ///< non-empty: why not one point could be compared
  int regressions() const;       ///< of points
  int whole_regressions() const; ///< of experiments taken whole
  int unconfirmed() const;       ///< slowdowns that need re-measuring, not gated
  int inconclusive() const;      ///< of gated points and wholes: could not see their threshold
  /// Gated classes (other than host-phase timings) whose detectable change, as the power line
  /// gives it, exceeds their threshold: these make the run inconclusive.
  int decisive_inconclusive() const;
  std::vector<ClassPower> power; ///< per gated class present, in metric_classes order
  int confirmation_runs = 0;     ///< re-measures behind the confirmed points (apod confirm)
  int count(Change c) const;     ///< of points, by the direction of their change alone
  int count(Decision d) const;   ///< of points, by compare's decision (verdict_word.hpp)
  int points_with_noise(NoiseSource s) const;
  Outcome outcome() const;
  /// 0 no regression, 1 a regression, 7 inconclusive, 2 nothing could be compared.
  int exit_code() const;
};

/// The verdict on `candidate` against `baseline`.
Verdict judge(const RunRecord& baseline, const RunRecord& candidate, const NoiseModel& noise,
              const CompareOptions& options = {});
/// The verdict the report shows at the top of its page: `candidate` against `baseline`, every
/// other run of `runs` (the database) history for the noise model.
Verdict judge_in(const std::vector<RunRecord>& runs, const RunRecord& baseline,
                 const RunRecord& candidate, const CompareOptions& options = {});
/// The verdict on several runs of one machine as one candidate, by each point's geometric mean
/// of run medians (its noise shrinks by the number of runs). Throws InputError if the runs are
/// of different machines.
Verdict judge_pooled(const RunRecord& baseline, const std::vector<const RunRecord*>& candidates,
                     const NoiseModel& noise, const CompareOptions& options = {});

/// The experiments holding a regression or an unconfirmed slowdown: what `apod confirm`
/// re-measures.
std::set<std::string> experiments_to_confirm(const Verdict& v);
/// `apod confirm`'s verdict: `first` (the candidate judged alone) with the points of the
/// experiments measured again in `remeasured` judged anew, on the median of their re-measures
/// (history: `noise`, which holds neither the candidate nor the re-measures). A slowdown that a
/// transient made does not repeat in the median; a regression does, and is found by the light
/// test (docs/ci.md, "Re-measuring before a verdict").
Verdict judge_confirmed(const Verdict& first, const RunRecord& baseline,
                        const std::vector<const RunRecord*>& remeasured, const NoiseModel& noise,
                        const CompareOptions& options = {});

/// The worst outcome of several verdicts (nothing compared over regression over inconclusive),
/// and its exit code.
Outcome outcome(const std::vector<Verdict>& verdicts);
int exit_code(const std::vector<Verdict>& verdicts);

struct FormatOptions {
  bool only_changed = false; ///< leave out the points whose verdict is "same"
  bool power = false;        ///< the full table of what each class and experiment could see
  /// markdown: leave out the rows of the same and inconclusive points (set by format_markdown
  /// itself when the summary would pass GitHub's 1 MiB).
  bool compact = false;
};
std::string format_text(const std::vector<Verdict>& verdicts, const FormatOptions& options = {});
std::string format_markdown(const std::vector<Verdict>& verdicts,
                            const FormatOptions& options = {});
json to_json(const std::vector<Verdict>& verdicts, const FormatOptions& options = {});
/// "INCONCLUSIVE: 0 regressions, 3 inconclusive, 2 faster, 1020 same of 1029 points; 0 of 13
/// experiments slower as a whole; 0 left out": the count line every format (and the report) opens
/// with, so that their counts agree.
std::string summary_line(const Verdict& v);
/// "with 7 runs of history on this GPU: device memory 1.2%, host/PCIe transfers 4.8%, ...": the
/// smallest slowdown each gated class would show (its experiments taken whole where it has them,
/// else the median of its points).
std::string power_line(const Verdict& v);
/// "1.34x slower", "1.020x faster", "same" (under 0.05%).
std::string change_text(const PointVerdict& p);

} // namespace apod
