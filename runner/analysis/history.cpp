#include "analysis/history.hpp"

#include "analysis/noise.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace apod {

namespace {

using apod::median_of; // noise.hpp's, beside the range overload below

double median_of(const std::vector<double>& x, int from, int to) {
  return median_of(std::vector<double>(x.begin() + from, x.begin() + to));
}

double mad_sigma(const std::vector<double>& v) {
  const double center = median_of(v);
  std::vector<double> deviations;
  for (double x : v)
    deviations.push_back(std::abs(x - center));
  return 1.4826 * median_of(deviations);
}

// The run-to-run spread of x[from..to) from its successive differences (all but x[skip] -
// x[skip - 1], the step being tested), centred on their median so a steady drift does not count
// as noise, and winsorised so that spikes barely count while a point that flips between two
// levels keeps its spread (a MAD would call that noise zero): the differences are capped at
// their 90th percentile, and in a short window at their third largest (a one-run spike makes two
// large differences). 0.8313 = E[min(|Z|, 1.645)^2] for a normal Z.
double diff_sigma(const std::vector<double>& x, int from, int to, int skip = -1) {
  std::vector<double> d;
  for (int i = from + 1; i < to; ++i)
    if (i != skip)
      d.push_back(x[i] - x[i - 1]);
  if (d.size() < 3)
    return 0;
  const double center = median_of(d);
  std::vector<double> deviations;
  for (double v : d)
    deviations.push_back(std::abs(v - center));
  std::sort(deviations.begin(), deviations.end());
  const size_t n = deviations.size();
  const double cap = deviations[std::min(static_cast<size_t>(0.9 * (n - 1)), n - 3)];
  double sum = 0;
  for (double v : deviations)
    sum += std::pow(std::min(v, cap), 2);
  return std::sqrt(sum / n / 0.8313 / 2);
}

double series_sigma(const std::vector<double>& x) {
  return diff_sigma(x, 0, static_cast<int>(x.size()));
}

// Theil-Sen slope of x[from..to) against the run index (Sen 1968).
double theil_sen(const std::vector<double>& x, int from, int to) {
  std::vector<double> slopes;
  for (int i = from; i < to; ++i)
    for (int j = i + 1; j < to; ++j)
      slopes.push_back((x[j] - x[i]) / (j - i));
  return slopes.empty() ? 0 : median_of(slopes);
}

// Whether x[from..to) is a level rather than a slope: its Theil-Sen trend over the window moves
// it by less than half of `shift`. A ramp is a drift, not a step; a look-back window that holds
// an excursion is no level to step from.
bool is_level(const std::vector<double>& x, int from, int to, double shift) {
  return std::abs(theil_sen(x, from, to) * (to - from - 1)) < std::abs(shift) / 2;
}

std::vector<double> logs_of(const std::vector<double>& series) {
  std::vector<double> x;
  for (double v : series)
    x.push_back(std::log(v > 0 ? v : 1e-300));
  return x;
}

} // namespace

std::vector<ChangePoint> detect_steps(const std::vector<double>& series, const StepDetector& d) {
  const std::vector<double> x = logs_of(series);
  const int n = static_cast<int>(x.size());
  const double long_spread = n > 20 ? series_sigma(x) : 0;
  std::vector<ChangePoint> steps;
  int level_start = 0; // the old level is measured only from here: never across an earlier step
  for (int i = 1; i + d.confirm <= n; ++i) {
    const int from = std::max(level_start, i - d.window);
    if (i - from < d.min_window)
      continue;
    const double level = median_of(x, from, i), after = median_of(x, i, i + d.confirm);
    const double shift = after - level;
    const bool sustained = std::all_of(x.begin() + i, x.begin() + i + d.confirm, [&](double v) {
      return shift > 0 ? v > level + shift / 2 : v < level + shift / 2;
    });
    if (std::abs(std::expm1(shift)) <= d.min_change_rel || !sustained)
      continue; // the cheap tests first: most runs of a long history stop here
    // The noise: the largest of the look-back window's MAD, the spread between successive runs
    // around the candidate step (both windows, the step's own difference left out) and, once the
    // series is long enough for its 90th percentile to leave spikes out, the whole series'.
    const std::vector<double> before(x.begin() + from, x.begin() + i);
    const double spread = diff_sigma(x, from, i + d.confirm, i);
    const double noise = std::max({mad_sigma(before), spread, long_spread, d.min_noise_rel});
    const double z = std::abs(shift) / noise;
    if (z > d.z && is_level(x, from, i, shift) && is_level(x, i, i + d.confirm, shift)) {
      steps.push_back({i, std::exp(level), std::exp(after), std::expm1(shift), z});
      level_start = i;
      i += d.confirm - 1;
    }
  }
  return steps;
}

