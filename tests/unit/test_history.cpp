// Change points (runner/analysis/history.cpp) on small series whose answer is known: what a step
// is and is not, what a drift is, and series kept apart per machine. The rates on real histories
// are measured by tests/history/evaluate_detector.
#include "analysis/history.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace apod;

namespace {

/// 40 runs around 100 with a deterministic 0.1% wobble, changed by `shape(i)` (a factor).
template <class Shape> std::vector<double> series(Shape shape) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i)
    v.push_back(100 * (1 + 0.001 * std::sin(2.3 * i)) * shape(i));
  return v;
}

} // namespace

TEST(Steps, ASustainedStepIsMarkedWhereItStarts) {
  const auto steps = detect_steps(series([](int i) { return i >= 20 ? 0.95 : 1.0; }));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].index, 20);
  EXPECT_NEAR(steps[0].change_rel, -0.05, 0.003);
}

TEST(Steps, AnExcursionThatRevertsWithinTheConfirmationWindowIsNot) {
  for (int length : {1, 2, 3, 4})
    EXPECT_TRUE(
        detect_steps(series([&](int i) { return i >= 20 && i < 20 + length ? 1.2 : 1.0; })).empty())
        << length << "-run excursion";
  EXPECT_EQ(detect_steps(series([](int i) { return i >= 20 && i < 26 ? 1.2 : 1.0; })).size(), 2u)
      << "six runs outlast the window: a step up and a step down";
}

TEST(Steps, ARampIsADriftNotAStep) {
  const auto ramp = series([](int i) { return i >= 16 ? 1 + 0.01 * (i - 15) : 1.0; });
  EXPECT_TRUE(detect_steps(ramp).empty());
  const auto drifts = detect_drifts(ramp);
  ASSERT_FALSE(drifts.empty());
  EXPECT_GE(drifts[0].alarm, 16);
  EXPECT_NEAR(drifts[0].per_run_rel, 0.01, 0.004);
}

TEST(Drifts, ThreeTenthsOfAPercentPerRunIsFound) {
  const auto drifts =
      detect_drifts(series([](int i) { return i >= 16 ? 1 + 0.003 * (i - 15) : 1.0; }));
  ASSERT_FALSE(drifts.empty());
  EXPECT_GE(drifts[0].start, 15);
  EXPECT_LE(drifts[0].alarm, 24);
  EXPECT_GT(drifts[0].change_rel, 0.01);
}

TEST(Drifts, NoiseSpikesAndExcursionsAreNone) {
  EXPECT_TRUE(detect_drifts(series([](int) { return 1.0; })).empty());
  EXPECT_TRUE(detect_drifts(series([](int i) { return i == 20 ? 1.5 : 1.0; })).empty());
  EXPECT_TRUE(detect_drifts(series([](int i) { return i >= 20 && i < 24 ? 1.2 : 1.0; })).empty());
}

TEST(Series, KeyedByMachineWithTheModelViewAvailable) {
  std::vector<RunRecord> runs;
  for (int i = 0; i < 4; ++i) {
    RunRecord r;
    r.id = fmt::format("a{}", i);
    r.started_at = fmt::format("2026-11-22T00:0{}:00.000Z", i);
    r.device.name = "NVIDIA H200";
    r.device.uuid = i % 2 ? "GPU-1" : "GPU-2";
    r.environment.host = "vm";
    Measurement m;
    m.experiment = "offset_copy";
    m.metric = "effective_bandwidth";
    m.unit = "GB/s";
    m.samples = {100.0 + i};
    m.verified = true;
    m.comparability_key = "k";
    r.experiments.push_back({"offset_copy", 1, "complete", "", "", std::nullopt, {m}});
    runs.push_back(r);
  }
  const auto machines = history_series(runs, SeriesLevel::machine);
  ASSERT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines[0].scope, "GPU-2@vm");
  EXPECT_EQ(machines[0].medians, (std::vector<double>{100, 102}));
  const auto model = history_series(runs, SeriesLevel::model);
  ASSERT_EQ(model.size(), 1u);
  EXPECT_EQ(model[0].scope, "NVIDIA H200");
  EXPECT_EQ(model[0].run_ids.size(), 4u);
}
