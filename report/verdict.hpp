// "Did anything change?": the compare verdict of the newest run against the pinned baseline
// (`apod baseline set RUN`, the store's baseline_run setting), for the first screen and the
// history. The only place the report calls apod compare's logic (runner/analysis/compare.hpp):
// when compare's verdict changes (issue 11), this file is the one to change.
#pragma once

#include "model.hpp"

#include "analysis/compare.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace apod::report {

struct BaselineVerdict {
  std::string pinned_id;              ///< as the caller gave it; empty: none pinned
  const RunView* baseline = nullptr;  ///< the pinned run, when it is among the runs
  const RunView* candidate = nullptr; ///< the newest other run of the baseline's device model
  /// apod::judge of the candidate against the baseline, the page's other runs as the history
  /// of run-to-run noise (as judge_in does, without copying the runs).
  std::optional<Verdict> comparison;
  std::string why_none; ///< when there is no comparison: why, in a sentence

  /// The compared points that are regressions, worst first (by the size of the change).
  std::vector<const PointVerdict*> regressions() const;
  /// The compared points of compare's decision `decision` (analysis/verdict_word.hpp).
  std::size_t count(Decision decision) const;
  /// The verdict of the candidate's point `point` (core/point_key.hpp), if compared.
  const PointVerdict* pair_for(const PointKey& point) const;
  /// comparison->points by their PointKey (an index, so that a copy stays valid).
  std::unordered_map<PointKey, std::size_t, PointKeyHash> compared;
};

/// The candidate's change against the baseline as a signed fraction of the baseline's figure.
double relative_change(const PointVerdict& point);

/// The verdict of the newest run of the pinned run's device model (other than the pinned run)
/// against the pinned run, with compare's default settings (apod compare's own verdict). Without a
/// pinned run, a pinned run not among these runs, or no newer run of its model, why_none says so.
BaselineVerdict baseline_verdict(const PageModel& page, const std::string& pinned_id);

} // namespace apod::report
