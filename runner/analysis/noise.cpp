#include "analysis/noise.hpp"

#include "analysis/distributions.hpp"

#include <algorithm>
#include <cmath>

namespace apod {

namespace {

constexpr double min_sigma = 1e-5; // 0.001%: below any timer's resolution, avoids 0 / 0
constexpr double min_variance = min_sigma * min_sigma;

// Variance of ln(median) within one run: the median's variance for a normal sample,
// (1.2533 sigma)^2 / n, with sigma from the MAD so that a few stragglers do not set it.
double within_run_variance(const std::vector<double>& used, double median) {
  if (used.size() < 2 || median <= 0)
    return min_variance;
  std::vector<double> deviations;
  for (double v : used)
    deviations.push_back(std::abs(v - median));
  const double sigma_rel = 1.4826 * median_of(deviations) / median;
  return std::max(min_variance, std::pow(1.2533 * sigma_rel, 2) / used.size());
}

// Degrees of freedom of the mean square successive difference of n values: its variance is
// about sigma^4 (3n - 4) / (n - 1)^2 where the sample variance's is 2 sigma^4 / (n - 1)
// (von Neumann et al. 1941), so it is worth 2 (n - 1)^2 / (3n - 4) df.
double mssd_df(int n) {
  return n < 2 ? 0 : 2.0 * (n - 1) * (n - 1) / (3.0 * n - 4);
}

/// An experiment's points of one class taken whole on one machine.
std::string whole_of(const std::string& machine, const std::string& experiment, MetricClass c) {
  return machine + "|" + experiment + "|" + class_name(c);
}

/// The floor of an experiment-wide level's run-to-run spread: 0.05%. memory_latency's levels are
/// whole cycles, so between two runs its median slowdown is most often exactly 0 and the mean
/// square of a history can be nothing at all; the steadiest unquantized level measured (peak_copy
/// on the H100 and H200 batches of docs/ci.md) moves 0.01-0.02% between runs, so the floor costs
/// no test but a quantized one its false precision.
constexpr double min_whole_sigma = 5e-4;

} // namespace

double median_of(std::vector<double> v) {
  if (v.empty())
    return 0;
  // The middle element by selection, not a full sort (the noise model takes a median of every
  // stored point's samples: a report of 1000 runs takes millions): the same value as sorting.
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + m, v.end());
  if (v.size() % 2)
    return v[m];
  return 0.5 * (*std::max_element(v.begin(), v.begin() + m) + v[m]);
}

double slowdown_of(const Measurement& m, double earlier, double later) {
  const double log_ratio = std::log(later / earlier);
  return m.direction == Direction::higher ? -log_ratio : log_ratio;
}

std::string machine_of(const RunRecord& run) {
  return run.device.uuid + "@" + run.environment.host;
}

double run_median(const Measurement& m) {
  return median_of(m.used_samples());
}

const char* noise_source_name(NoiseSource s) {
  switch (s) {
  case NoiseSource::history:
    return "history";
  case NoiseSource::neighbours:
    return "neighbours";
  case NoiseSource::class_default:
    break;
  }
  return "class_default";
}

double NoiseModel::Point::within() const {
  return within_n ? within_sum / within_n : min_variance;
}

double NoiseModel::Point::variance() const {
  if (diffs == 0)
    return min_variance;
  // Huber's winsorizing: |d| clipped at c = 2.5 robust SDs of a difference (the median |d| over
  // 0.6745), the mean square divided by E[min(Z^2, c^2)] = 0.9776 for a standard normal Z, so that
  // Gaussian noise is estimated without bias. Under three differences the median says too little:
  // the plain mean square.
  if (differences.size() < 3)
    return std::max(min_variance, sum_sq_diff / (2 * diffs));
  std::vector<double> magnitudes;
  for (double d : differences)
    magnitudes.push_back(std::abs(d));
  const double clip = 2.5 * median_of(magnitudes) / 0.6745;
  double sum = 0;
  for (double d : differences)
    sum += std::min(d * d, clip * clip);
  constexpr double normal_winsorized = 0.9776;
  return std::max(min_variance, sum / differences.size() / normal_winsorized / 2);
}

std::string NoiseModel::group_of(const std::string& machine, const Measurement& m) {
  return machine + "|" + m.experiment + "|" + m.metric;
}

NoiseModel::NoiseModel(const std::vector<std::vector<const RunRecord*>>& segments) {
  for (const auto& segment : segments)
    add_segment(segment);
  fit_priors();
}

