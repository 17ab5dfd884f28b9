#include "verdict.hpp"

#include "format.hpp"

#include "core/run_dates.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>

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

std::string run_words(const RunView& run) {
  std::string text = run.name;
  if (!run.started_at.empty())
    text += " (" + format_date(run.started_at) + ")";
  return text;
}

const char* verdict_word(const BaselineVerdict& verdict) {
  return outcome_word(verdict.comparison ? verdict.comparison->outcome()
                                         : Outcome::nothing_compared);
}

HeadlineAgainst headline_against(const HeadlineSeries& series, const BaselineVerdict& verdict) {
  HeadlineAgainst row;
  row.judged = verdict.judges_model(series.device_model);
  if (!row.judged) {
    row.newest = series.newest();
    if (row.newest)
      row.newest_value = row.newest->median;
    return row;
  }
  row.newest = series.point_in(verdict.candidate);
  row.base = series.point_in(verdict.baseline);
  row.pair = verdict.pair_for(*series.headline->key);
  if (row.pair) {
    row.newest_value = row.pair->candidate;
    row.base_value = row.pair->baseline;
    row.change = relative_change(*row.pair);
    return row;
  }
  if (row.newest)
    row.newest_value = row.newest->median;
  if (row.base)
    row.base_value = row.base->median;
  if (row.newest_value && row.base_value && *row.base_value != 0)
    row.change = *row.newest_value / *row.base_value - 1;
  return row;
}

namespace {

// The runs oldest first, as runs_of_model orders them: by started_at, then document order.
std::vector<const RunView*> runs_in_time_order(const PageModel& page) {
  std::vector<const RunView*> runs;
  for (const auto& run : page.runs)
    runs.push_back(&run);
  std::stable_sort(runs.begin(), runs.end(), [](const RunView* a, const RunView* b) {
    return std::tie(a->started_at, a->index) < std::tie(b->started_at, b->index);
  });
  return runs;
}

// The candidate against the baseline with the page's other runs as the history of run-to-run
// noise, as judge_in does without copying the runs: the same rule with a pin and without.
void judge_candidate(const PageModel& page, BaselineVerdict& verdict) {
  std::vector<const RunRecord*> history;
  for (const auto& run : page.runs)
    history.push_back(run.run);
  verdict.comparison =
      judge(*verdict.baseline->run, *verdict.candidate->run,
            NoiseModel::from_runs(history, {verdict.candidate->id}), CompareOptions{});
  if (!verdict.comparison->nothing_compared.empty()) {
    verdict.why_none = "Nothing of the newest run " + run_words(*verdict.candidate) +
                       " could be compared with " + verdict.against + ": " +
                       verdict.comparison->nothing_compared + ".";
    verdict.comparison.reset();
    return;
  }
  for (std::size_t i = 0; i < verdict.comparison->points.size(); ++i) {
    const PointVerdict& point = verdict.comparison->points[i];
    verdict.compared.emplace(PointKey::of(point.experiment, point.metric, point.params), i);
  }
}

} // namespace

BaselineVerdict baseline_verdict(const PageModel& page, const std::string& pinned_id) {
  BaselineVerdict verdict;
  verdict.pinned_id = pinned_id;
  // The newest run as compare takes it: the last to start, leaving out a run dated beyond this
  // machine's clock (run_dates.hpp), which would otherwise be "the newest" for ever.
  const UtcTime now = utc_now();
  const auto within_clock = [&](const RunView* run) {
    return !date_from_the_future(*run->run, now);
  };
  std::string pin_note = "no baseline is pinned";
  if (!pinned_id.empty()) {
    for (const auto& run : page.runs)
      if (run.id == pinned_id)
        verdict.baseline = &run;
    if (verdict.baseline) {
      verdict.pinned = true;
      const auto runs = page.runs_of_model(verdict.baseline->device_model);
      for (auto run = runs.rbegin(); run != runs.rend() && !verdict.candidate; ++run)
        if (*run != verdict.baseline && within_clock(*run))
          verdict.candidate = *run;
      if (!verdict.candidate) {
        verdict.why_none = "No other run of " + verdict.baseline->device_model +
                           " besides the pinned baseline: nothing to judge yet.";
        return verdict;
      }
      verdict.against = "the pinned baseline " + run_words(*verdict.baseline);
      judge_candidate(page, verdict);
      return verdict;
    }
    pin_note = "the pinned baseline " + std::string(text_prefix(pinned_id, 12)) +
               " is not among the runs of this report";
  }
  // No usable pin (issue 25). A page of twelve runs that answered nothing until a baseline was
  // pinned left the CI owner to read the answer out of the charts. As asv's `continuous` and
  // Conbench's lookback do, the newest run is then judged against the previous run of its own
  // machine (same host and GPU uuid, RunView::machine_key: another machine's run would measure
  // the machine, not the change), with the page's other runs as the noise history exactly as
  // with a pin, and the words say so. A run of another machine of the same model is never taken.
  const auto runs = runs_in_time_order(page);
  auto newest = runs.rbegin();
  while (newest != runs.rend() && !within_clock(*newest))
    ++newest;
  if (newest == runs.rend()) {
    verdict.why_none = "No run of this report is dated within this machine's clock: nothing to "
                       "judge; " +
                       pin_note + ".";
    return verdict;
  }
  verdict.candidate = *newest;
  for (auto run = std::next(newest); run != runs.rend() && !verdict.baseline; ++run)
    if ((*run)->machine_key == verdict.candidate->machine_key)
      verdict.baseline = *run;
  if (!verdict.baseline) {
    verdict.why_none = runs.size() == 1 ? "Only one run, " + run_words(*verdict.candidate) +
                                              ": nothing to compare it with yet; " + pin_note + "."
                                        : "No earlier run of the newest run's machine (" +
                                              verdict.candidate->machine_label + ") than " +
                                              run_words(*verdict.candidate) +
                                              ": nothing to compare it with; " + pin_note + ".";
    return verdict;
  }
  verdict.against =
      "the previous run of this machine, " + run_words(*verdict.baseline) + "; " + pin_note;
  judge_candidate(page, verdict);
  return verdict;
}

} // namespace apod::report
