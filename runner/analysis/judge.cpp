// judge() and judge_pooled(): pairing by comparability key, the test of each pair against the
// noise model, Holm's adjustment, and the words for what could not be compared.
#include "analysis/compare.hpp"

#include "analysis/distributions.hpp"
#include "core/errors.hpp"
#include "core/point_key.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

namespace apod {

namespace {

/// A candidate's figure for one point: its measurement (metadata, within-run spread) and its
/// run-level value over `runs` runs.
struct Figure {
  const Measurement* m = nullptr;
  double value = 0;
  int runs = 1;
  /// How many runs' worth of noise the figure's value has: `runs` for a geometric mean, fewer
  /// for a median of re-measures (judge_confirmed).
  double effective_runs = 1;
  bool confirmation = false; ///< a median of `apod confirm`'s re-measures
};
/// The candidate's figures by comparability key, in the order the run recorded them.
using Figures = std::vector<std::pair<std::string, Figure>>;

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
  // The true reason, counted: a point left out for another cause than a failure (not
  // comparable, new, removed) must not be reported as failed.
  std::map<LeftOutReason, size_t> reasons;
  for (const LeftOut& l : v.left_out)
    ++reasons[l.reason];
  const auto failed = [&] {
    return (reasons.count(LeftOutReason::failed_baseline) ? 1u : 0u) +
           (reasons.count(LeftOutReason::failed_candidate) ? 1u : 0u);
  };
  if (!reasons.empty() && failed() == reasons.size())
    return "every point the two runs share failed on one side or the other";
  if (reasons.empty())
    return "the runs hold no measurement to compare";
  std::string counts;
  for (const auto& [reason, n] : reasons)
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, reason_name(reason));
  return "no point is in both runs with a usable figure (left out: " + counts + ")";
}

/// The standard deviation of ln(candidate / baseline) under no change: the baseline's run-to-run
/// noise, the candidate's over its `cand_runs` runs, and across two GPUs their device spread.
double pair_noise(const NoiseEstimate& base, const NoiseEstimate& cand, double cand_runs,
                  double device_sigma) {
  return std::sqrt(base.sigma * base.sigma + cand.sigma * cand.sigma / cand_runs +
                   2 * device_sigma * device_sigma);
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
  p.metric_class = m.metric_class;
  const ClassDefaults& defaults = class_defaults(p.metric_class);
  p.gated = defaults.gated;
  p.baseline = base_value;
  p.candidate = cand.value;
  p.noisy_candidate = cand.runs == 1 && m.noisy; // a pooled batch's median answers for itself
  p.confirmed = cand.confirmation;
  p.slowdown = slowdown_of(m, base_value, cand.value);
  p.noise = pair_noise(nb, nc, cand.effective_runs, same_machine ? 0 : defaults.device_sigma);
  p.df = std::min(nb.df, nc.df);
  p.p = t_two_sided_p(p.slowdown / p.noise, p.df);
  p.df_light = defaults.confirmable ? std::min(nb.df_own, nc.df_own) : p.df;
  p.p_light = t_two_sided_p(p.slowdown / p.noise, p.df_light);
  const bool own = nc.source == NoiseSource::history || nb.source == NoiseSource::history;
  p.noise_source = own ? NoiseSource::history : std::max(nb.source, nc.source);
  p.history_runs = std::max(nb.runs, nc.runs);
  return p;
}