void NoiseModel::add_segment(const std::vector<const RunRecord*>& runs) {
  std::vector<const RunRecord*> ordered = runs;
  std::stable_sort(ordered.begin(), ordered.end(), [](const RunRecord* a, const RunRecord* b) {
    return a->started_at < b->started_at;
  });
  struct Last {
    double log_median = 0;
    int runs = 0;
  };
  std::map<std::pair<std::string, std::string>, Last> last; // per (machine, key) in this segment
  std::map<std::string, int> whole_runs; // per whole (machine|experiment|class): runs in a row
  for (const RunRecord* run : ordered) {
    const std::string machine = machine_of(*run);
    std::map<std::string, std::vector<double>> whole_slowdowns; // this run against the last
    for (const Measurement* m : run->measurements()) {
      if (m->comparability_key.empty() || !point_status(*m).ok())
        continue;
      const std::vector<double> used = m->used_samples();
      const double median = median_of(used);
      if (!(median > 0))
        continue;
      const auto id = std::make_pair(machine, m->comparability_key);
      Point& p = points_[id];
      group_[id] = group_of(machine, *m);
      p.within_sum += within_run_variance(used, median);
      p.within_n++;
      p.runs++;
      runs_on_[machine] = std::max(runs_on_[machine], p.runs);
      model_of_[machine] = run->device.name;
      Last& l = last[id];
      if (l.runs > 0) {
        const double d = std::log(median) - l.log_median;
        p.sum_sq_diff += d * d;
        p.differences.push_back(d);
        p.diffs++;
        p.df += mssd_df(l.runs + 1) - mssd_df(l.runs); // df of this segment's run of values
        const MetricClass c = m->metric_class;
        if (class_defaults(c).gated && !m->noisy) // as the experiment-wide test takes them
          whole_slowdowns[whole_of(machine, m->experiment, c)].push_back(
              slowdown_of(*m, std::exp(l.log_median), median));
      }
      l.log_median = std::log(median);
      l.runs++;
    }
    add_wholes(whole_slowdowns, whole_runs);
  }
}

void NoiseModel::add_wholes(const std::map<std::string, std::vector<double>>& slowdowns,
                            std::map<std::string, int>& runs_in_a_row) {
  for (const auto& [whole, values] : slowdowns) {
    if (static_cast<int>(values.size()) < min_whole_points)
      continue;
    const double d = median_of(values);
    Point& w = wholes_[whole];
    int& in_a_row = runs_in_a_row[whole];
    in_a_row = std::max(in_a_row, 1) + 1; // this difference joins two runs
    w.sum_sq_diff += d * d;
    w.diffs++;
    w.runs = std::max(w.runs, in_a_row);
    w.df += mssd_df(in_a_row) - mssd_df(in_a_row - 1);
  }
}

void NoiseModel::fit_priors() {
  // Smyth (2004), section 6.2: ln s^2 of a point with d df scatters around its prior's log
  // around ln s0^2 + digamma(d/2) - ln(d/2) with variance trigamma(d/2) + trigamma(d0/2); the
  // excess scatter beyond trigamma(d/2) gives d0. Here s^2 is divided by the point's within-run
  // variance first, so points that are noisier within a run may be noisier between runs.
  std::map<std::string, std::vector<const Point*>> groups;
  for (const auto& [id, p] : points_)
    if (p.diffs > 0)
      groups[group_.at(id)].push_back(&p);
  for (const auto& [group, members] : groups) {
    if (members.size() < 3)
      continue;
    std::vector<double> e;
    double mean_trigamma = 0;
    for (const Point* p : members) {
      const double s2 = p->variance();
      e.push_back(std::log(s2 / p->within()) - digamma(p->df / 2) + std::log(p->df / 2));
      mean_trigamma += trigamma(p->df / 2) / members.size();
    }
    double mean = 0, scatter = 0;
    for (double v : e)
      mean += v / e.size();
    for (double v : e)
      scatter += (v - mean) * (v - mean) / (e.size() - 1);
    Prior prior;
    if (scatter - mean_trigamma > 0) {
      prior.d0 = 2 * trigamma_inverse(scatter - mean_trigamma);
      prior.scale = std::exp(mean + digamma(prior.d0 / 2) - std::log(prior.d0 / 2));
    } else { // the points agree as closely as their sampling allows: one common level
      prior.d0 = infinite_df;
      prior.scale = std::exp(mean);
    }
    priors_[group] = prior;
  }
}