std::vector<Drift> detect_drifts(const std::vector<double>& series, const DriftDetector& d,
                                 const StepDetector& step_detector) {
  return detect_drifts(series, detect_steps(series, step_detector), d);
}

std::vector<Drift> detect_drifts(const std::vector<double>& series,
                                 const std::vector<ChangePoint>& steps, const DriftDetector& d) {
  const std::vector<double> x = logs_of(series);
  const int n = static_cast<int>(x.size());
  const double noise = std::max(series_sigma(x), d.min_noise_rel);
  std::vector<int> bounds = {0};
  for (const ChangePoint& c : steps)
    bounds.push_back(c.index);
  bounds.push_back(n);
  std::vector<Drift> drifts;
  for (size_t s = 0; s + 1 < bounds.size(); ++s) {
    const int end = bounds[s + 1];
    for (int j = bounds[s]; j + d.reference_runs < end;) {
      const double reference = median_of(x, j, j + d.reference_runs);
      double up = 0, down = 0;
      int up_start = j + d.reference_runs, down_start = up_start, next = end;
      for (int t = j + d.reference_runs; t < end; ++t) {
        const double z = std::clamp((x[t] - reference) / noise, -d.clip, d.clip);
        up = std::max(0.0, up + z - d.k);
        down = std::max(0.0, down - z - d.k);
        if (up == 0)
          up_start = t + 1;
        if (down == 0)
          down_start = t + 1;
        if (up <= d.h && down <= d.h)
          continue;
        if (t + d.confirm >= end)
          break; // not yet confirmable: no mark
        const bool rising = up > d.h;
        const double level = median_of(x, t, t + d.confirm + 1);
        const double midpoint = reference + (level - reference) / 2;
        const bool displaced =
            std::all_of(x.begin() + t, x.begin() + t + d.confirm + 1,
                        [&](double v) { return rising ? v > midpoint : v < midpoint; });
        if (displaced && std::abs(std::expm1(level - reference)) >= d.min_change_rel) {
          const int start = std::min(rising ? up_start : down_start, t);
          drifts.push_back({start, t, std::exp(reference), std::exp(level),
                            std::expm1(level - reference),
                            std::expm1(theil_sen(x, std::max(start - 1, j), t + 1))});
          next = t + d.confirm + 1; // a fresh reference after the confirmation runs
          break;
        }
        up = down = 0; // an excursion that reverted: keep watching
        up_start = down_start = t + 1;
      }
      j = next;
    }
  }
  return drifts;
}

std::vector<HistorySeries> history_series(const std::vector<RunRecord>& runs, SeriesLevel level,
                                          const StepDetector& steps, const DriftDetector& drifts) {
  std::vector<const RunRecord*> ordered;
  for (const RunRecord& r : runs)
    ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(), [](const RunRecord* a, const RunRecord* b) {
    return a->started_at < b->started_at;
  });
  std::vector<HistorySeries> all;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const RunRecord* run : ordered) {
    const std::string scope = level == SeriesLevel::machine ? machine_of(*run) : run->device.name;
    for (const Measurement* m : run->measurements()) {
      const double median = run_median(*m);
      if (m->comparability_key.empty() || !point_status(*m).ok() || !(median > 0))
        continue;
      const auto [it, fresh] =
          index.emplace(std::make_pair(scope, m->comparability_key), all.size());
      if (fresh)
        all.push_back({scope,
                       m->comparability_key,
                       m->experiment,
                       m->metric,
                       m->unit,
                       m->direction,
                       m->params,
                       {},
                       {},
                       {},
                       {}});
      all[it->second].run_ids.push_back(run->id);
      all[it->second].medians.push_back(median);
    }
  }
  for (HistorySeries& s : all) {
    s.steps = detect_steps(s.medians, steps);
    s.drifts = detect_drifts(s.medians, s.steps, drifts);
  }
  return all;
}

} // namespace apod
