// Measures `apod compare`'s defaults on the committed runs and prints the tables of docs/ci.md:
// the class defaults (and fails if one in metric_class.cpp is less conservative than measured),
// the false alarms between back-to-back runs of one build on one GPU, the planted regressions of
// issue 11 (2% on the device-memory figures of one experiment, 5% on pinned transfers, scaled
// into real runs' samples) and the smallest change detected in every pair, per class.
// Usage: calibrate_compare BATCH.json HELD_OUT.json... (the first document's machine with six or
// more runs is the batch; every other run is "held out" only in the sense that it is judged, not
// fitted: the 2026-11-22 runs were seen while the defaults were chosen, and the between-GPU
// spread is read from them, so nothing here is out of sample; validate_gate on the batches of
// 2026-11-26 is, docs/ci.md "Out of sample").
#include "analysis/compare.hpp"
#include "analysis/distributions.hpp"
#include "real_runs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace apod;
using apod::test::planted;
using apod::test::PointFilter;

namespace {

int failures = 0;

// How `apod run --device all` ran the run's GPUs ("" for a run of one GPU).
std::string device_all_mode(const RunRecord& r) {
  return r.environment.device_all ? r.environment.device_all->mode : "";
}

// The count and mode of `apod run --device all`: runs of one such command have the same.
std::pair<int64_t, std::string> device_all_of(const RunRecord& r) {
  const auto& all = r.environment.device_all;
  return all ? std::pair(all->devices, all->mode) : std::pair(int64_t(0), std::string());
}

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

using Batch = std::vector<const RunRecord*>;

/// judge(a, b) the way `apod compare A B` does on a database holding `history`.
Verdict compare_in(const RunRecord& a, const RunRecord& b, const Batch& history,
                   bool cap_tails = true) {
  NoiseModel noise = NoiseModel::from_runs(history, {b.id});
  noise.cap_tails = cap_tails;
  return judge(a, b, noise);
}

/// The noise model of `apod compare A B` on a database holding only the batch: every run but B
/// (built once per B: it does not depend on A, nor on what is planted in B's copy).
const NoiseModel& leave_out(const Batch& batch, const RunRecord* b) {
  static std::map<const RunRecord*, NoiseModel> cache;
  const auto it = cache.find(b);
  return it != cache.end() ? it->second
                           : cache.emplace(b, NoiseModel::from_runs(batch, {b->id})).first->second;
}

/// The ordered pairs of a batch judged in a database holding only the batch (with history), or
/// only the pair (without: one run of history is none, so class defaults).
int clean_pairs(const Batch& batch, bool with_history) {
  int clean = 0;
  for (const RunRecord* a : batch)
    for (const RunRecord* b : batch)
      if (a != b)
        clean += judge(*a, *b, with_history ? leave_out(batch, b) : NoiseModel()).exit_code() == 0;
  return clean;
}

PointFilter of_class(MetricClass c) {
  return [c](const Measurement& m) { return m.metric_class == c; };
}

/// Pairs (of the batch's 30) in which `filter`'s points made `slowdown` x slower in the candidate
/// are found: exit 1 with a regression among them.
int detected(const Batch& batch, const PointFilter& filter, double slowdown, bool with_history) {
  int found = 0, n = 0;
  for (const RunRecord* a : batch)
    for (const RunRecord* b : batch) {
      if (a == b)
        continue;
      // In a database of the batch with B replaced by its planted copy P, `compare A P` takes the
      // other runs as history: the model leave_out(batch, b) is that one.
      const RunRecord p = planted(*b, filter, slowdown, fmt::format("feed{:04x}", n++));
      std::set<std::string> planted_keys; // the points planted, and the experiments taken whole
      for (const Measurement* m : p.measurements())
        if (filter(*m)) {
          planted_keys.insert(m->comparability_key);
          planted_keys.insert(whole_key(m->experiment, m->metric_class));
        }
      const Verdict v = judge(*a, p, with_history ? leave_out(batch, b) : NoiseModel());
      const auto planted_regression = [&](const PointVerdict& point) {
        return point.regression && planted_keys.count(point.key);
      };
      const bool hit = std::any_of(v.points.begin(), v.points.end(), planted_regression) ||
                       std::any_of(v.wholes.begin(), v.wholes.end(), planted_regression);
      found += v.exit_code() == 1 && hit;
    }
  return found;
}

double sd_of_logs(const std::vector<double>& v) {
  double mean = 0, ss = 0;
  for (double x : v)
    mean += std::log(x) / v.size();
  for (double x : v)
    ss += (std::log(x) - mean) * (std::log(x) - mean);
  return std::sqrt(ss / (v.size() - 1));
}

/// Per comparability key: the run medians over `runs` (points ok and measured cleanly in every
/// run: a point its run flagged noisy never gates, PointVerdict::noisy_candidate, so the
/// defaults of the gate are not set by it).
std::map<std::string, std::pair<const Measurement*, std::vector<double>>>
medians(const Batch& runs) {
  std::map<std::string, std::pair<const Measurement*, std::vector<double>>> out;
  for (const RunRecord* r : runs)
    for (const Measurement* m : r->measurements())
      if (point_status(*m).ok() && !m->noisy && !m->comparability_key.empty()) {
        auto& e = out[m->comparability_key];
        e.first = m;
        e.second.push_back(run_median(*m));
      }
  std::erase_if(out, [&](const auto& e) { return e.second.second.size() != runs.size(); });
  return out;
}

/// The df at which t tails predict as many |t| > cut as seen (infinite when the model's own df
/// already predict as many): the lightest tails the data allow.
double fitted_tail_df(const std::vector<std::pair<double, double>>& t_df) {
  double fitted = infinite_df;
  for (double cut : {4.0, 6.0, 8.0, 10.0}) {
    int seen = 0;
    for (const auto& [t, df] : t_df)
      seen += t > cut;
    const auto expected = [&](double nu) {
      double sum = 0;
      for (const auto& [t, df] : t_df)
        sum += t_two_sided_p(cut, std::min(df, nu));
      return sum;
    };
    if (expected(infinite_df) >= seen)
      continue;
    double lo = 1, hi = 1e6;
    for (int i = 0; i < 100; ++i)
      (expected(std::sqrt(lo * hi)) > seen ? lo : hi) = std::sqrt(lo * hi);
    fitted = std::min(fitted, lo);
  }
  return fitted;
}

void measure_defaults(const Batch& batch, const Batch& other_gpus) {
  std::map<MetricClass, double> run_sigma, device_sigma;
  std::map<std::string, double> sigma_of_key;
  for (const auto& [key, e] : medians(batch)) {
    const double s = sd_of_logs(e.second);
    sigma_of_key[key] = s;
    run_sigma[e.first->metric_class] = std::max(run_sigma[e.first->metric_class], s);
  }
  for (const auto& [key, e] : medians(other_gpus)) {
    if (!sigma_of_key.count(key))
      continue;
    const double between = std::pow(sd_of_logs(e.second), 2) - std::pow(sigma_of_key[key], 2);
    device_sigma[e.first->metric_class] =
        std::max(device_sigma[e.first->metric_class], std::sqrt(std::max(0.0, between)));
  }
  std::map<MetricClass, std::vector<std::pair<double, double>>> t_df;
  for (const RunRecord* a : batch)
    for (const RunRecord* b : batch)
      if (a != b)
        for (const auto& p : compare_in(*a, *b, batch, false).points)
          if (!p.noisy_candidate) // only points that can gate set the gate's tails
            t_df[p.metric_class].push_back({std::abs(p.slowdown / p.noise), p.df});
  std::printf("\n| class | run-to-run, largest | default | between GPUs, largest | default | tail "
              "df fitted | default |\n"
              "|---|---:|---:|---:|---:|---:|---:|\n");
  for (MetricClass c : metric_classes) {
    const ClassDefaults& d = class_defaults(c);
    const double nu = fitted_tail_df(t_df[c]);
    const auto df_text = [](double df) {
      return std::isinf(df) ? std::string("inf") : fmt::format("{:.2f}", df);
    };
    if (t_df[c].empty()) { // nothing of this class in the committed runs: nothing to measure
      std::printf("| %s | (no runs) | %.2f%% | (no runs) | %.2f%% | (no runs) | %s |\n",
                  class_phrase(c), 100 * d.run_sigma, 100 * d.device_sigma,
                  df_text(d.tail_df).c_str());
      continue;
    }
    std::printf("| %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %s | %s |\n", class_phrase(c),
                100 * run_sigma[c], 100 * d.run_sigma, 100 * device_sigma[c], 100 * d.device_sigma,
                df_text(nu).c_str(), df_text(d.tail_df).c_str());
    check(d.run_sigma >= run_sigma[c],
          fmt::format("{}: default run spread covers the largest seen", class_name(c)));
    check(d.device_sigma >= device_sigma[c],
          fmt::format("{}: default GPU spread covers the largest seen", class_name(c)));
    check(d.tail_df <= nu,
          fmt::format("{}: default tails at least as heavy as fitted", class_name(c)));
  }
}

void false_alarms(const Batch& batch, const std::vector<RunRecord>& held_out) {
  const int pairs = static_cast<int>(batch.size() * (batch.size() - 1));
  const int with = clean_pairs(batch, true), without = clean_pairs(batch, false);
  std::printf("\n## False alarms\n\n| pairs | history | exit 0 |\n|---|---|---:|\n");
  std::printf("| %d back-to-back | the batch | %d of %d |\n| %d back-to-back | none (class "
              "defaults) | %d of %d |\n",
              pairs, with, pairs, pairs, without, pairs);
  int held_pairs = 0, held_clean = 0;
  const auto judge_all = [&](const Batch& runs, bool same_mode_only) {
    for (const RunRecord* a : runs)
      for (const RunRecord* b : runs)
        if (a != b && (!same_mode_only || device_all_of(*a) == device_all_of(*b))) {
          ++held_pairs;
          held_clean += compare_in(*a, *b, runs).exit_code() == 0;
        }
  };
  // Each session (one boot of the writer's host) in each mode of running several GPUs: its runs
  // judged against each other, on one GPU or across GPUs of the model.
  std::map<std::string, Batch> sessions;
  for (const RunRecord& r : held_out) {
    const std::string boot = r.environment.writer ? r.environment.writer->boot_id : "";
    sessions[boot + "|" + device_all_mode(r)].push_back(&r);
  }
  for (const auto& [session, runs] : sessions)
    judge_all(runs, false);
  std::printf(
      "| %d held out: each later session's runs against each other, on one GPU or across GPUs | "
      "what the database holds | "
      "%d of %d |\n",
      held_pairs, held_clean, held_pairs);
  check(with * 30 >= 29 * pairs, "at least 29 of 30 back-to-back pairs exit 0 with history");
  check(without * 30 >= 29 * pairs, "at least 29 of 30 back-to-back pairs exit 0 without history");
  check(held_clean * 30 >= 29 * held_pairs, "at least 29 of 30 held-out pairs exit 0");
}

void planted_regressions(const Batch& batch) {
  const int pairs = static_cast<int>(batch.size() * (batch.size() - 1));
  std::printf("\n## Planted regressions (every ordered pair of the batch)\n\n| planted | with "
              "history | without |\n|---|---:|---:|\n");
  const auto experiment_dram = [](const char* name) -> PointFilter {
    return [name](const Measurement& m) { return m.experiment == name && m.unit == "GB/s"; };
  };
  const std::vector<std::tuple<std::string, PointFilter, double>> planted_cases = {
      {"peak_copy GB/s, 2% slower", experiment_dram("peak_copy"), 1.02},
      {"offset_copy GB/s, 2% slower", experiment_dram("offset_copy"), 1.02},
      {"stride_copy GB/s, 2% slower", experiment_dram("stride_copy"), 1.02},
      {"pinned transfers, 5% slower",
       [](const Measurement& m) { return m.params.value("memory", "") == "pinned"; }, 1.05}};
  for (const auto& [name, filter, slowdown] : planted_cases) {
    const int found = detected(batch, filter, slowdown, true);
    std::printf("| %s | %d of %d | %d of %d |\n", name.c_str(), found, pairs,
                detected(batch, filter, slowdown, false), pairs);
    check(found == pairs, name + ": detected in every pair");
  }
}

void smallest_detected(const Batch& batch) {
  const int pairs = static_cast<int>(batch.size() * (batch.size() - 1));
  std::printf("\n## Smallest slowdown of a whole class detected in every pair\n\n| class | with "
              "history | without |\n|---|---:|---:|\n");
  for (MetricClass c : metric_classes) {
    const auto of_c = [c](const Measurement* m) { return m->metric_class == c; };
    const auto points = batch.front()->measurements();
    if (!class_defaults(c).gated || std::none_of(points.begin(), points.end(), of_c))
      continue;
    std::string cells[2];
    for (bool history : {true, false}) {
      cells[history ? 0 : 1] = "> 100%";
      for (double s : {0.016, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0})
        if (detected(batch, of_class(c), 1 + s, history) == pairs) {
          cells[history ? 0 : 1] = fmt::format("{:g}%", 100 * s);
          break;
        }
    }
    std::printf("| %s | %s | %s |\n", class_phrase(c), cells[0].c_str(), cells[1].c_str());
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: calibrate_compare BATCH.json HELD_OUT.json...\n");
    return 2;
  }
  const std::vector<RunRecord> batch_runs = test::load_runs({argv[1]});
  const std::vector<RunRecord> held_out =
      test::load_runs(std::vector<std::string>(argv + 2, argv + argc));
  Batch batch;
  for (const auto& [machine, runs] : test::by_machine(batch_runs))
    if (runs.size() >= 6)
      batch = runs;
  if (batch.empty())
    return std::fprintf(stderr, "no machine with 6 runs in %s\n", argv[1]), 2;
  Batch in_turn; // one run per GPU of a multi-GPU machine, taken one GPU at a time
  for (const RunRecord& r : held_out)
    if (device_all_mode(r) == "one_at_a_time")
      in_turn.push_back(&r);

  std::printf("## Defaults per class (batch of %zu runs; between GPUs: %zu GPUs of one machine)\n",
              batch.size(), in_turn.size());
  measure_defaults(batch, in_turn);
  false_alarms(batch, held_out);
  planted_regressions(batch);
  smallest_detected(batch);
  std::printf("\n%d failed\n", failures);
  return failures ? 1 : 0;
}
