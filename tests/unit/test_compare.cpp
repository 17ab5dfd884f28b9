// Regression gating (runner/compare.cpp): the test statistic, the verdicts and the pairing.
#include "analysis/compare.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace apod;

namespace {

json measurement(const std::string& key, std::vector<double> samples, json params = {{"offset", 0}},
                 const std::string& direction = "higher") {
  return {{"experiment", "offset_copy"}, {"params", params}, {"metric", "effective_bandwidth"},
          {"unit", "GB/s"}, {"direction", direction}, {"samples", samples}, {"status", "ok"},
          {"verified", true}, {"comparability_key", key}};
}

std::vector<double> noisy(double center, double rel_noise, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(center, center * rel_noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

RunRecord run(const std::string& id, std::vector<json> ms) {
  return run_from_json({{"id", id}, {"started_at", "2026-11-22T00:00:00.000Z"}, {"status", "complete"},
                        {"device", {{"name", "GPU"}}}, {"measurements", ms}},
                       "run " + id);
}

}  // namespace

TEST(Compare, MannWhitneyMatchesTheNormalApproximation) {
  // Fully separated samples of 8: U = 0, z = (32 - 0.5) / sqrt(8*8*17/12) = 3.308, p = 0.00094.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16}), 0.00094, 0.00002);
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {1, 2, 3}), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1.0}), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0) << "all ties carry no evidence";
}

TEST(Compare, TenPercentSlowdownIsARegression) {
  const auto c = compare_runs(run("a", {measurement("k", noisy(100, 0.005, 20, 1))}),
                              run("b", {measurement("k", noisy(90, 0.005, 20, 2))}), CompareConfig{});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].verdict, "slower");
  EXPECT_TRUE(c.pairs[0].regression);
  EXPECT_NEAR(c.pairs[0].change, -0.10, 0.01);
  EXPECT_EQ(c.pairs[0].test, "mann_whitney");
  EXPECT_TRUE(c.regression());
}

TEST(Compare, LowerIsBetterMetricsInvertTheDirection) {
  const auto c = compare_runs(run("a", {measurement("k", noisy(10, 0.005, 20, 1), {{"n", 1}}, "lower")}),
                              run("b", {measurement("k", noisy(8, 0.005, 20, 2), {{"n", 1}}, "lower")}), CompareConfig{});
  EXPECT_EQ(c.pairs[0].verdict, "faster") << "less time is an improvement";
  EXPECT_FALSE(c.regression());
}

TEST(Compare, NoiseAloneStaysGreen) {
  int regressions = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    const auto c = compare_runs(run("a", {measurement("k", noisy(100, 0.01, 20, seed))}),
                                run("b", {measurement("k", noisy(100, 0.01, 20, seed + 1000))}), CompareConfig{});
    regressions += c.regression();
  }
  EXPECT_EQ(regressions, 0) << "same distribution, 1% noise, 5% threshold: never a regression";
}

TEST(Compare, SmallSignificantChangeIsSameAndNoisyDataIsInconclusive) {
  auto c = compare_runs(run("a", {measurement("k", noisy(100, 0.001, 30, 1))}),
                        run("b", {measurement("k", noisy(98, 0.001, 30, 2))}), CompareConfig{});
  EXPECT_EQ(c.pairs[0].verdict, "same") << "2% is significant but under the 5% threshold";
  c = compare_runs(run("a", {measurement("k", noisy(100, 0.4, 12, 3))}),
                   run("b", {measurement("k", noisy(100, 0.4, 12, 4))}), CompareConfig{});
  EXPECT_EQ(c.pairs[0].verdict, "inconclusive");
}

TEST(Compare, FewSamplesUseConfidenceIntervals) {
  const auto c = compare_runs(run("a", {measurement("k", {100, 101, 99})}), run("b", {measurement("k", {80, 81, 79})}),
                              CompareConfig{});
  EXPECT_EQ(c.pairs[0].test, "ci_overlap");
  EXPECT_TRUE(c.pairs[0].regression);
}

TEST(Compare, UnpairedMeasurementsAreListedWithTheirReason) {
  const auto c = compare_runs(
      run("a", {measurement("k1", {1, 2, 3}, {{"offset", 0}}), measurement("k2", {1, 2, 3}, {{"offset", 1}}),
                measurement("k3", {1, 2, 3}, {{"offset", 2}})}),
      run("b", {measurement("k1", {1, 2, 3}, {{"offset", 0}}), measurement("OTHER-DRIVER", {1, 2, 3}, {{"offset", 1}}),
                measurement("k9", {1, 2, 3}, {{"offset", 9}})}),
      CompareConfig{});
  EXPECT_EQ(c.pairs.size(), 1u);
  std::map<std::string, int> reasons;
  for (const auto& u : c.unpaired) reasons[u.reason]++;
  EXPECT_EQ(reasons["not_comparable"], 1) << "same point, different environment";
  EXPECT_EQ(reasons["new"], 1);
  EXPECT_EQ(reasons["removed"], 1);
}

TEST(Compare, PerExperimentThresholdsFromConfig) {
  const CompareConfig config = parse_compare_config(json::parse(R"({"threshold": 0.05, "experiments": {"offset_copy": {"threshold": 0.2}}})"));
  EXPECT_DOUBLE_EQ(config.threshold_for("offset_copy"), 0.2);
  EXPECT_DOUBLE_EQ(config.threshold_for("stride_copy"), 0.05);
  const auto c = compare_runs(run("a", {measurement("k", noisy(100, 0.005, 20, 1))}),
                              run("b", {measurement("k", noisy(90, 0.005, 20, 2))}), config);
  EXPECT_FALSE(c.regression()) << "10% is under this experiment's 20% threshold";
  EXPECT_THROW(parse_compare_config(json::parse(R"({"threshold": "x"})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse(R"({"thresold": 0.1})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse(R"({"experiments": {"a": 1}})")), InputError);
  EXPECT_THROW(parse_compare_config(json::parse("[]")), InputError);
}

TEST(Compare, MarkdownEscapesTablesAndLeadsWithRegressions) {
  const auto c = compare_runs(run("a", {measurement("k", noisy(100, 0.005, 20, 1), {{"label", "a|b"}})}),
                              run("b", {measurement("k", noisy(80, 0.005, 20, 2), {{"label", "a|b"}})}), CompareConfig{});
  const std::string md = format_markdown(c);
  EXPECT_NE(md.find("regression found"), std::string::npos);
  EXPECT_NE(md.find("a\\|b"), std::string::npos);
  EXPECT_NE(md.find("**regression**"), std::string::npos);
}

TEST(Compare, AnalysisFiguresAreShownButNeverGate) {
  json base = measurement("k", noisy(0.9, 0.001, 20, 1), {{"n", 1}});
  json cand = measurement("k", noisy(0.5, 0.001, 20, 2), {{"n", 1}});
  base["metric"] = cand["metric"] = "parallel_fraction";
  auto c = compare_runs(run("a", {base}), run("b", {cand}), CompareConfig{});
  EXPECT_EQ(c.pairs[0].verdict, "slower");
  EXPECT_FALSE(c.pairs[0].gated);
  EXPECT_FALSE(c.regression()) << "a derived fraction alone never fails a night";
  const CompareConfig gate_all = parse_compare_config(json::parse(R"({"ungated_metrics": []})"));
  c = compare_runs(run("a", {base}), run("b", {cand}), gate_all);
  EXPECT_TRUE(c.regression());
}
