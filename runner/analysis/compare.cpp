#include "analysis/compare.hpp"

#include "analysis/distributions.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace apod {

double CompareOptions::threshold_for(const std::string& experiment, MetricClass c) const {
  const auto it = experiment_threshold.find(experiment);
  if (it != experiment_threshold.end())
    return it->second;
  return threshold ? *threshold : class_defaults(c).threshold;
}

CompareOptions parse_compare_config(const json& doc) {
  if (!doc.is_object())
    throw InputError("compare config: expected a JSON object");
  CompareOptions c;
  const auto number = [](const json& v, const std::string& where, double lo, double hi) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
        v.get<double>() > hi)
      throw InputError(
          fmt::format("compare config: {} must be a number in [{}, {}]", where, lo, hi));
    return v.get<double>();
  };
  for (const auto& [key, value] : doc.items()) {
    if (key == "threshold") {
      c.threshold = number(value, "threshold", 0, 10);
    } else if (key == "fwer") {
      c.fwer = number(value, "fwer", 1e-12, 0.5);
    } else if (key == "experiments") {
      if (!value.is_object())
        throw InputError("compare config: experiments must be an object");
      for (const auto& [name, e] : value.items()) {
        if (!e.is_object() || !e.contains("threshold"))
          throw InputError("compare config: experiments." + name + " needs a threshold");
        for (const auto& [inner, ignored] : e.items())
          if (inner != "threshold")
            throw InputError("compare config: unknown key 'experiments." + name + "." + inner +
                             "' (known: threshold)");
        c.experiment_threshold[name] =
            number(e["threshold"], "experiments." + name + ".threshold", 0, 10);
      }
    } else {
      throw InputError("compare config: unknown key '" + key +
                       "' (known: threshold, fwer, experiments)");
    }
  }
  return c;
}

double parse_threshold(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string digits = percent ? text.substr(0, text.size() - 1) : text;
  double value = 0;
  size_t used = 0;
  try {
    value = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || !std::isfinite(value) || value < 0)
    throw InputError(fmt::format(
        "--threshold '{}': expected a percentage (\"5%\") or a fraction (\"0.05\")", text));
  if (!percent && value >= 1)
    throw InputError(fmt::format("--threshold {}: a fraction or a percentage is meant: write "
                                 "{}% for {} percent, or {:g} as a fraction",
                                 text, text, text, value / 100));
  const double fraction = percent ? value / 100 : value;
  if (fraction > 10)
    throw InputError(fmt::format("--threshold {}: at most 1000%", text));
  return fraction;
}

const char* reason_name(LeftOutReason r) {
  switch (r) {
  case LeftOutReason::new_point:
    return "new";
  case LeftOutReason::removed:
    return "removed";
  case LeftOutReason::not_comparable:
    return "not_comparable";
  case LeftOutReason::failed_baseline:
    return "failed_in_baseline";
  case LeftOutReason::failed_candidate:
    break;
  }
  return "failed_in_candidate";
}

double PointVerdict::factor() const {
  return std::exp(std::abs(slowdown));
}

RunFacts RunFacts::of(const RunRecord& run) {
  RunFacts f;
  f.id = run.id;
  f.label = run.label;
  f.started_at = run.started_at;
  f.device = run.device.name;
  f.uuid = run.device.uuid;
  f.host = run.environment.host;
  f.driver_branch = run.environment.driver_branch();
  return f;
}

int Verdict::regressions() const {
  return static_cast<int>(std::count_if(points.begin(), points.end(),
                                        [](const PointVerdict& p) { return p.regression; }));
}

int Verdict::whole_regressions() const {
  return static_cast<int>(std::count_if(wholes.begin(), wholes.end(),
                                        [](const PointVerdict& p) { return p.regression; }));
}

int Verdict::unconfirmed() const {
  return static_cast<int>(std::count_if(points.begin(), points.end(),
                                        [](const PointVerdict& p) { return p.unconfirmed(); }));
}

int Verdict::inconclusive() const {
  int n = 0;
  for (const auto* list : {&points, &wholes})
    n += static_cast<int>(std::count_if(list->begin(), list->end(),
                                        [](const PointVerdict& p) { return p.inconclusive; }));
  return n;
}

int Verdict::decisive_inconclusive() const {
  // What the power line says of each class (ClassPower::headline): the median of its experiments
  // taken whole where it has them, else the median of its points. A class that could not see its
  // threshold makes the run inconclusive; single experiments and points that could not are listed,
  // each with what it needs. Host-phase timings are listed too but never decide
  // (ClassDefaults::confirmable).
  int n = 0;
  for (const ClassPower& c : power)
    n += class_defaults(c.metric_class).confirmable && c.headline() > c.threshold * (1 + 1e-9);
  return n;
}

int Verdict::count(Change c) const {
  return static_cast<int>(std::count_if(points.begin(), points.end(),
                                        [c](const PointVerdict& p) { return p.change == c; }));
}

int Verdict::count(Decision d) const {
  return static_cast<int>(std::count_if(
      points.begin(), points.end(), [d](const PointVerdict& p) { return decision_of(p) == d; }));
}

int Verdict::points_with_noise(NoiseSource s) const {
  return static_cast<int>(std::count_if(
      points.begin(), points.end(), [s](const PointVerdict& p) { return p.noise_source == s; }));
}

Outcome Verdict::outcome() const {
  if (points.empty())
    return Outcome::nothing_compared;
  if (regressions() || whole_regressions())
    return Outcome::regression;
  // Without a history of the GPU every point stands on class defaults: whatever it shows short of
  // a gross change, the run could not have shown a change of its thresholds.
  if (history_runs == 0 || unconfirmed() || decisive_inconclusive())
    return Outcome::inconclusive;
  return Outcome::no_regression;
}

int Verdict::exit_code() const {
  return exit_code_of(outcome());
}

const char* outcome_word(Outcome o) {
  switch (o) {
  case Outcome::no_regression:
    return "NO REGRESSION";
  case Outcome::inconclusive:
    return "INCONCLUSIVE";
  case Outcome::regression:
    return "REGRESSION";
  case Outcome::nothing_compared:
    break;
  }
  return "NOTHING COMPARED";
}

int exit_code_of(Outcome o) {
  switch (o) {
  case Outcome::no_regression:
    return exit_ok;
  case Outcome::inconclusive:
    return exit_inconclusive;
  case Outcome::regression:
    return exit_regression;
  case Outcome::nothing_compared:
    break;
  }
  return exit_usage;
}

Outcome outcome(const std::vector<Verdict>& verdicts) {
  Outcome worst = Outcome::no_regression;
  for (const Verdict& v : verdicts) // the enum is in order of severity
    worst = std::max(worst, v.outcome());
  return worst;
}

int exit_code(const std::vector<Verdict>& verdicts) {
  return exit_code_of(outcome(verdicts));
}

} // namespace apod
