// The gate judged the way a nightly job meets it (issue 24, docs/ci.md "Out of sample"): the runs
// of one GPU model, across sittings and machines, in start order; each run judged against the run
// before it, with every run strictly earlier as history (a new machine starts with none), then,
// where the verdict asks for it, "confirmed" on the next runs of the same GPU standing in for
// `apod confirm`'s re-measures (up to 3, as confirm takes by default). Prints the outcomes of the
// real runs (false alarms), of planted slowdowns scaled into real samples (whole experiments, a
// subset of one, a single point, pinned transfers, DRAM latency) and of the runs with their
// run-to-run noise doubled, and the detectable change per class. With --check it fails when the
// false alarms of the runs judged alone exceed 1 in 30, or a planted 2% slowdown of a whole
// device-memory experiment is missed once confirmed in a run with 5 or more runs of history.
// Usage: validate_gate [--check] DOC.json.gz...
#include "analysis/compare.hpp"
#include "real_runs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace apod;
using apod::test::planted;
using apod::test::PointFilter;

namespace {

bool verbose = false;

/// --verbose: what made a verdict a regression or inconclusive.
void explain(const Verdict& v, const char* what) {
  if (!verbose || v.outcome() == Outcome::no_regression)
    return;
  std::printf("  %s %s (%d runs of history):", what, outcome_word(v.outcome()), v.history_runs);
  std::set<std::string> conclusive;
  for (const PointVerdict& w : v.wholes)
    if (!w.inconclusive && !w.gross)
      conclusive.insert(whole_key(w.experiment, w.metric_class));
  for (const auto* list : {&v.wholes, &v.points})
    for (const PointVerdict& p : *list)
      if (p.regression || p.unconfirmed() ||
          (p.inconclusive && p.points_taken_whole && class_defaults(p.metric_class).confirmable))
        std::printf(" [%s %s %s %s %s sees %.3g%%]", wording(decision_of(p)).word,
                    p.experiment.c_str(), p.metric.c_str(), p.params.dump().c_str(),
                    change_text(p).c_str(), 100 * p.detectable);
  std::printf("\n");
}

struct Tally {
  int runs = 0, regression = 0, inconclusive = 0, clean = 0;
  int found = 0; ///< planted: a planted point or whole among the regressions
  /// Runs with at least 5 runs of history of their own GPU: what ci.md's promise is about.
  int rich = 0, rich_found = 0, rich_regression = 0, rich_inconclusive = 0;
  std::map<std::string, int> why;
  void add(const Verdict& v, const std::set<std::string>& planted_keys = {}) {
    ++runs;
    const bool is_rich = v.history_runs >= 5;
    rich += is_rich;
    rich_regression += is_rich && v.outcome() == Outcome::regression;
    rich_inconclusive += is_rich && v.outcome() == Outcome::inconclusive;
    switch (v.outcome()) {
    case Outcome::regression:
      ++regression;
      break;
    case Outcome::inconclusive:
      ++inconclusive;
      why[v.history_runs == 0 ? "no history of the GPU"
          : v.unconfirmed()   ? "unconfirmed slowdowns"
                              : "inconclusive points or experiments"]++;
      break;
    default:
      ++clean;
    }
    const auto hit = [&](const PointVerdict& p) {
      return p.regression && planted_keys.count(p.key);
    };
    if (v.outcome() == Outcome::regression &&
        (std::any_of(v.points.begin(), v.points.end(), hit) ||
         std::any_of(v.wholes.begin(), v.wholes.end(), hit))) {
      ++found;
      rich_found += is_rich;
    }
  }
  std::string why_text() const {
    std::string out;
    for (const auto& [w, n] : why)
      out += fmt::format("{}{} {}", out.empty() ? "" : "; ", n, w);
    return out.empty() ? "-" : out;
  }
};

using Runs = std::vector<const RunRecord*>;

/// Each run judged against the one before it on the history strictly earlier; `alone` without
/// confirmation, `confirmed` with the next runs of its GPU as re-measures. `plant` makes the copy
/// judged (and its re-measures) from each real run.
void judge_sequence(const Runs& runs, const std::function<RunRecord(const RunRecord&)>& plant,
                    const std::set<std::string>& planted_keys, Tally& alone, Tally& confirmed,
                    std::map<MetricClass, std::vector<double>>* detectable = nullptr) {
  for (size_t k = 1; k < runs.size(); ++k) {
    const Runs earlier(runs.begin(), runs.begin() + k);
    const NoiseModel noise = NoiseModel::from_runs(earlier, {});
    const RunRecord candidate = plant(*runs[k]);
    const Verdict v = judge(*runs[k - 1], candidate, noise);
    explain(v, "alone");
    alone.add(v, planted_keys);
    if (detectable && v.history_runs > 0)
      for (const ClassPower& c : v.power)
        (*detectable)[c.metric_class].push_back(c.headline());
    if (experiments_to_confirm(v).empty()) {
      confirmed.add(v, planted_keys);
      continue;
    }
    std::vector<RunRecord> copies;
    for (size_t j = k + 1; j < runs.size() && copies.size() < 3; ++j)
      if (machine_of(*runs[j]) == machine_of(*runs[k]))
        copies.push_back(plant(*runs[j]));
    Runs remeasured;
    for (const RunRecord& c : copies)
      remeasured.push_back(&c);
    const Verdict c = judge_confirmed(v, *runs[k - 1], remeasured, noise);
    explain(c, "confirmed");
    confirmed.add(c, planted_keys);
  }
}

std::string cell(const Tally& t, bool planted) {
  return planted ? fmt::format("{} found, {} inconclusive, {} missed of {} (with 5+ runs of "
                               "history: {} of {} found)",
                               t.found, t.inconclusive, t.runs - t.found - t.inconclusive, t.runs,
                               t.rich_found, t.rich)
                 : fmt::format("{} false alarms, {} inconclusive ({}), {} clean of {} (with 5+ "
                               "runs of history: {} false alarms, {} inconclusive of {})",
                               t.regression, t.inconclusive, t.why_text(), t.clean, t.runs,
                               t.rich_regression, t.rich_inconclusive, t.rich);
}

bool misaligned(const Measurement& m) {
  const int offset = m.params.value("offset", 0), bytes = m.params.value("word_bytes", 4);
  return (offset * bytes) % 128 != 0;
}

} // namespace

