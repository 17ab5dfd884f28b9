// "Did anything change?": the compare verdict of the newest run against the pinned baseline
// (`apod baseline set RUN`, the store's baseline_run setting) or, with none pinned, against the
// previous run of its machine, for the first screen, the markdown report and the history. The
// only place the report calls apod compare's logic (runner/analysis/compare.hpp): when compare's
// verdict changes (issue 11), this file is the one to change.
#pragma once

#include "headlines.hpp"
#include "model.hpp"

#include "analysis/compare.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace apod::report {

struct BaselineVerdict {
  std::string pinned_id; ///< as the caller gave it; empty: none pinned
  /// The run judged against: the pinned run when it is among the runs, else the previous run of
  /// the newest run's machine (see baseline_verdict).
  const RunView* baseline = nullptr;
  /// The baseline is the pinned run (false: the previous run of the machine, or none).
  bool pinned = false;
  /// The run judged: the newest other run of the pinned run's device model, or without a usable
  /// pin the newest run of the page. Set whenever there is one, with or without a comparison.
  const RunView* candidate = nullptr;
  /// apod::judge of the candidate against the baseline, the page's other runs as the history
  /// of run-to-run noise (as judge_in does, without copying the runs).
  std::optional<Verdict> comparison;
  std::string why_none; ///< when there is no comparison: why, in a sentence
  /// What the candidate is judged against, in words that say how it was chosen: "the pinned
  /// baseline nightly (0f535a14) (2026-02-01)" or "the previous run of this machine, nightly
  /// (0f536314) (2026-02-09); no baseline is pinned". Empty without a baseline.
  std::string against;

  /// The compared points that are regressions, worst first (by the size of the change).
  std::vector<const PointVerdict*> regressions() const;
  /// The compared points of compare's decision `decision` (analysis/verdict_word.hpp).
  std::size_t count(Decision decision) const;
  /// The verdict of the candidate's point `point` (core/point_key.hpp), if compared.
  const PointVerdict* pair_for(const PointKey& point) const;
  /// Whether the verdict judged a run of `model` (a comparison of its newest run).
  bool judges_model(const std::string& model) const {
    return comparison && candidate && candidate->device_model == model;
  }
  /// comparison->points by their PointKey (an index, so that a copy stays valid).
  std::unordered_map<PointKey, std::size_t, PointKeyHash> compared;
};

/// The candidate's change against the baseline as a signed fraction of the baseline's figure.
double relative_change(const PointVerdict& point);

/// The verdict of the newest run of the pinned run's device model (other than the pinned run)
/// against the pinned run, with compare's default settings (apod compare's own verdict). Without a
/// pin, or with a pin not among these runs, the newest run of the page against the previous run
/// of its machine (same host and GPU, RunView::machine_key), judged the same way. With one run,
/// no earlier run of the machine, or nothing in common, why_none says so.
BaselineVerdict baseline_verdict(const PageModel& page, const std::string& pinned_id);

/// A headline figure as the first screen and the markdown set it (issue 25): the newest run's
/// value, not the median of all runs, against the baseline's where the verdict judged its model.
struct HeadlineAgainst {
  bool judged = false;                ///< the verdict judged the series' device model
  const PointView* newest = nullptr;  ///< the candidate's point (judged), else the series' newest
  const PointView* base = nullptr;    ///< the baseline run's point (judged only)
  const PointVerdict* pair = nullptr; ///< compare's verdict on the point, where it paired it
  /// compare's run medians where it paired the point (the row and the verdict agree), else the
  /// points' medians; change is newest / base - 1.
  std::optional<double> newest_value, base_value, change;
};

/// `series` against the baseline of `verdict`; for a model the verdict did not judge, the
/// series' newest point alone.
HeadlineAgainst headline_against(const HeadlineSeries& series, const BaselineVerdict& verdict);

/// The run as a reader finds it in the runs table: "nightly (0f535a14) (2026-02-01)".
std::string run_words(const RunView& run);

/// The outcome word of the verdict: compare's (outcome_word), NOTHING COMPARED without one.
const char* verdict_word(const BaselineVerdict& verdict);

} // namespace apod::report