/// Each experiment's gated points of one class that the candidate measured cleanly, taken whole:
/// the median of their slowdowns against the noise of that median on the two machines (none
/// where neither machine has a history of it, unless the change is gross: without history a whole
/// is only as sure as its points, which are tested already).
std::vector<PointVerdict> test_wholes(const std::vector<PointVerdict>& points,
                                      const NoiseModel& noise, const std::string& base_machine,
                                      const std::string& cand_machine, double cand_runs,
                                      bool same_machine) {
  std::map<std::pair<std::string, MetricClass>, std::vector<double>> slowdowns;
  for (const PointVerdict& p : points)
    if (p.gated && !p.noisy_candidate)
      slowdowns[{p.experiment, p.metric_class}].push_back(p.slowdown);
  std::vector<PointVerdict> wholes;
  for (const auto& [id, values] : slowdowns) {
    const auto& [experiment, c] = id;
    if (static_cast<int>(values.size()) < min_whole_points)
      continue;
    const NoiseEstimate nb = noise.estimate_whole(base_machine, experiment, c);
    const NoiseEstimate nc = noise.estimate_whole(cand_machine, experiment, c);
    const double level = median_of(values);
    // Without a history of it, a whole has no noise to be tested against: only a gross change
    // (ClassDefaults::gross_whole, 20% of a device-memory experiment) says anything, and it gates.
    const bool gross = nb.runs == 0 && nc.runs == 0;
    if (gross && !(level >= std::log1p(class_defaults(c).gross_whole)))
      continue;
    PointVerdict w;
    w.key = whole_key(experiment, c);
    w.experiment = experiment;
    w.metric = fmt::format("median of {} points", values.size());
    w.unit = "1";
    w.params = {{"class", class_phrase(c)}};
    w.metric_class = c;
    w.gated = true;
    w.points_taken_whole = static_cast<int>(values.size());
    w.slowdown = level;
    w.baseline = 1;
    w.candidate = std::exp(-w.slowdown); // the relative level: below 1 is slower
    if (gross) {
      w.gross = true;
      w.noise_source = NoiseSource::class_default;
      w.noise = class_defaults(c).run_sigma;
      w.df = w.df_light = class_defaults(c).tail_df;
      w.p = w.p_light = t_two_sided_p(w.slowdown / w.noise, w.df);
    } else {
      const NoiseEstimate& b = nb.runs ? nb : nc; // a machine without its history: the other's
      const NoiseEstimate& k = nc.runs ? nc : nb;
      w.noise = pair_noise(b, k, cand_runs, same_machine ? 0 : class_defaults(c).device_sigma);
      // An experiment's median moves as a whole: one point's hiccup barely moves it, so its own
      // df are its reference for both tests.
      w.df = w.df_light = std::min(b.df, k.df);
      w.p = w.p_light = t_two_sided_p(w.slowdown / w.noise, w.df);
      w.noise_source = NoiseSource::history;
    }
    w.history_runs = std::max(nb.runs, nc.runs);
    wholes.push_back(std::move(w));
  }
  return wholes;
}

/// The families Holm runs within: gated points the candidate measured cleanly (the test that
/// gates), gated points it measured as noisy (reported as unconfirmed, so not in the gating
/// family: a point that cannot fail the build does not dilute the power of those that can), and
/// derived figures.
enum class Family { gating, noisy, derived };

Family family_of(const PointVerdict& p) {
  return !p.gated ? Family::derived : p.noisy_candidate ? Family::noisy : Family::gating;
}

/// The share of the gating family's error rate spent on the experiments taken whole when there
/// are points beside them: half. A whole is the test of "this experiment got slower", the one a
/// nightly gate exists for, and there are ~20 of them against ~500 points; an even split keeps
/// the points' power within a factor 2 in p (docs/ci.md, "Two tests in one family").
constexpr double whole_share = 0.5;

/// In the order of the decisions (regressions first), each changed one largest first.
void order_by_decision(Verdict& v) {
  for (auto* list : {&v.points, &v.wholes})
    std::stable_sort(list->begin(), list->end(), [&](const PointVerdict& a, const PointVerdict& b) {
      if (decision_of(a) != decision_of(b))
        return decision_of(a) < decision_of(b);
      return decision_of(a) != Decision::same && std::abs(a.slowdown) > std::abs(b.slowdown);
    });
}