int main(int argc, char** argv) {
  bool check = false;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--check") == 0)
      check = true;
    else if (std::strcmp(argv[i], "--verbose") == 0)
      verbose = true;
    else
      paths.push_back(argv[i]);
  if (paths.empty())
    return std::fprintf(stderr, "usage: validate_gate [--check] DOC.json.gz...\n"), 2;
  const std::vector<RunRecord> all = test::load_runs(paths);
  Runs runs;
  for (const RunRecord& r : all)
    runs.push_back(&r);
  std::set<std::string> machines;
  for (const RunRecord* r : runs)
    machines.insert(machine_of(*r));
  std::printf("# %zu runs of %s on %zu GPUs, each judged against the run before it\n\n",
              runs.size(), runs.empty() ? "-" : runs.front()->device.name.c_str(), machines.size());

  int failures = 0;
  const auto identity = [](const RunRecord& r) { return r; };
  Tally alone, confirmed;
  std::map<MetricClass, std::vector<double>> detectable;
  judge_sequence(runs, identity, {}, alone, confirmed, &detectable);
  std::printf("| real runs | outcome |\n|---|---|\n| alone | %s |\n| confirmed | %s |\n\n",
              cell(alone, false).c_str(), cell(confirmed, false).c_str());
  if (check && alone.regression * 30 > std::max(alone.runs, 30)) {
    std::printf("FAIL more than 1 false alarm in 30 runs judged alone\n");
    ++failures;
  }

  // Doubled noise: each point's run median moved by sqrt(3) times its own run-to-run spread
  // (measured over these runs), so that the spread between runs doubles. Not a regression.
  std::map<std::string, double> sigma;
  {
    std::map<std::string, std::vector<double>> logs;
    for (const RunRecord* r : runs)
      for (const Measurement* m : r->measurements())
        if (point_status(*m).ok() && run_median(*m) > 0)
          logs[m->comparability_key].push_back(std::log(run_median(*m)));
    for (const auto& [key, v] : logs) {
      double mean = 0, ss = 0;
      for (double x : v)
        mean += x / v.size();
      for (double x : v)
        ss += (x - mean) * (x - mean);
      sigma[key] = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0;
    }
  }
  std::mt19937 random(24);
  const auto noisier = [&](const RunRecord& r) {
    RunRecord copy = r;
    copy.id = r.id + "-noisier";
    std::normal_distribution<double> z(0, 1);
    for (ExperimentRecord& e : copy.experiments)
      for (Measurement& m : e.measurements) {
        const double f = std::exp(std::sqrt(3.0) * sigma[m.comparability_key] * z(random));
        for (double& s : m.samples)
          s *= f;
      }
    return copy;
  };
  verbose = false; // the real runs only
  Tally noisy_alone, noisy_confirmed;
  judge_sequence(runs, noisier, {}, noisy_alone, noisy_confirmed);
  std::printf("| doubled run-to-run noise | outcome |\n|---|---|\n| alone | %s |\n| confirmed | %s "
              "|\n\n",
              cell(noisy_alone, false).c_str(), cell(noisy_confirmed, false).c_str());

  const auto dram = [](const char* name) -> PointFilter {
    return [name](const Measurement& m) { return m.experiment == name && m.unit == "GB/s"; };
  };
  const PointFilter single = [](const Measurement& m) {
    return m.experiment == "offset_copy" && m.unit == "GB/s" && m.params.value("offset", -1) == 1 &&
           m.params.value("word_bytes", 0) == 4 && m.params.value("kernel", "") == "guide";
  };
  const std::vector<std::tuple<std::string, PointFilter, double>> cases = {
      {"peak_copy GB/s, 2% slower", dram("peak_copy"), 1.02},
      {"offset_copy GB/s, 2% slower", dram("offset_copy"), 1.02},
      {"stride_copy GB/s, 2% slower", dram("stride_copy"), 1.02},
      {"offset_copy misaligned offsets only, 2% slower",
       [](const Measurement& m) {
         return m.experiment == "offset_copy" && m.unit == "GB/s" && misaligned(m);
       },
       1.02},
      {"stride_copy strides >= 16 only, 2% slower",
       [](const Measurement& m) {
         return m.experiment == "stride_copy" && m.unit == "GB/s" &&
                m.params.value("stride", 0) >= 16;
       },
       1.02},
      {"one point (offset_copy guide 4 B offset 1), 5% slower", single, 1.05},
      {"DRAM latency (memory_latency ns at DRAM), 6% slower",
       [](const Measurement& m) {
         return m.experiment == "memory_latency" && m.metric == "latency_ns" &&
                m.params.value("level", "") == "dram";
       },
       1.06},
      {"pinned transfers (host_transfer, every size), 5% slower",
       [](const Measurement& m) {
         return m.experiment == "host_transfer" && m.params.value("memory", "") == "pinned";
       },
       1.05}};
  std::printf("| planted | alone | confirmed |\n|---|---|---|\n");
  int n = 0;
  for (const auto& [name, filter, factor] : cases) {
    std::set<std::string> keys;
    for (const Measurement* m : runs.front()->measurements())
      if (filter(*m)) {
        keys.insert(m->comparability_key);
        keys.insert(whole_key(m->experiment, m->metric_class));
      }
    if (keys.empty()) {
      std::printf("| %s | no such point | |\n", name.c_str());
      continue;
    }
    const auto plant = [&, f = filter, s = factor](const RunRecord& r) {
      return planted(r, f, s, fmt::format("{}-plant{}", r.id, n));
    };
    ++n;
    Tally a, c;
    judge_sequence(runs, plant, keys, a, c);
    std::printf("| %s | %s | %s |\n", name.c_str(), cell(a, true).c_str(), cell(c, true).c_str());
    if (check && factor == 1.02 && name.find("only") == std::string::npos) {
      // Every run with 5 or more runs of history of its GPU must find a 2% slowdown of a
      // whole device-memory experiment once confirmed.
      if (c.rich_found < c.rich) {
        std::printf("FAIL %s: found in %d of %d runs with 5+ runs of history\n", name.c_str(),
                    c.rich_found, c.rich);
        ++failures;
      }
    }
  }

  std::printf(
      "\n| class | detectable change per run with history (median; largest) |\n|---|---|\n");
  for (auto& [c, values] : detectable) {
    std::sort(values.begin(), values.end());
    std::printf("| %s | %.2g%%; %.2g%% |\n", class_phrase(c), 100 * median_of(values),
                100 * values.back());
  }
  std::printf("\n%d failed\n", failures);
  return failures ? 1 : 0;
}
