// Verdicts (runner/analysis): the statistics they rest on, the metric classes, the noise model,
// judge() on small hand-made runs (what each rule does), and the three output formats. The
// calibration on real runs (false alarms, planted regressions) is tests/history/calibrate_compare.
#include "analysis/compare.hpp"
#include "analysis/distributions.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/results_json.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace apod;

namespace {

struct Point {
  std::string experiment = "offset_copy", metric = "effective_bandwidth", unit = "GB/s";
  json params = {{"offset", 0}};
  std::string direction = "higher";
  /// The class its experiment declares (stored with the point; compare reads it from there).
  std::string metric_class = "device_memory";
};

json measurement(const Point& p, double center, double within_rel = 0.001) {
  std::vector<double> samples;
  for (int i = 0; i < 11; ++i)
    samples.push_back(center * (1 + within_rel * (i - 5) / 5.0));
  return {
      {"experiment", p.experiment}, {"params", p.params}, {"metric", p.metric}, {"unit", p.unit},
      {"direction", p.direction},   {"samples", samples}, {"status", "ok"},     {"verified", true},
      {"class", p.metric_class}};
}

RunRecord run(const std::string& id, int minute, std::vector<json> ms,
              const std::string& gpu = "NVIDIA H200", const std::string& uuid = "GPU-1",
              const std::string& branch = "580", int version = 1) {
  std::set<std::string> names;
  for (const auto& m : ms)
    names.insert(m["experiment"].get<std::string>());
  json experiments = json::array();
  for (const auto& n : names)
    experiments.push_back({{"name", n}, {"version", version}, {"status", "complete"}});
  return run_from_json(
      {{"id", id},
       {"label", fmt::format("run {}", id)},
       {"status", "complete"},
       {"started_at", fmt::format("2026-11-22T00:{:02d}:00.000Z", minute)},
       {"device", {{"name", gpu}, {"uuid", uuid}}},
       {"environment", {{"host", "vm"}, {"gpu_state", {{"driver_branch", branch}}}}},
       {"experiments", experiments},
       {"measurements", ms}},
      fmt::format("run {}", id));
}

/// Six points of one metric on one GPU over `levels.size()` runs; run i has the points at
/// 100 x levels[i] x (1 + a small point-specific wobble).
std::vector<RunRecord> history(const std::vector<double>& levels, const std::string& prefix = "a") {
  std::vector<RunRecord> runs;
  for (size_t i = 0; i < levels.size(); ++i) {
    std::vector<json> ms;
    for (int k = 0; k < 6; ++k) {
      Point p;
      p.params = {{"offset", k}};
      const double wobble = 0.001 * std::sin(1.7 * i + k); // about 0.07% run to run
      ms.push_back(measurement(p, 100 * levels[i] * (1 + wobble)));
    }
    runs.push_back(run(fmt::format("{}{}", prefix, i), static_cast<int>(i), ms));
  }
  return runs;
}

} // namespace

TEST(Distributions, StudentTailsMatchTables) {
  EXPECT_NEAR(t_two_sided_p(2.0, 10), 0.0734, 1e-4);
  EXPECT_NEAR(t_two_sided_p(3.0, 4), 0.0400, 1e-4);
  EXPECT_NEAR(t_two_sided_p(1.959964, infinite_df), 0.05, 1e-6);
  EXPECT_NEAR(t_critical(0.05, 10), 2.228, 1e-3);
  EXPECT_NEAR(t_critical(1e-4, infinite_df), 3.8906, 1e-3);
  EXPECT_DOUBLE_EQ(t_two_sided_p(NAN, 5), 1.0);
}

TEST(Distributions, GammaFunctionsAndTheirInverse) {
  EXPECT_NEAR(digamma(1), -0.5772157, 1e-6);
  EXPECT_NEAR(trigamma(1), M_PI * M_PI / 6, 1e-6);
  EXPECT_NEAR(trigamma(0.5), M_PI * M_PI / 2, 1e-6);
  for (double x : {0.3, 1.0, 2.5, 40.0})
    EXPECT_NEAR(trigamma_inverse(trigamma(x)), x, 1e-6 * x);
}

TEST(Distributions, HolmStepDown) {
  // p sorted: 0.01 x 4 = 0.04, 0.02 x 3 = 0.06, 0.03 x 2 = 0.06 (monotone), 0.5 x 1.
  const auto a = holm_adjust({0.03, 0.01, 0.5, 0.02});
  EXPECT_NEAR(a[1], 0.04, 1e-12);
  EXPECT_NEAR(a[3], 0.06, 1e-12);
  EXPECT_NEAR(a[0], 0.06, 1e-12);
  EXPECT_NEAR(a[2], 0.5, 1e-12);
}