/// What would let an inconclusive point see its threshold: more runs of history (its df grow
/// with them, and the t reference's critical value falls), or nothing short of less noise.
std::string needs_of(const PointVerdict& p, double alpha, int history_limit) {
  if (p.noisy_candidate)
    return "the candidate measured it as noisy: `apod confirm` re-measures it";
  if (p.noise_source == NoiseSource::class_default)
    return "no history of this GPU: judge again once it has runs of its own (a `--repeat 6` "
           "batch, docs/ci.md)";
  const double floor = std::log1p(p.threshold);
  const auto mssd_df = [](int n) { return n < 2 ? 0.0 : 2.0 * (n - 1) * (n - 1) / (3.0 * n - 4); };
  for (int more = 1; p.history_runs + more <= history_limit; ++more) {
    const double df = p.df_light + mssd_df(p.history_runs + more) - mssd_df(p.history_runs);
    if (t_critical(alpha, df) * p.noise <= floor)
      return fmt::format("needs {} more run{} of history", more, more == 1 ? "" : "s");
  }
  const double best = std::expm1(t_critical(alpha, infinite_df) * p.noise);
  return fmt::format("its run-to-run noise (±{:.2g}%) hides a {:.3g}% change at any history: a "
                     "threshold of {:.2g}% for it (--config) would be conclusive",
                     100 * p.noise, 100 * p.threshold, 100 * best);
}

/// Holm within each family (weighted in the gating family: the experiments taken whole share
/// whole_share of its weight, the points the rest), for both tests, then the decision on every
/// point and whole:
/// - a regression: significant by the heavy test and slower beyond the threshold on a gated
///   figure the candidate measured cleanly, or gross (2x slower; a whole without history beyond
///   its class's gross change);
/// - unconfirmed: slower beyond the threshold by the light test only, or on a point the
///   candidate measured as noisy: `apod confirm` re-measures it;
/// - inconclusive: no significant change, but the light test's detectable change exceeds the
///   threshold, so a change of the threshold could have hidden in the noise;
/// - faster, slower (derived figures) or the same otherwise.
void decide(Verdict& v, const CompareOptions& options) {
  for (Family f : {Family::gating, Family::noisy, Family::derived}) {
    std::vector<PointVerdict*> family;
    int wholes = 0;
    for (auto* list : {&v.points, &v.wholes})
      for (auto& p : *list)
        if (family_of(p) == f) {
          family.push_back(&p);
          wholes += p.points_taken_whole > 0;
        }
    const int points = static_cast<int>(family.size()) - wholes;
    if (f == Family::gating)
      v.gated_points = points;
    std::vector<double> raw, raw_light, weight;
    for (const auto* p : family) {
      raw.push_back(p->p);
      raw_light.push_back(p->p_light);
      weight.push_back(p->points_taken_whole ? (points ? whole_share : 1.0) / wholes
                                             : (wholes ? 1 - whole_share : 1.0) / points);
    }
    const std::vector<double> adjusted = holm_adjust(raw, weight);
    const std::vector<double> adjusted_light = holm_adjust(raw_light, weight);
    std::map<std::pair<double, double>, double> critical; // few distinct: bisect once each
    const auto crit = [&](double df, double w) {
      const auto id = std::make_pair(df, w);
      auto it = critical.find(id);
      if (it == critical.end())
        it = critical.emplace(id, t_critical(options.fwer * w, df)).first;
      return it->second;
    };
    for (size_t i = 0; i < family.size(); ++i) {
      PointVerdict& p = *family[i];
      p.p_adjusted = adjusted[i];
      p.p_light_adjusted = adjusted_light[i];
      p.threshold = options.threshold_for(p.experiment, p.metric_class);
      const double floor = std::log1p(p.threshold);
      const double bound_light = crit(p.df_light, weight[i]) * p.noise;
      p.detectable = std::expm1(std::max(bound_light, floor));
      p.detectable_alone = std::expm1(std::max(crit(p.df, weight[i]) * p.noise, floor));
      const bool beyond = std::abs(p.slowdown) > floor;
      const bool heavy = p.p_adjusted <= options.fwer && beyond;
      const bool light = p.p_light_adjusted <= options.fwer && beyond;
      // Host-phase timings move 2-3.5x between runs of one build (scaling's serial host phase,
      // a cold pool's free on the H100 batches of 2026-11-26): a halving says nothing there.
      const bool twice = !p.points_taken_whole && p.gated && !p.noisy_candidate &&
                         class_defaults(p.metric_class).confirmable &&
                         p.slowdown >= std::log1p(apod::gross_point);
      if (heavy || light || twice || p.gross)
        p.change = p.slowdown > 0 ? Change::slower : Change::faster;
      const bool slower = p.change == Change::slower;
      p.gross = p.gross || twice;
      // A confirmation's figure is the median of interleaved re-measures: a transient of one
      // does not move it, so the light test gates there.
      p.regression =
          p.gated && slower && !p.noisy_candidate && (heavy || p.gross || (p.confirmed && light));
      p.suspect = p.gated && slower && !p.regression && light;
      p.inconclusive = p.gated && p.change == Change::same && bound_light > floor;
      if (p.inconclusive)
        p.needs = needs_of(p, options.fwer * weight[i], max_history_runs);
    }
  }
  order_by_decision(v);
}

