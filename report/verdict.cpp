#include "verdict.hpp"

#include "core/run_dates.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cmath>

namespace apod::report {

std::vector<const PointVerdict*> BaselineVerdict::regressions() const {
  std::vector<const PointVerdict*> found;
  if (!comparison)
    return found;
  for (const auto* list : {&comparison->wholes, &comparison->points})
    for (const auto& point : *list)
      if (point.regression)
        found.push_back(&point);
  // Experiments slower as a whole first (the news a reader wants), then points, largest first.
  std::stable_sort(found.begin(), found.end(), [](const PointVerdict* a, const PointVerdict* b) {
    if ((a->points_taken_whole > 0) != (b->points_taken_whole > 0))
      return a->points_taken_whole > 0;
    return std::fabs(a->slowdown) > std::fabs(b->slowdown);
  });
  return found;
}

std::size_t BaselineVerdict::count(Decision decision) const {
  return comparison ? static_cast<std::size_t>(comparison->count(decision)) : 0;
}

const PointVerdict* BaselineVerdict::pair_for(const PointKey& point) const {
  const auto it = compared.find(point);
  return comparison && it != compared.end() ? &comparison->points[it->second] : nullptr;
}

double relative_change(const PointVerdict& point) {
  return point.baseline > 0 ? point.candidate / point.baseline - 1 : 0;
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
    verdict.why_none = "The pinned baseline " + std::string(text_prefix(pinned_id, 12)) +
                       " is not among the runs of this report.";
    return verdict;
  }
  // The newest run as compare takes it: the last to start, leaving out a run dated beyond this
  // machine's clock (run_dates.hpp), which would otherwise be "the newest" for ever.
  const auto runs = page.runs_of_model(verdict.baseline->device_model);
  const UtcTime now = utc_now();
  for (auto run = runs.rbegin(); run != runs.rend() && !verdict.candidate; ++run)
    if (*run != verdict.baseline && !date_from_the_future(*(*run)->run, now))
      verdict.candidate = *run;
  if (!verdict.candidate) {
    verdict.why_none = "No other run of " + verdict.baseline->device_model +
                       " besides the pinned baseline: nothing to judge yet.";
    return verdict;
  }
  std::vector<const RunRecord*> history;
  for (const auto& run : page.runs)
    history.push_back(run.run);
  verdict.comparison =
      judge(*verdict.baseline->run, *verdict.candidate->run,
            NoiseModel::from_runs(history, {verdict.candidate->id}), CompareOptions{});
  if (!verdict.comparison->nothing_compared.empty()) {
    verdict.why_none =
        "Nothing of the newest run " + verdict.candidate->name +
        " could be compared with the pinned baseline: " + verdict.comparison->nothing_compared +
        ".";
    verdict.comparison.reset();
    return verdict;
  }
  for (std::size_t i = 0; i < verdict.comparison->points.size(); ++i) {
    const PointVerdict& point = verdict.comparison->points[i];
    verdict.compared.emplace(PointKey::of(point.experiment, point.metric, point.params), i);
  }
  return verdict;
}

} // namespace apod::report