TEST(Options, ThresholdTakesAPercentageOrAFraction) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("150%"), 1.5);
  try {
    parse_threshold("5");
    FAIL() << "5 is ambiguous";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("5%"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0.05"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_threshold("abc"), InputError);
  EXPECT_THROW(parse_threshold("-1%"), InputError);
  EXPECT_THROW(parse_threshold("%"), InputError);
}

TEST(Options, ConfigFileFields) {
  const CompareOptions o = parse_compare_config(json::parse(
      R"({"threshold": 0.05, "fwer": 0.05, "experiments": {"offset_copy": {"threshold": 0.2}}})"));
  EXPECT_DOUBLE_EQ(o.threshold_for("offset_copy", MetricClass::device_memory), 0.2);
  EXPECT_DOUBLE_EQ(o.threshold_for("stride_copy", MetricClass::host_phase), 0.05);
  // Unset, each class has its own (metric_class.cpp).
  const CompareOptions defaults;
  EXPECT_DOUBLE_EQ(defaults.threshold_for("peak_copy", MetricClass::device_memory), 0.015);
  EXPECT_DOUBLE_EQ(defaults.threshold_for("host_transfer", MetricClass::host_link), 0.03);
  EXPECT_DOUBLE_EQ(defaults.threshold_for("launch", MetricClass::host_phase), 0.10);
  EXPECT_DOUBLE_EQ(o.fwer, 0.05);
  EXPECT_THROW(parse_compare_config(json::parse(R"({"thresold": 0.1})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse(R"({"fwer": 0.9})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse(R"({"experiments": {"a": 1}})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse("[]")), InputError);
}

TEST(MetricClasses, DerivedFiguresNeverGate) {
  EXPECT_FALSE(class_defaults(MetricClass::derived).gated);
  EXPECT_TRUE(class_defaults(MetricClass::host_phase).gated);
}

TEST(MetricClasses, ThePointsStoredClassIsTheOneCompareReads) {
  Point p;
  p.metric_class = "host_phase";
  const RunRecord r = run("c1a55", 0, {measurement(p, 100)});
  EXPECT_EQ(r.measurements()[0]->metric_class, MetricClass::host_phase);
}

TEST(Noise, SuccessiveDifferencesOfOnePointWithinSegmentsOnly) {
  // One point alone (no neighbours to moderate it), levels 100, 102, 100, 102: MSSD = d^2 / 2.
  std::vector<RunRecord> runs;
  for (int i = 0; i < 4; ++i)
    runs.push_back(run(fmt::format("a{}", i), i, {measurement(Point{}, i % 2 ? 102 : 100)}));
  const NoiseModel model({{&runs[0], &runs[1], &runs[2], &runs[3]}});
  const Measurement& m = *runs[0].measurements()[0];
  const NoiseEstimate e = model.estimate(machine_of(runs[0]), m);
  EXPECT_EQ(e.source, NoiseSource::history);
  EXPECT_EQ(e.runs, 4);
  // Winsorized (no difference is beyond 2.5 robust SDs here) and divided by E[min(Z^2, 2.5^2)].
  EXPECT_NEAR(e.sigma, std::log(1.02) / std::sqrt(2.0) / std::sqrt(0.9776), 1e-9);
  EXPECT_NEAR(e.df, 2.0 * 9 / 8, 1e-9) << "4 runs: 2 (n-1)^2 / (3n-4) df";
  // The same runs split into two segments: the difference across the split is not noise.
  const NoiseModel split({{&runs[0], &runs[1]}, {&runs[2], &runs[3]}});
  EXPECT_NEAR(split.estimate(machine_of(runs[0]), m).df, 2.0, 1e-9)
      << "two segments of 2 runs: 1 df each";
}

TEST(Noise, WithoutHistoryTheClassDefault) {
  const auto runs = history({1.0});
  const NoiseEstimate e = NoiseModel().estimate(machine_of(runs[0]), *runs[0].measurements()[0]);
  EXPECT_EQ(e.source, NoiseSource::class_default);
  EXPECT_DOUBLE_EQ(e.sigma, class_defaults(MetricClass::device_memory).run_sigma);
  EXPECT_DOUBLE_EQ(e.df, class_defaults(MetricClass::device_memory).tail_df);
}

TEST(Noise, AnotherMachinesHistoryIsNotThisOnes) {
  const auto runs = history({1.0, 1.001, 0.999, 1.0});
  const NoiseModel model = NoiseModel::from_runs(runs, {});
  EXPECT_EQ(model.estimate("GPU-other@vm", *runs[0].measurements()[0]).source,
            NoiseSource::class_default);
  EXPECT_EQ(model.runs_on(machine_of(runs[0])), 4);
}

TEST(Noise, TailsOfHostPhasesAreCapped) {
  std::vector<RunRecord> runs;
  for (int i = 0; i < 8; ++i) {
    std::vector<json> ms;
    for (int k = 0; k < 4; ++k) {
      Point p{"overlap_matrix", "overall_ms", "ms", {{"n", k}}, "lower", "host_phase"};
      ms.push_back(measurement(p, 1 + 0.01 * std::sin(i + 2.0 * k)));
    }
    runs.push_back(run(fmt::format("b{}", i), i, ms));
  }
  NoiseModel model = NoiseModel::from_runs(runs, {});
  const Measurement& m = *runs[0].measurements()[0];
  EXPECT_DOUBLE_EQ(model.estimate(machine_of(runs[0]), m).df,
                   class_defaults(MetricClass::host_phase).tail_df);
  model.cap_tails = false;
  EXPECT_GT(model.estimate(machine_of(runs[0]), m).df,
            class_defaults(MetricClass::host_phase).tail_df);
}

TEST(Judge, NoiseAloneIsNoRegressionAndAFivePercentSlowdownIs) {
  auto runs = history({1.0, 1.0005, 0.9995, 1.0, 1.0003, 0.95});
  const Verdict same = judge(runs[1], runs[3], NoiseModel::from_runs(runs, {runs[3].id}));
  EXPECT_NE(same.exit_code(), 1);
  EXPECT_EQ(same.count(Change::same), 6);
  const Verdict slow = judge(runs[0], runs[5], NoiseModel::from_runs(runs, {runs[5].id}));
  EXPECT_EQ(slow.exit_code(), 1);
  EXPECT_EQ(slow.regressions(), 6);
  const PointVerdict& p = slow.points[0];
  EXPECT_EQ(change_text(p), fmt::format("{:.3f}x slower", p.baseline / p.candidate))
      << "GB/s: base / cand";
  EXPECT_LE(slow.points[0].p_adjusted, 0.01);
}

TEST(Judge, TheReportsVerdictTakesTheDatabaseAsHistory) {
  auto runs = history({1.0, 1.0005, 0.9995, 1.0, 1.0003, 0.95});
  const Verdict v = judge_in(runs, runs[0], runs[5]);
  EXPECT_EQ(v.regressions(), 6);
  EXPECT_EQ(v.points[0].noise_source, NoiseSource::history);
  EXPECT_EQ(v.points[0].history_runs, 5) << "every run but the candidate";
}

TEST(Judge, ATimeThatGrowsIsSlowerLikeABandwidthThatFalls) {
  Point t{"staged_copy", "total_ms", "ms", {{"n_streams", 1}}, "lower", "host_phase"};
  Point b{"offset_copy", "effective_bandwidth", "GB/s", {{"offset", 0}}, "higher"};
  std::vector<RunRecord> runs;
  for (int i = 0; i < 6; ++i)
    runs.push_back(
        run(fmt::format("c{}", i), i,
            {measurement(t, 1.0 + 0.0002 * (i % 2)), measurement(b, 100 - 0.02 * (i % 2))}));
  runs.push_back(run("c9", 9, {measurement(t, 1.34), measurement(b, 100 / 1.34)}));
  const Verdict v = judge(runs[0], runs[6], NoiseModel::from_runs(runs, {"c9"}));
  ASSERT_EQ(v.points.size(), 2u);
  for (const auto& p : v.points) {
    EXPECT_EQ(change_text(p), "1.34x slower") << p.metric;
    EXPECT_GT(p.slowdown, 0);
  }
}

TEST(Judge, SmallShiftsUnderTheThresholdAreTheSame) {
  auto runs = history({1.0, 1.0001, 0.9999, 1.0, 1.0001, 0.99}); // 1% slower, 100 x the noise
  const Verdict v = judge(runs[0], runs[5], NoiseModel::from_runs(runs, {runs[5].id}));
  EXPECT_EQ(v.exit_code(), 0) << "significant, but under the 1.5% threshold";
  CompareOptions strict;
  strict.threshold = 0.005;
  EXPECT_EQ(judge(runs[0], runs[5], NoiseModel::from_runs(runs, {runs[5].id}), strict).exit_code(),
            1);
}

TEST(Judge, DerivedFiguresAreShownButNeverGate) {
  Point f{"scaling", "parallel_fraction", "1", {{"law", "strong"}}, "higher", "derived"};
  std::vector<RunRecord> runs;
  for (int i = 0; i < 6; ++i)
    runs.push_back(run(fmt::format("d{}", i), i, {measurement(f, 0.9)}));
  runs.push_back(run("d9", 9, {measurement(f, 0.5)}));
  const Verdict v = judge(runs[0], runs[6], NoiseModel::from_runs(runs, {"d9"}));
  EXPECT_EQ(v.points[0].change, Change::slower);
  EXPECT_FALSE(v.points[0].regression);
  EXPECT_EQ(v.exit_code(), 0);
  EXPECT_EQ(v.gated_points, 0);
}

TEST(Judge, RegressionsComeFirst) {
  auto runs = history({1.0, 1.0});
  std::vector<json> ms;
  for (int k = 0; k < 6; ++k) {
    Point p;
    p.params = {{"offset", k}};
    ms.push_back(measurement(p, k == 4 ? 80 : k == 2 ? 125 : 100));
  }
  runs.push_back(run("f9", 9, ms));
  const Verdict v = judge(runs[0], runs[2], NoiseModel::from_runs(runs, {"f9"}));
  ASSERT_EQ(v.points.size(), 6u);
  EXPECT_TRUE(v.points[0].regression);
  EXPECT_EQ(v.points[0].params["offset"], 4);
  EXPECT_EQ(v.points[1].change, Change::faster);
  EXPECT_EQ(v.points[5].change, Change::same);
}

TEST(Judge, NothingComparableSaysWhyAndExitsTwo) {
  const auto base = history({1.0});
  Point p;
  const RunRecord h100 = run("e1", 1, {measurement(p, 100)}, "NVIDIA H100", "GPU-9");
  Verdict v = judge(base[0], h100, NoiseModel());
  EXPECT_EQ(v.exit_code(), 2);
  EXPECT_NE(v.nothing_compared.find("NVIDIA H100"), std::string::npos) << v.nothing_compared;
  v = judge(base[0], run("e2", 2, {measurement(p, 100)}, "NVIDIA H200", "GPU-1", "590"),
            NoiseModel());
  EXPECT_NE(v.nothing_compared.find("driver branch 580 and the candidate on 590"),
            std::string::npos)
      << v.nothing_compared;
  ASSERT_FALSE(v.left_out.empty());
  EXPECT_EQ(v.left_out[0].reason, LeftOutReason::not_comparable);
  EXPECT_NE(v.left_out[0].detail.find("driver branch"), std::string::npos);
  v = judge(base[0], run("e3", 3, {measurement(p, 100)}, "NVIDIA H200", "GPU-1", "580", 2),
            NoiseModel());
  EXPECT_NE(v.nothing_compared.find("offset_copy 1 vs 2"), std::string::npos) << v.nothing_compared;
}

TEST(Judge, PartialComparisonsListWhatWasLeftOut) {
  const auto base = history({1.0});
  std::vector<json> ms;
  for (int k = 0; k < 6; ++k) {
    Point p;
    p.params = {{"offset", k}};
    json m = measurement(p, 100);
    if (k == 1)
      m["verified"] = false;
    if (k == 2)
      p.params = {{"offset", 99}}, m = measurement(p, 100);
    if (k != 3)
      ms.push_back(m);
  }
  const Verdict v = judge(base[0], run("f1", 1, ms), NoiseModel());
  EXPECT_EQ(v.points.size(), 3u);
  std::map<LeftOutReason, int> reasons;
  for (const auto& l : v.left_out)
    reasons[l.reason]++;
  EXPECT_EQ(reasons[LeftOutReason::failed_candidate], 1);
  EXPECT_EQ(reasons[LeftOutReason::new_point], 1);
  EXPECT_EQ(reasons[LeftOutReason::removed], 2) << "offset 2 and 3 are not in the candidate";
}

TEST(Judge, APooledBatchShrinksTheNoise) {
  auto runs = history({1.0, 1.004, 0.996, 1.002, 0.998, 1.0});
  auto batch = history({0.985, 0.981, 0.983}, "b");
  std::vector<RunRecord> all = runs;
  all.insert(all.end(), batch.begin(), batch.end());
  const NoiseModel noise = NoiseModel::from_runs(all, {}, {"b0", "b1", "b2"});
  const Verdict pooled = judge_pooled(runs[5], {&batch[0], &batch[1], &batch[2]}, noise);
  EXPECT_EQ(pooled.candidate.runs, 3);
  EXPECT_NEAR(pooled.points[0].candidate, 100 * 0.983, 0.2);
  const auto other_gpu = run("ee1", 30, {}, "NVIDIA H200", "GPU-2");
  EXPECT_THROW(judge_pooled(runs[0], {&batch[0], &other_gpu}, noise), InputError);
}

TEST(Judge, ExitCodeOfABatchIsTheWorst) {
  Verdict clean, regressed, nothing, inconclusive;
  clean.points.resize(1);
  clean.history_runs = 7;
  regressed.points.resize(1);
  regressed.points[0].regression = true;
  inconclusive.points.resize(1); // no history of its GPU
  EXPECT_EQ(exit_code({clean, clean}), 0);
  EXPECT_EQ(exit_code({clean, inconclusive}), 7) << "inconclusive is never a pass";
  EXPECT_EQ(exit_code({inconclusive, regressed}), 1);
  EXPECT_EQ(exit_code({regressed, nothing}), 2);
  EXPECT_EQ(inconclusive.outcome(), Outcome::inconclusive);
  EXPECT_STREQ(outcome_word(inconclusive.outcome()), "INCONCLUSIVE");
}

TEST(Formats, CountLineFirstAndLastRegressionsFirstAndOnlyChanged) {
  auto runs = history({1.0, 1.0005, 0.9995, 1.0, 1.0003, 0.95});
  // Point 0 of every run gets a parameter with a table pipe in it (the same point in each run).
  for (size_t i = 0; i < runs.size(); ++i) {
    std::vector<json> ms;
    for (const Measurement* m : runs[i].measurements())
      ms.push_back(to_json(*m));
    if (i == 5)
      ms[0]["samples"] = measurement(Point{}, 100)["samples"]; // k0 back at the old level
    ms[0]["params"] = {{"offset", 0}, {"label", "a|b"}};
    ms[0]["comparability_key"] = nullptr; // other params: apod derives the key
    runs[i] = run(runs[i].id, static_cast<int>(i), ms);
  }
  const Verdict v = judge(runs[0], runs[5], NoiseModel::from_runs(runs, {"a5"}));
  const std::string text = format_text({v});
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find("REGRESSION: 5 regressions"), std::string::npos) << first;
  EXPECT_NE(text.rfind(first), 0u) << "the count line closes the output too";
  EXPECT_LT(text.find("regression: slower beyond"), text.find("same: no change"));
  EXPECT_EQ(format_text({v}, {true}).find("offset=0 label=a|b"), std::string::npos)
      << "same points hidden";
  const std::string md = format_markdown({v});
  EXPECT_NE(md.find("a\\|b"), std::string::npos);
  EXPECT_NE(md.find("**regression**"), std::string::npos);
  EXPECT_LT(md.find("**regression**"), md.find("<details><summary>1 points the same"));
  const json j = to_json({v});
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["verdicts"][0]["multiple_comparisons"], "holm_weighted")
      << "the experiment taken whole joins the points";
  EXPECT_EQ(j["verdicts"][0]["points"][0]["change"], change_text(v.points[0]));
  EXPECT_EQ(j["verdicts"][0]["points"][0]["regression"], true);
  EXPECT_EQ(to_json({v}, {true})["verdicts"][0]["points"].size(), 5u);
}

TEST(Judge, ASlowdownOnAPointTheCandidateMeasuredAsNoisyIsUnconfirmed) {
  // As on an H100's back-to-back runs: one littles_law point, its whole 4 ms window shifted 7%,
  // flagged noisy by its own run. Reported, never gating; the same shift measured cleanly gates.
  auto runs = history({1.0, 1.0005, 0.9995, 1.0, 1.0003});
  const auto candidate = [&](bool noisy) {
    std::vector<json> ms;
    for (int k = 0; k < 6; ++k) {
      Point p;
      p.params = {{"offset", k}};
      json m = measurement(p, k == 2 ? 93 : 100);
      m["noisy"] = noisy && k == 2;
      ms.push_back(m);
    }
    return run("c9", 30, ms);
  };
  for (bool noisy : {true, false}) {
    std::vector<RunRecord> all = runs;
    all.push_back(candidate(noisy));
    const Verdict v = judge(all[0], all.back(), NoiseModel::from_runs(all, {all.back().id}));
    EXPECT_EQ(v.exit_code(), noisy ? 7 : 1) << "unconfirmed: inconclusive until re-measured";
    EXPECT_EQ(v.regressions(), noisy ? 0 : 1);
    EXPECT_EQ(v.unconfirmed(), noisy ? 1 : 0);
    EXPECT_EQ(v.points[0].params["offset"], 2) << "listed first either way";
    const std::string text = format_text({v});
    EXPECT_EQ(text.find("unconfirmed (re-measure: apod confirm)") != std::string::npos, noisy)
        << text;
    // Every format calls the point by compare's one word for it (verdict_word.hpp).
    const std::string word = noisy ? "unconfirmed" : "regression";
    EXPECT_EQ(wording(decision_of(v.points[0])).word, word);
    EXPECT_NE(text.find(word + ": " + wording(decision_of(v.points[0])).meaning), std::string::npos)
        << text;
    EXPECT_NE(format_markdown({v}).find(noisy ? "| unconfirmed | offset\\_copy |"
                                              : "| **regression** | offset\\_copy |"),
              std::string::npos);
    EXPECT_EQ(to_json({v})["verdicts"][0]["points"][0]["verdict"], word);
    EXPECT_EQ(v.count(Decision::unconfirmed), noisy ? 1 : 0);
    EXPECT_EQ(v.count(Decision::slower), 0) << "a gated slowdown is never just slower";
  }
}

TEST(Decisions, EachHasOneWordAndMeaning) {
  PointVerdict p;
  EXPECT_EQ(decision_of(p), Decision::same);
  p.change = Change::faster;
  EXPECT_EQ(decision_of(p), Decision::faster);
  p.change = Change::slower;
  p.gated = false;
  EXPECT_EQ(decision_of(p), Decision::slower) << "a derived figure";
  p.gated = true;
  p.noisy_candidate = true;
  EXPECT_EQ(decision_of(p), Decision::unconfirmed);
  p.noisy_candidate = false;
  p.suspect = true;
  EXPECT_EQ(decision_of(p), Decision::unconfirmed) << "found by the light test only";
  p.suspect = false;
  p.regression = true;
  EXPECT_EQ(decision_of(p), Decision::regression);
  PointVerdict q;
  q.inconclusive = true;
  EXPECT_EQ(decision_of(q), Decision::inconclusive) << "not the same";
  std::set<std::string> words;
  for (Decision d : {Decision::regression, Decision::unconfirmed, Decision::inconclusive,
                     Decision::faster, Decision::slower, Decision::same}) {
    words.insert(wording(d).word);
    EXPECT_GT(std::string(wording(d).meaning).size(), 20u) << wording(d).word;
  }
  EXPECT_EQ(words.size(), 6u);
}

TEST(Distributions, WeightedHolmStepsDownByWeight) {
  EXPECT_EQ(holm_adjust({0.03, 0.01, 0.5}, {1, 1, 1}), holm_adjust({0.03, 0.01, 0.5}));
  // A hypothesis with 90% of the weight is tested first at alpha x 0.9; once it is rejected the
  // other gets all the weight that is left.
  const auto a = holm_adjust({0.01, 0.04}, {0.9, 0.1});
  EXPECT_NEAR(a[0], 0.01 / 0.9, 1e-12);
  EXPECT_NEAR(a[1], 0.04, 1e-12);
  const auto b = holm_adjust({0.01, 0.04}, {0.1, 0.9});
  EXPECT_NEAR(b[1], 0.04 / 0.9, 1e-12) << "tested first: smallest p / w";
  EXPECT_NEAR(b[0], std::max(0.01 * 0.1 / 0.1, 0.04 / 0.9), 1e-12);
}

namespace {

/// As the pinned transfers of an H100's back-to-back runs: six points of one experiment, each of
/// which hiccups 8% slower in one run of the history (point k in run k), so that every point's
/// own run-to-run noise is ~3% while the experiment as a whole moves 0.1%.
std::vector<RunRecord> hiccups(int runs) {
  std::vector<RunRecord> out;
  for (int i = 0; i < runs; ++i) {
    std::vector<json> ms;
    for (int k = 0; k < 6; ++k) {
      Point p;
      p.params = {{"offset", k}};
      ms.push_back(measurement(p, 100 * (1 + 0.001 * std::sin(1.7 * i + k)) * (i == k ? 0.92 : 1)));
    }
    out.push_back(run(fmt::format("e{}", i), i, ms));
  }
  return out;
}

RunRecord scaled(const RunRecord& r, const std::string& id, double factor, int only = -1) {
  RunRecord copy = r;
  copy.id = id;
  copy.started_at = "2026-11-22T00:59:00.000Z";
  for (auto& e : copy.experiments)
    for (auto& m : e.measurements)
      if (only < 0 || m.params["offset"] == only)
        for (double& s : m.samples)
          s *= factor;
  return copy;
}

} // namespace

TEST(Judge, AnExperimentSlowerAsAWholeIsFoundWhereItsPointsAreTooNoisy) {
  std::vector<RunRecord> runs = hiccups(8);
  runs.push_back(scaled(runs[7], "5104", 1 / 1.05)); // every point 5% slower
  const Verdict v = judge(runs[6], runs.back(), NoiseModel::from_runs(runs, {"5104"}));
  // Each point alone moves 8% once in the history; the robust scale (winsorized successive
  // differences) no longer lets that one hiccup set its noise, so the points gate too.
  EXPECT_EQ(v.regressions(), 6);
  ASSERT_EQ(v.wholes.size(), 1u);
  const PointVerdict& w = v.wholes[0];
  EXPECT_EQ(w.points_taken_whole, 6);
  EXPECT_TRUE(w.regression);
  EXPECT_NEAR(std::exp(w.slowdown), 1.05, 0.002);
  EXPECT_EQ(v.exit_code(), 1);
  const std::string text = format_text({v});
  EXPECT_NE(text.find("1 of 1 experiments slower as a whole (offset_copy device memory 1.05"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.rfind("apod compare: REGRESSION", 0), 0u) << text;
  const json j = to_json({v});
  EXPECT_EQ(j["verdicts"][0]["whole_regressions"], 1);
  EXPECT_EQ(j["verdicts"][0]["multiple_comparisons"], "holm_weighted");
  EXPECT_EQ(j["verdicts"][0]["wholes"][0]["points"], 6);
  EXPECT_NE(format_markdown({v}).find("| device memory | 6 | 1.05"), std::string::npos);
}

TEST(Judge, AHiccupOfOnePointLeavesItsExperimentWholeTheSame) {
  std::vector<RunRecord> runs = hiccups(8);
  runs.push_back(scaled(runs[7], "b1cc", 0.92, 2)); // one point 8% slower, as in the history
  const Verdict v = judge(runs[6], runs.back(), NoiseModel::from_runs(runs, {"b1cc"}));
  // The robust scale leaves the one hiccup of each point out of its noise, so alone the compare
  // flags it (a regression or unconfirmed); `apod confirm` re-measures it (Confirm, below).
  EXPECT_EQ(v.regressions() + v.unconfirmed(), 1);
  EXPECT_NE(v.exit_code(), 0);
  ASSERT_EQ(v.wholes.size(), 1u);
  EXPECT_EQ(v.wholes[0].change, Change::same);
  EXPECT_LT(std::abs(v.wholes[0].slowdown), 0.002) << "the median does not see one point";
}

TEST(Judge, WithoutHistoryNoExperimentIsTakenWhole) {
  std::vector<RunRecord> runs = hiccups(2);
  const Verdict v = judge(runs[0], runs[1], NoiseModel());
  EXPECT_TRUE(v.wholes.empty()) << "no history of the median: its points' tests stand alone";
  EXPECT_EQ(format_text({v}).find("taken whole"), std::string::npos);
}

// Issue 24: three outcomes, gross changes without history, re-measuring, the power line.

TEST(Outcome, WithoutHistoryARunIsInconclusiveUnlessGross) {
  const auto runs = history({1.0, 0.99});
  const Verdict v = judge(runs[0], runs[1], NoiseModel());
  EXPECT_EQ(v.outcome(), Outcome::inconclusive);
  EXPECT_EQ(v.exit_code(), 7);
  const std::string text = format_text({v});
  EXPECT_EQ(text.rfind("apod compare: INCONCLUSIVE", 0), 0u) << text;
  EXPECT_NE(text.find("no history of this GPU"), std::string::npos) << text;
  EXPECT_EQ(v.count(Decision::same), 0) << "nothing is called the same that could not be seen";
  EXPECT_EQ(v.count(Decision::inconclusive), 6);
  EXPECT_NE(v.points[0].needs.find("no history"), std::string::npos) << v.points[0].needs;
  EXPECT_EQ(to_json({v})["verdicts"][0]["outcome"], "INCONCLUSIVE");
  EXPECT_NE(format_markdown({v}).find("INCONCLUSIVE"), std::string::npos);
}

TEST(Outcome, WithoutHistoryAFifthOfAnExperimentOrAHalvedPointIsARegression) {
  auto runs = history({1.0, 1.0});
  // A device-memory experiment 20% slower, every point.
  const Verdict fifth = judge(runs[0], scaled(runs[1], "f1f7", 1 / 1.21), NoiseModel());
  EXPECT_EQ(fifth.outcome(), Outcome::regression);
  ASSERT_EQ(fifth.wholes.size(), 1u);
  EXPECT_TRUE(fifth.wholes[0].gross && fifth.wholes[0].regression);
  // One point twice as slow.
  const Verdict halved = judge(runs[0], scaled(runs[1], "ba1f", 0.49, 3), NoiseModel());
  EXPECT_EQ(halved.outcome(), Outcome::regression);
  EXPECT_EQ(halved.regressions(), 1);
  EXPECT_TRUE(halved.points[0].gross);
  // 10% slower everywhere: below both, so inconclusive (not the same, not a regression).
  const Verdict tenth = judge(runs[0], scaled(runs[1], "7e17", 1 / 1.1), NoiseModel());
  EXPECT_EQ(tenth.outcome(), Outcome::inconclusive);
}

TEST(Outcome, TheClassOfAFigureIsItsDeclaration) {
  // memory_latency's DRAM latency in ns is device memory (its declaration), not a host phase.
  const auto runs = apod::runs_from_document(
      apod::read_results_file(APOD_SOURCE_ROOT "/data/runs/nvidia-h100-20261126-memory.json.gz"));
  bool seen = false;
  for (const Measurement* m : runs.front().measurements())
    if (m->experiment == "memory_latency" && m->metric == "latency_ns") {
      EXPECT_EQ(m->metric_class, MetricClass::device_memory);
      seen = true;
    }
  EXPECT_TRUE(seen);
}

TEST(Confirm, AReMeasureSettlesAnUnconfirmedSlowdownBothWays) {
  std::vector<RunRecord> runs = hiccups(8);
  const RunRecord candidate = scaled(runs[7], "b1cc", 0.92, 2); // one point 8% slower
  runs.push_back(candidate);
  const NoiseModel noise = NoiseModel::from_runs(runs, {"b1cc"});
  const Verdict first = judge(runs[6], runs.back(), noise);
  ASSERT_EQ(first.unconfirmed() + first.regressions(), 1);
  EXPECT_EQ(experiments_to_confirm(first), std::set<std::string>{"offset_copy"});
  // Re-measured at the usual level: a transient. Re-measured 8% slower again: a regression.
  std::vector<RunRecord> calm, slow;
  for (int i = 0; i < 3; ++i) {
    calm.push_back(scaled(runs[3 + i], fmt::format("ca{}", i), 1.0));
    slow.push_back(scaled(runs[3 + i], fmt::format("5a{}", i), 0.92, 2));
  }
  const auto pointers = [](const std::vector<RunRecord>& v) {
    std::vector<const RunRecord*> out;
    for (const auto& r : v)
      out.push_back(&r);
    return out;
  };
  const Verdict settled = judge_confirmed(first, runs[6], pointers(calm), noise);
  EXPECT_EQ(settled.unconfirmed(), 0);
  EXPECT_EQ(settled.regressions(), 0);
  EXPECT_EQ(settled.exit_code(), 0) << format_text({settled});
  const Verdict confirmed = judge_confirmed(first, runs[6], pointers(slow), noise);
  EXPECT_EQ(confirmed.regressions(), 1) << format_text({confirmed});
  EXPECT_TRUE(confirmed.points[0].confirmed);
  EXPECT_EQ(confirmed.exit_code(), 1);
}

TEST(Power, EveryFormatSaysWhatTheCompareCouldSee) {
  auto runs = history({1.0, 1.0005, 0.9995, 1.0, 1.0003, 1.0001, 0.9998, 1.0002});
  const Verdict v = judge(runs[6], runs[7], NoiseModel::from_runs(runs, {runs[7].id}));
  ASSERT_EQ(v.power.size(), 1u);
  EXPECT_EQ(v.power[0].metric_class, MetricClass::device_memory);
  EXPECT_GT(v.power[0].headline(), 0);
  const std::string line = power_line(v);
  EXPECT_NE(line.find("runs of history on this GPU"), std::string::npos) << line;
  EXPECT_NE(line.find("device memory"), std::string::npos) << line;
  EXPECT_NE(format_text({v}).find(line), std::string::npos);
  EXPECT_NE(format_markdown({v}).find("Sees: with"), std::string::npos);
  EXPECT_EQ(to_json({v})["verdicts"][0]["sees"], line);
  EXPECT_EQ(to_json({v})["verdicts"][0]["power"][0]["class"], "device_memory");
  FormatOptions o;
  o.power = true;
  EXPECT_NE(format_text({v}, o).find("what this compare could see"), std::string::npos);
}

TEST(Counts, TextMarkdownAndJsonAgree) {
  std::vector<RunRecord> runs = hiccups(8);
  runs.push_back(scaled(runs[7], "5104", 1 / 1.05));
  const Verdict v = judge(runs[6], runs.back(), NoiseModel::from_runs(runs, {"5104"}));
  const json j = to_json({v})["verdicts"][0];
  const std::string counts = j["summary"];
  EXPECT_NE(format_text({v}).find(counts), std::string::npos);
  EXPECT_EQ(j["regressions"], v.regressions());
  EXPECT_NE(counts.find(fmt::format("{} regressions", v.regressions())), std::string::npos)
      << counts;
  EXPECT_NE(counts.find("of 1 experiments slower as a whole"), std::string::npos)
      << "experiments counted once, not per class: " << counts;
}