NoiseEstimate NoiseModel::estimate(const std::string& machine, const Measurement& m) const {
  const ClassDefaults& defaults = class_defaults(m.metric_class);
  const auto prior_it = priors_.find(group_of(machine, m));
  const Prior* prior = prior_it == priors_.end() ? nullptr : &prior_it->second;
  const auto point_it = points_.find({machine, m.comparability_key});
  NoiseEstimate e;
  e.runs = point_it == points_.end() ? 0 : point_it->second.runs;
  if (point_it != points_.end() && point_it->second.diffs > 0) {
    const Point& p = point_it->second;
    const double s2 = p.variance();
    double variance = s2, df = p.df;
    if (prior && std::isinf(prior->d0)) {
      variance = prior->scale * p.within();
      df = infinite_df;
    } else if (prior) {
      variance = (prior->d0 * prior->scale * p.within() + p.df * s2) / (prior->d0 + p.df);
      df = prior->d0 + p.df;
    }
    // The other GPUs of its model lend their degrees of freedom (as for wholes): never a smaller
    // variance than this GPU's own, but the tails of a longer history.
    const auto model = model_of_.find(machine);
    if (lend_across_gpus && model != model_of_.end())
      for (const auto& [other, name] : model_of_) {
        if (other == machine || name != model->second)
          continue;
        const auto o = points_.find({other, m.comparability_key});
        if (o == points_.end() || o->second.diffs == 0)
          continue;
        variance = std::max(variance, o->second.variance());
        df += o->second.df;
      }
    e.sigma = std::sqrt(variance);
    e.df = df;
    e.source = NoiseSource::history;
  } else if (prior) {
    const std::vector<double> used = m.used_samples();
    e.sigma = std::sqrt(prior->scale * within_run_variance(used, median_of(used)));
    e.df = prior->d0;
    e.source = NoiseSource::neighbours;
  } else {
    e.sigma = defaults.run_sigma;
    e.df = defaults.tail_df;
    e.source = NoiseSource::class_default;
  }
  e.sigma = std::max(e.sigma, min_sigma);
  e.df_own = e.source == NoiseSource::class_default ? defaults.tail_df : e.df;
  if (cap_tails)
    e.df = std::min(e.df, defaults.tail_df);
  return e;
}

NoiseEstimate NoiseModel::estimate_whole(const std::string& machine, const std::string& experiment,
                                         MetricClass c) const {
  NoiseEstimate e;
  const auto it = wholes_.find(whole_of(machine, experiment, c));
  if (it == wholes_.end() || it->second.diffs < 1)
    return e; // no history of it on this machine
  const Point& own = it->second;
  const auto model = model_of_.find(machine);
  double pooled_sq = 0, pooled_df = 0;
  int pooled_diffs = 0;
  for (const auto& [other, name] : model_of_) {
    if (model == model_of_.end() || name != model->second ||
        (!lend_across_gpus && other != machine))
      continue;
    const auto w = wholes_.find(whole_of(other, experiment, c));
    if (w == wholes_.end())
      continue;
    pooled_sq += w->second.sum_sq_diff;
    pooled_diffs += w->second.diffs;
    pooled_df += w->second.df;
  }
  if (pooled_diffs < 2)
    return e; // one difference is no estimate of a spread
  const double pooled = pooled_sq / (2 * pooled_diffs);
  const double mine = own.diffs >= 2 ? own.sum_sq_diff / (2 * own.diffs) : 0;
  e.sigma = std::max(min_whole_sigma, std::sqrt(std::max(pooled, mine)));
  e.df = pooled_df;
  e.df_own = pooled_df;
  e.runs = own.runs;
  e.source = NoiseSource::history;
  return e;
}

int NoiseModel::runs_on(const std::string& machine) const {
  const auto it = runs_on_.find(machine);
  return it == runs_on_.end() ? 0 : it->second;
}

NoiseModel NoiseModel::from_runs(const std::vector<RunRecord>& runs,
                                 const std::set<std::string>& excluded,
                                 const std::set<std::string>& batch, int history_limit) {
  std::vector<const RunRecord*> pointers;
  for (const RunRecord& run : runs)
    pointers.push_back(&run);
  return from_runs(pointers, excluded, batch, history_limit);
}

NoiseModel NoiseModel::from_runs(const std::vector<const RunRecord*>& runs,
                                 const std::set<std::string>& excluded,
                                 const std::set<std::string>& batch, int history_limit) {
  std::map<std::string, std::vector<const RunRecord*>> history_by_machine;
  std::vector<const RunRecord*> batch_runs;
  for (const RunRecord* run : runs) {
    if (batch.count(run->id))
      batch_runs.push_back(run);
    else if (!excluded.count(run->id))
      history_by_machine[machine_of(*run)].push_back(run);
  }
  std::vector<const RunRecord*> history;
  for (auto& [machine, list] : history_by_machine) {
    std::stable_sort(list.begin(), list.end(), [](const RunRecord* a, const RunRecord* b) {
      return a->started_at > b->started_at; // newest first: keep the newest max_history_runs
    });
    if (static_cast<int>(list.size()) > history_limit)
      list.resize(history_limit);
    history.insert(history.end(), list.begin(), list.end());
  }
  if (batch_runs.size() < 2)
    return NoiseModel({history}); // one run shows no spread of its own
  return NoiseModel({history, batch_runs});
}

NoiseModel NoiseModel::for_candidate(const std::vector<RunRecord>& runs,
                                     const std::string& candidate,
                                     const std::set<std::string>& judged) {
  std::string machine;
  for (const RunRecord& r : runs)
    if (r.id == candidate)
      machine = machine_of(r);
  const auto unjudged = std::count_if(runs.begin(), runs.end(), [&](const RunRecord& r) {
    return machine_of(r) == machine && !judged.count(r.id);
  });
  return unjudged >= 2 ? from_runs(runs, judged) : from_runs(runs, {candidate});
}

} // namespace apod
