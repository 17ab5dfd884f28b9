#include "verdict.hpp"

#include <algorithm>
#include <cmath>

namespace apod::report {

std::vector<const PairResult*> BaselineVerdict::regressions() const {
  std::vector<const PairResult*> found;
  if (!comparison)
    return found;
  for (const auto& pair : comparison->pairs)
    if (pair.regression)
      found.push_back(&pair);
  std::stable_sort(found.begin(), found.end(), [](const PairResult* a, const PairResult* b) {
    return std::fabs(a->change) > std::fabs(b->change);
  });
  return found;
}

std::size_t BaselineVerdict::count(const std::string& verdict) const {
  if (!comparison)
    return 0;
  return std::count_if(comparison->pairs.begin(), comparison->pairs.end(),
                       [&](const PairResult& p) { return p.verdict == verdict; });
}

const PairResult* BaselineVerdict::pair_for(const ExperimentView& experiment,
                                            const MetricView& metric, const json& params) const {
  if (!comparison)
    return nullptr;
  for (const auto& pair : comparison->pairs)
    if (pair.experiment == experiment.name && pair.metric == metric.metric &&
        pair.unit == metric.unit && pair.params == params)
      return &pair;
  return nullptr;
}

BaselineVerdict baseline_verdict(const PageModel& page, const std::string& pinned_id) {
  BaselineVerdict verdict;
  verdict.pinned_id = pinned_id;
  if (pinned_id.empty()) {
    verdict.why_none = "No baseline is pinned: `apod baseline set RUN` pins the run that later "
                       "runs are judged against.";
    return verdict;
  }
  for (const auto& run : page.runs)
    if (run.id == pinned_id)
      verdict.baseline = &run;
  if (!verdict.baseline) {
    verdict.why_none =
        "The pinned baseline " + pinned_id.substr(0, 12) + " is not among the runs of this report.";
    return verdict;
  }
  const auto runs = page.runs_of_model(verdict.baseline->device_model);
  for (auto run = runs.rbegin(); run != runs.rend() && !verdict.candidate; ++run)
    if (*run != verdict.baseline)
      verdict.candidate = *run;
  if (!verdict.candidate) {
    verdict.why_none = "No other run of " + verdict.baseline->device_model +
                       " besides the pinned baseline: nothing to judge yet.";
    return verdict;
  }
  verdict.comparison =
      compare_runs(*verdict.baseline->run, *verdict.candidate->run, CompareConfig{});
  return verdict;
}

} // namespace apod::report