/// Per gated class: how many points and wholes, how many inconclusive, and what they could see.
std::vector<ClassPower> power_of(const Verdict& v) {
  std::vector<ClassPower> out;
  for (MetricClass c : metric_classes) {
    if (!class_defaults(c).gated)
      continue;
    ClassPower cp;
    cp.metric_class = c;
    std::vector<double> detectable;
    for (const PointVerdict& p : v.points)
      if (p.metric_class == c && p.gated && !p.noisy_candidate) {
        cp.points++;
        cp.inconclusive += p.inconclusive;
        detectable.push_back(p.detectable);
        cp.threshold = std::max(cp.threshold, p.threshold);
      }
    std::vector<double> whole_detectable;
    for (const PointVerdict& w : v.wholes)
      if (w.metric_class == c && !w.gross) {
        cp.wholes++;
        cp.inconclusive += w.inconclusive;
        whole_detectable.push_back(w.detectable);
        if (w.detectable >= cp.whole_largest) {
          cp.whole_largest = w.detectable;
          cp.least_sensitive = w.experiment;
        }
      }
    if (cp.points == 0)
      continue;
    cp.point_median = median_of(detectable);
    cp.whole_median = median_of(whole_detectable);
    out.push_back(cp);
  }
  return out;
}

Verdict judge_figures(const RunRecord& base_run, const RunRecord& cand_run, const Figures& figures,
                      std::vector<LeftOut> left_out, const NoiseModel& noise,
                      const CompareOptions& options) {
  Verdict v;
  v.baseline = RunFacts::of(base_run);
  v.candidate = RunFacts::of(cand_run);
  v.threshold = options.threshold;
  v.fwer = options.fwer;
  v.history_runs = noise.runs_on(machine_of(cand_run));
  const std::string base_machine = machine_of(base_run), cand_machine = machine_of(cand_run);
  v.same_machine = base_machine == cand_machine;
  std::map<std::string, const Measurement*> base_by_key;
  std::set<std::string> cand_keys;
  for (const Measurement* m : base_run.measurements())
    if (!m->comparability_key.empty())
      base_by_key.emplace(m->comparability_key, m);
  for (const Measurement* m : cand_run.measurements())
    cand_keys.insert(m->comparability_key);
  // Points (PointKey: experiment, metric, params) tell "not comparable" from "new" and
  // "removed"; only the points whose comparability keys found no partner need them.
  std::set<PointKey> base_points, cand_points;
  for (const auto& [key, m] : base_by_key)
    if (!cand_keys.count(key))
      base_points.insert(PointKey::of(*m));
  for (const Measurement* m : cand_run.measurements())
    if (!base_by_key.count(m->comparability_key))
      cand_points.insert(PointKey::of(*m));
  for (const auto& [key, figure] : figures) {
    const Measurement& m = *figure.m;
    const auto it = base_by_key.find(key);
    if (it == base_by_key.end()) {
      const bool same_point = base_points.count(PointKey::of(m)) > 0;
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
    if (!cand_keys.count(m->comparability_key) && !cand_points.count(PointKey::of(*m)))
      left_out.push_back({m->experiment, m->metric, m->params, LeftOutReason::removed, ""});
  v.left_out = std::move(left_out);
  const double cand_runs = figures.empty() ? 1 : figures.front().second.effective_runs;
  v.wholes = test_wholes(v.points, noise, base_machine, cand_machine, cand_runs, v.same_machine);
  decide(v, options);
  v.power = power_of(v);
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
    figures.push_back({m->comparability_key, Figure{m, value, 1, 1.0}});
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
      figures.push_back({key, Figure{s.m, std::exp(s.log_sum / n), n, double(n)}});
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

namespace apod {

std::set<std::string> experiments_to_confirm(const Verdict& v) {
  std::set<std::string> out;
  for (const auto* list : {&v.points, &v.wholes})
    for (const PointVerdict& p : *list)
      if (p.regression || p.unconfirmed())
        out.insert(p.experiment);
  return out;
}

Verdict judge_confirmed(const Verdict& first, const RunRecord& baseline,
                        const std::vector<const RunRecord*>& remeasured, const NoiseModel& noise,
                        const CompareOptions& options) {
  if (remeasured.empty())
    return first;
  // Each point re-measured in every confirmation run: the median of their run medians. The
  // median of r normal values has the variance of a mean of about 2r/pi of them (r = 3: 0.449 of
  // one value's, against 1/3 for the mean); so its noise is taken as that many runs' worth.
  std::map<std::string, std::pair<const Measurement*, std::vector<double>>> values;
  std::vector<std::string> order;
  for (const RunRecord* run : remeasured)
    for (const Measurement* m : run->measurements()) {
      const double value = run_median(*m);
      if (m->comparability_key.empty() || !point_status(*m).ok() || !(value > 0))
        continue;
      auto& e = values[m->comparability_key];
      if (!e.first) {
        e.first = m;
        order.push_back(m->comparability_key);
      }
      e.second.push_back(value);
    }
  const int r = static_cast<int>(remeasured.size());
  const double effective = r == 1   ? 1.0
                           : r == 2 ? 2.0
                           : r == 3 ? 1 / 0.449
                                    : 2.0 * r / std::numbers::pi;
  Figures figures;
  std::vector<LeftOut> left_out;
  for (const std::string& key : order) {
    const auto& [m, runs] = values.at(key);
    if (static_cast<int>(runs.size()) == r)
      figures.push_back({key, Figure{m, median_of(runs), r, effective, true}});
  }
  Verdict confirmation = judge_figures(baseline, *remeasured.front(), figures, {}, noise, options);
  std::set<std::string> redone;
  for (const PointVerdict& p : confirmation.points)
    redone.insert(p.key);
  std::set<std::string> experiments;
  for (const PointVerdict& p : confirmation.points)
    experiments.insert(p.experiment);
  // The final verdict: the first judgement, with every re-measured point and each re-measured
  // experiment's wholes replaced by the confirmation's.
  Verdict v = first;
  std::erase_if(v.points, [&](const PointVerdict& p) { return redone.count(p.key) > 0; });
  std::erase_if(v.wholes,
                [&](const PointVerdict& w) { return experiments.count(w.experiment) > 0; });
  for (PointVerdict& p : confirmation.points)
    v.points.push_back(std::move(p));
  for (PointVerdict& w : confirmation.wholes) {
    w.confirmed = true;
    v.wholes.push_back(std::move(w));
  }
  v.confirmation_runs = r;
  order_by_decision(v);
  v.power = power_of(v);
  return v;
}

} // namespace apod
