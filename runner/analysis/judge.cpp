// judge() and judge_pooled(): pairing by comparability key, the test of each pair against the
// noise model, Holm's adjustment, and the words for what could not be compared.
#include "analysis/compare.hpp"

#include "analysis/distributions.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace apod {

namespace {

/// A candidate's figure for one point: its measurement (metadata, within-run spread) and its
/// run-level value over `runs` runs.
struct Figure {
  const Measurement* m = nullptr;
  double value = 0;
  int runs = 1;
};
/// The candidate's figures by comparability key, in the order the run recorded them.
using Figures = std::vector<std::pair<std::string, Figure>>;

std::string identity(const Measurement& m) {
  return m.experiment + "|" + nlohmann::json::parse(m.params.dump()).dump() + "|" + m.metric;
}

int experiment_version(const RunRecord& run, const std::string& name) {
  for (const auto& e : run.experiments)
    if (e.name == name)
      return e.version;
  return 0;
}

std::string branch_text(const std::string& branch) {
  return branch.empty() ? "(not recorded)" : branch;
}

/// What differs between two runs that makes a point incomparable, in words ("" if nothing
/// the runs record explains it).
std::string what_differs(const RunRecord& base, const RunRecord& cand,
                         const std::string& experiment) {
  const RunFacts b = RunFacts::of(base), c = RunFacts::of(cand);
  std::vector<std::string> parts;
  if (b.device != c.device)
    parts.push_back(fmt::format("GPU model {} vs {}", b.device, c.device));
  if (b.driver_branch != c.driver_branch)
    parts.push_back(fmt::format("driver branch {} vs {}", branch_text(b.driver_branch),
                                branch_text(c.driver_branch)));
  const int vb = experiment_version(base, experiment), vc = experiment_version(cand, experiment);
  if (!experiment.empty() && vb != vc)
    parts.push_back(fmt::format("{} version {} vs {}", experiment, vb, vc));
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

/// Why not one point could be compared, as a sentence.
std::string nothing_compared(const RunRecord& base, const RunRecord& cand, const Verdict& v) {
  const RunFacts b = RunFacts::of(base), c = RunFacts::of(cand);
  if (b.device != c.device)
    return fmt::format("the baseline ran on {} and the candidate on {}: points are comparable "
                       "only on the same GPU model",
                       b.device, c.device);
  if (b.driver_branch != c.driver_branch)
    return fmt::format("the baseline ran on driver branch {} and the candidate on {}: numbers are "
                       "not compared across driver branches (pin a baseline on the new branch)",
                       branch_text(b.driver_branch), branch_text(c.driver_branch));
  std::set<std::string> base_names, versions;
  for (const auto& e : base.experiments)
    base_names.insert(e.name);
  bool common = false;
  for (const auto& e : cand.experiments) {
    if (!base_names.count(e.name))
      continue;
    common = true;
    if (experiment_version(base, e.name) != e.version)
      versions.insert(
          fmt::format("{} {} vs {}", e.name, experiment_version(base, e.name), e.version));
  }
  if (!versions.empty()) {
    std::string list;
    for (const auto& s : versions)
      list += (list.empty() ? "" : ", ") + s;
    return "experiment versions differ (" + list + ") and no other point is in both runs";
  }
  if (!common)
    return "the two runs have no experiment in common";
  if (!v.left_out.empty())
    return "every point the two runs share failed on one side or the other";
  return "the runs hold no measurement to compare";
}

/// Fills a PointVerdict's figures and its test against the noise; verdicts come later (Holm).
PointVerdict test_pair(double base_value, const Figure& cand, const NoiseEstimate& nb,
                       const NoiseEstimate& nc, bool same_machine) {
  const Measurement& m = *cand.m;
  PointVerdict p;
  p.key = m.comparability_key;
  p.experiment = m.experiment;
  p.metric = m.metric;
  p.unit = m.unit;
  p.direction = m.direction;
  p.params = m.params;
  p.metric_class = metric_class(m);
  const ClassDefaults& defaults = class_defaults(p.metric_class);
  p.gated = defaults.gated;
  p.baseline = base_value;
  p.candidate = cand.value;
  const double log_ratio = std::log(cand.value / base_value);
  p.slowdown = m.direction == Direction::higher ? -log_ratio : log_ratio;
  double variance = nb.sigma * nb.sigma + nc.sigma * nc.sigma / cand.runs;
  if (!same_machine)
    variance += 2 * defaults.device_sigma * defaults.device_sigma;
  p.noise = std::sqrt(variance);
  p.df = std::min(nb.df, nc.df);
  p.p = t_two_sided_p(p.slowdown / p.noise, p.df);
  const bool own = nc.source == NoiseSource::history || nb.source == NoiseSource::history;
  p.noise_source = own ? NoiseSource::history : std::max(nb.source, nc.source);
  p.history_runs = std::max(nb.runs, nc.runs);
  return p;
}

/// Holm within each family (gated points; derived figures), then the verdict of every point.
void decide(std::vector<PointVerdict>& points, const CompareOptions& options, int& gated_points) {
  for (bool gated : {true, false}) {
    std::vector<PointVerdict*> family;
    for (auto& p : points)
      if (p.gated == gated)
        family.push_back(&p);
    if (gated)
      gated_points = static_cast<int>(family.size());
    std::vector<double> raw;
    for (const auto* p : family)
      raw.push_back(p->p);
    const std::vector<double> adjusted = holm_adjust(raw);
    std::map<double, double> critical;
    for (size_t i = 0; i < family.size(); ++i) {
      PointVerdict& p = *family[i];
      p.p_adjusted = adjusted[i];
      const double floor = std::log1p(options.threshold_for(p.experiment));
      auto crit = critical.find(p.df); // few distinct df: bisect once each
      if (crit == critical.end())
        crit = critical.emplace(p.df, t_critical(options.fwer / family.size(), p.df)).first;
      const double bound = crit->second * p.noise;
      p.detectable = std::expm1(std::max(bound, floor));
      if (p.p_adjusted <= options.fwer && std::abs(p.slowdown) > floor)
        p.change = p.slowdown > 0 ? Change::slower : Change::faster;
      p.regression = p.gated && p.change == Change::slower;
    }
  }
  // Regressions first (largest first), then faster, then slower derived figures, then the same.
  const auto rank = [](const PointVerdict& p) {
    return p.regression ? 0 : p.change == Change::faster ? 1 : p.change == Change::slower ? 2 : 3;
  };
  std::stable_sort(points.begin(), points.end(), [&](const PointVerdict& a, const PointVerdict& b) {
    if (rank(a) != rank(b))
      return rank(a) < rank(b);
    return rank(a) < 3 && std::abs(a.slowdown) > std::abs(b.slowdown);
  });
}

Verdict judge_figures(const RunRecord& base_run, const RunRecord& cand_run, const Figures& figures,
                      std::vector<LeftOut> left_out, const NoiseModel& noise,
                      const CompareOptions& options) {
  Verdict v;
  v.baseline = RunFacts::of(base_run);
  v.candidate = RunFacts::of(cand_run);
  v.threshold = options.threshold;
  v.fwer = options.fwer;
  const std::string base_machine = machine_of(base_run), cand_machine = machine_of(cand_run);
  v.same_machine = base_machine == cand_machine;
  std::map<std::string, const Measurement*> base_by_key;
  std::set<std::string> cand_keys;
  for (const Measurement* m : base_run.measurements())
    if (!m->comparability_key.empty())
      base_by_key.emplace(m->comparability_key, m);
  for (const Measurement* m : cand_run.measurements())
    cand_keys.insert(m->comparability_key);
  // Identities (experiment, params, metric) tell "not comparable" from "new" and "removed"; only
  // the points whose keys found no partner need them.
  std::set<std::string> base_identities, cand_identities;
  for (const auto& [key, m] : base_by_key)
    if (!cand_keys.count(key))
      base_identities.insert(identity(*m));
  for (const Measurement* m : cand_run.measurements())
    if (!base_by_key.count(m->comparability_key))
      cand_identities.insert(identity(*m));
  for (const auto& [key, figure] : figures) {
    const Measurement& m = *figure.m;
    const auto it = base_by_key.find(key);
    if (it == base_by_key.end()) {
      const bool same_point = base_identities.count(identity(m)) > 0;
      left_out.push_back({m.experiment, m.metric, m.params,
                          same_point ? LeftOutReason::not_comparable : LeftOutReason::new_point,
                          same_point ? what_differs(base_run, cand_run, m.experiment) : ""});
      continue;
    }
    const Measurement& base = *it->second;
    const PointStatus status = point_status(base);
    const double base_value = run_median(base);
    if (!status.ok() || !(base_value > 0)) {
      left_out.push_back({m.experiment, m.metric, m.params, LeftOutReason::failed_baseline,
                          status.ok() ? "no positive median" : status.reason});
      continue;
    }
    v.points.push_back(test_pair(base_value, figure, noise.estimate(base_machine, base),
                                 noise.estimate(cand_machine, m), v.same_machine));
  }
  for (const Measurement* m : base_run.measurements()) // in the baseline's order
    if (!cand_keys.count(m->comparability_key) && !cand_identities.count(identity(*m)))
      left_out.push_back({m->experiment, m->metric, m->params, LeftOutReason::removed, ""});
  v.left_out = std::move(left_out);
  decide(v.points, options, v.gated_points);
  if (v.points.empty())
    v.nothing_compared = nothing_compared(base_run, cand_run, v);
  return v;
}

} // namespace

Verdict judge(const RunRecord& baseline, const RunRecord& candidate, const NoiseModel& noise,
              const CompareOptions& options) {
  Figures figures;
  std::vector<LeftOut> left_out;
  for (const Measurement* m : candidate.measurements()) {
    if (m->comparability_key.empty()) {
      left_out.push_back({m->experiment, m->metric, m->params, LeftOutReason::not_comparable,
                          "no comparability key"});
      continue;
    }
    const PointStatus status = point_status(*m);
    const double value = run_median(*m);
    if (!status.ok() || !(value > 0)) {
      left_out.push_back({m->experiment, m->metric, m->params, LeftOutReason::failed_candidate,
                          status.ok() ? "no positive median" : status.reason});
      continue;
    }
    figures.push_back({m->comparability_key, Figure{m, value, 1}});
  }
  return judge_figures(baseline, candidate, figures, std::move(left_out), noise, options);
}

Verdict judge_in(const std::vector<RunRecord>& runs, const RunRecord& baseline,
                 const RunRecord& candidate, const CompareOptions& options) {
  return judge(baseline, candidate, NoiseModel::from_runs(runs, {candidate.id}), options);
}

Verdict judge_pooled(const RunRecord& baseline, const std::vector<const RunRecord*>& candidates,
                     const NoiseModel& noise, const CompareOptions& options) {
  if (candidates.empty())
    throw InputError("no candidate run to judge");
  for (const RunRecord* run : candidates)
    if (machine_of(*run) != machine_of(*candidates.front()))
      throw InputError(fmt::format("runs {} and {} ran on different GPUs: a batch judged by its "
                                   "medians must come from one GPU (judge them one by one)",
                                   candidates.front()->id, run->id));
  struct Sum {
    const Measurement* m = nullptr;
    double log_sum = 0;
    int runs = 0;
  };
  std::map<std::string, Sum> sums;
  std::vector<std::string> order; // keys in the order the runs recorded them
  for (const RunRecord* run : candidates)
    for (const Measurement* m : run->measurements()) {
      const double value = run_median(*m);
      if (m->comparability_key.empty() || !point_status(*m).ok() || !(value > 0))
        continue;
      Sum& s = sums[m->comparability_key];
      if (!s.m) {
        s.m = m;
        order.push_back(m->comparability_key);
      }
      s.log_sum += std::log(value);
      s.runs++;
    }
  Figures figures;
  std::vector<LeftOut> left_out;
  const int n = static_cast<int>(candidates.size());
  for (const std::string& key : order) {
    const Sum& s = sums.at(key);
    if (s.runs == n) {
      figures.push_back({key, Figure{s.m, std::exp(s.log_sum / n), n}});
    } else {
      left_out.push_back({s.m->experiment, s.m->metric, s.m->params,
                          LeftOutReason::failed_candidate,
                          fmt::format("a figure in {} of the batch's {} runs", s.runs, n)});
    }
  }
  Verdict v =
      judge_figures(baseline, *candidates.front(), figures, std::move(left_out), noise, options);
  v.candidate.runs = n;
  v.candidate.label = fmt::format("{} runs from {}", n, candidates.front()->id.substr(0, 8));
  return v;
}

} // namespace apod
