// "Did anything change?": the compare verdict of the newest run against the pinned baseline
// (`apod baseline set RUN`, the store's baseline_run setting), for the first screen and the
// history. The only place the report calls apod compare's logic (runner/analysis/compare.hpp):
// when compare's verdict changes (issue 11), this file is the one to change.
#pragma once

#include "model.hpp"

#include "analysis/compare.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

struct BaselineVerdict {
  std::string pinned_id;                ///< as the caller gave it; empty: none pinned
  const RunView* baseline = nullptr;    ///< the pinned run, when it is among the runs
  const RunView* candidate = nullptr;   ///< the newest other run of the baseline's device model
  std::optional<Comparison> comparison; ///< compare_runs(baseline, candidate)
  std::string why_none;                 ///< when there is no comparison: why, in a sentence

  /// The compared pairs that are regressions, worst first (by the size of the change).
  std::vector<const PairResult*> regressions() const;
  /// The pairs whose verdict is `verdict` ("faster", "slower", "same", "inconclusive").
  std::size_t count(const std::string& verdict) const;
  /// The pair of a point of the candidate run (same experiment, metric and parameters), if
  /// compared.
  const PairResult* pair_for(const ExperimentView& experiment, const MetricView& metric,
                             const json& params) const;
};

/// The verdict of the newest run of the pinned run's device model (other than the pinned run)
/// against the pinned run, with compare's default settings. Without a pinned run, a pinned run
/// not among these runs, or no newer run of its model, why_none says so.
BaselineVerdict baseline_verdict(const PageModel& page, const std::string& pinned_id);

} // namespace apod::report
