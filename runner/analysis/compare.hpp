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
#include <string>
#include <vector>

namespace apod {

struct CompareOptions {
  double threshold = 0.015; ///< a change must also exceed this (docs/ci.md: why 1.5%)
  double fwer = 0.01;       ///< family-wise error rate of one compare (Holm over the gated points)
  std::map<std::string, double> experiment_threshold; ///< per-experiment override
  double threshold_for(const std::string& experiment) const;
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

/// One point compared: the run-level figures and what the noise model says of their difference.
struct PointVerdict {
  std::string key, experiment, metric, unit;
  Direction direction = Direction::higher;
  json params;
  MetricClass metric_class = MetricClass::device_memory;
  bool gated = true;
  double baseline = 0, candidate = 0; ///< run medians (a batch: the geometric mean of its runs')
  double slowdown = 0;          ///< ln of the slowdown factor: > 0 slower, < 0 faster, in any unit
  double noise = 0;             ///< standard deviation of that difference under no change
  double df = 0;                ///< of its t reference
  double p = 1, p_adjusted = 1; ///< two-sided; Holm-adjusted within gated (or derived) points
  double detectable = 0;        ///< smallest slowdown factor - 1 this pair can flag
  NoiseSource noise_source = NoiseSource::class_default;
  int history_runs = 0;
  Change change = Change::same;
  /// The candidate's own point missed its precision target (Measurement::noisy): a slowdown
  /// there is reported as unconfirmed and does not gate. On 8 back-to-back H100 runs every false
  /// alarm was such a point (littles_law, a 4 ms window shifted 6-8%); a real regression moves
  /// points that measured cleanly too, and `--pool` over repeats confirms one (docs/ci.md).
  bool noisy_candidate = false;
  bool regression = false;
  /// 0 for a point; n > 0 for an experiment's n gated points of `metric_class` taken whole, whose
  /// slowdown is the median of theirs (baseline 1, candidate the relative level, unit "1").
  int points_taken_whole = 0;
  /// A gated slowdown beyond the threshold on a point the candidate measured as noisy.
  bool unconfirmed() const { return gated && change == Change::slower && noisy_candidate; }
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

struct Verdict {
  RunFacts baseline, candidate;
  bool same_machine = true;
  double threshold = 0, fwer = 0;
  int gated_points = 0;
  std::vector<PointVerdict> points; ///< in the order of their decisions (verdict_word.hpp)
  /// Each experiment's gated points of one class taken whole (PointVerdict::points_taken_whole),
  /// where its history gives the noise of their median; in the points' Holm family.
  std::vector<PointVerdict> wholes;
  std::vector<LeftOut> left_out;
  std::string nothing_compared;  ///< non-empty: why not one point could be compared
  int regressions() const;       ///< of points
  int whole_regressions() const; ///< of experiments taken whole
  int unconfirmed() const;       ///< slowdowns on points noisy in the candidate, not gated
  int count(Change c) const;     ///< of points, by the direction of their change alone
  int count(Decision d) const;   ///< of points, by compare's decision (verdict_word.hpp)
  int points_with_noise(NoiseSource s) const;
  /// 0 no regression, 1 a regression, 2 nothing could be compared.
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

/// The worst exit code of several verdicts (2 over 1 over 0).
int exit_code(const std::vector<Verdict>& verdicts);

struct FormatOptions {
  bool only_changed = false; ///< leave out the points whose verdict is "same"
};
std::string format_text(const std::vector<Verdict>& verdicts, const FormatOptions& options = {});
std::string format_markdown(const std::vector<Verdict>& verdicts,
                            const FormatOptions& options = {});
json to_json(const std::vector<Verdict>& verdicts, const FormatOptions& options = {});
/// "1.34x slower", "1.020x faster", "same" (under 0.05%).
std::string change_text(const PointVerdict& p);

} // namespace apod
