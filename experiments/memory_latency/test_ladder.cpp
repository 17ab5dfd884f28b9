// The latency ladder's host arithmetic: the sweep covers each level and the steps between them,
// every sample is a full lap, and the level detection finds the L1, the L2's near and far
// partitions and DRAM on synthetic curves and on the committed runs of both GPU models (the
// detected L2 lies near the device's L2; each step is a real rise).
#include "committed_runs.hpp"
#include "ladder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace apod;

namespace {

constexpr int64_t h100_shared = 233472, h100_l2 = 52428800;

// A four-level curve in cycles: L1 (32) holding `l1` bytes, then a random-replacement mix into
// the near L2 (276) up to half the L2, the far L2 (475) up to the L2, and DRAM (690).
double modelled_cycles(double ws, double l1, double l2) {
  const auto mix = [](double ws, double capacity, double inside, double outside) {
    if (ws <= capacity)
      return inside;
    const double hit = capacity / ws;
    return hit * inside + (1 - hit) * outside;
  };
  const double dram = 690;
  const double beyond_near = ws <= l2 ? 475.0 : mix(ws, l2, 475, dram) * 1.0;
  const double l2_part = ws <= l2 / 2 ? 276.0 : beyond_near;
  return mix(ws, l1, 32, l2_part);
}

std::vector<double> curve(const std::vector<size_t>& sets, double l1, double l2) {
  std::vector<double> out;
  for (size_t s : sets)
    out.push_back(modelled_cycles(double(s), l1, l2));
  return out;
}

} // namespace

TEST(Ladder, SweepIsDenseAroundTheL1AndTheL2HalvesAndEndsAtTwiceTheL2) {
  const auto sets = ladder_working_sets(h100_shared, h100_l2, false);
  EXPECT_TRUE(std::is_sorted(sets.begin(), sets.end()));
  EXPECT_EQ(std::adjacent_find(sets.begin(), sets.end()), sets.end());
  EXPECT_EQ(sets.back(), size_t(2 * h100_l2));
  for (size_t s : sets)
    EXPECT_EQ(s % 128, 0u);
  const auto count_in = [&](double lo, double hi) {
    return std::count_if(sets.begin(), sets.end(), [&](size_t s) { return s >= lo && s <= hi; });
  };
  EXPECT_GE(count_in(0.5 * h100_shared, 1.5 * h100_shared), 6);
  EXPECT_GE(count_in(0.375 * h100_l2, 0.625 * h100_l2), 5);
  EXPECT_GE(count_in(0.75 * h100_l2, 1.25 * h100_l2), 4);
  // The sum of the laps bounds the run time: about 9.6 L2s of lines per pass of the sweep.
  double total = 0;
  for (size_t s : sets)
    total += double(s);
  EXPECT_LT(total, 10.0 * h100_l2);
  EXPECT_LT(ladder_working_sets(h100_shared, h100_l2, true).size(), 6u);
  for (const LadderProbe& p : ladder_probes(h100_shared, h100_l2))
    EXPECT_NE(std::find(sets.begin(), sets.end(), p.bytes), sets.end()) << p.level;
}

TEST(Ladder, EverySampleIsAtLeastAFullLapAndNeverAWholeNumberOfLaps) {
  EXPECT_EQ(lap_steps(4096, 16384), 16385u);             // 32 lines: 512 laps, one more step
  EXPECT_EQ(lap_steps(4096 * 3, 16384), 16384u);         // 96 lines do not divide 16384
  EXPECT_EQ(lap_steps(size_t(h100_l2), 16384), 409601u); // one lap of 409600 lines, plus one
  for (size_t bytes : {size_t(128 * 7), size_t(1) << 20, size_t(2 * h100_l2)}) {
    const uint64_t lines = bytes / 128, steps = lap_steps(bytes, 4096);
    EXPECT_GE(steps, lines);
    EXPECT_NE(steps % lines, 0u);
  }
}

TEST(Ladder, FindsFourLevelsOnAModelledHopperCurve) {
  const auto sets = ladder_working_sets(h100_shared, h100_l2, false);
  const double l1 = 0.875 * h100_shared; // what the unified array leaves the L1
  const auto plateaus = detect_plateaus(sets, curve(sets, l1, double(h100_l2)));
  const LadderLevels levels = name_levels(plateaus, h100_l2);
  ASSERT_EQ(levels.plateaus, 4);
  EXPECT_TRUE(levels.dram_found);
  EXPECT_EQ(levels.l1_bytes, size_t(l1) / 128 * 128);
  EXPECT_EQ(levels.l2_near_bytes, size_t(h100_l2 / 2));
  EXPECT_EQ(levels.l2_bytes, size_t(h100_l2));
  EXPECT_NEAR(levels.l1_latency, 32, 1e-9);
  EXPECT_NEAR(levels.l2_near_latency, 276, 0.05 * 276); // the L1 still serves a share at 4 MiB
  EXPECT_NEAR(levels.l2_far_latency, 475, 0.05 * 475);
  EXPECT_GT(levels.dram_latency, 1.15 * 475); // 2x the L2 still hits it now and then here
}

TEST(Ladder, WithoutAFarPartitionTheL2IsOneLevel) {
  const auto sets = ladder_working_sets(h100_shared, h100_l2, false);
  std::vector<double> y;
  for (size_t s : sets) // L1 to 160 KiB, one L2 level to the full L2, DRAM
    y.push_back(s <= 163840 ? 32.0 : s <= size_t(h100_l2) ? 276.0 : 690.0);
  const LadderLevels levels = name_levels(detect_plateaus(sets, y), h100_l2);
  EXPECT_EQ(levels.plateaus, 3);
  EXPECT_EQ(levels.l2_bytes, size_t(h100_l2));
  EXPECT_EQ(levels.l2_near_bytes, 0u) << "no near/far step in the curve";
  EXPECT_NEAR(levels.l2_near_latency, 276, 1e-9);
  EXPECT_TRUE(levels.dram_found);
}

TEST(Ladder, NoiseOfAPercentAddsNoLevelAndAFlatCurveIsOneLevel) {
  const auto sets = ladder_working_sets(h100_shared, h100_l2, false);
  auto y = curve(sets, 0.875 * h100_shared, double(h100_l2));
  for (size_t i = 0; i < y.size(); ++i)
    y[i] *= 1 + 0.01 * ((i * 7919) % 3 - 1.0); // -1%, 0, +1%, deterministic
  EXPECT_EQ(name_levels(detect_plateaus(sets, y), h100_l2).plateaus, 4);
  // A level that drifts up by 15% as the set fills the cache (conflict misses) stays one level.
  auto drifting = curve(sets, 0.875 * h100_shared, double(h100_l2));
  for (size_t i = 0; i < sets.size(); ++i)
    if (sets[i] > 100000 && sets[i] <= 204288)
      drifting[i] *= 1.15;
  const LadderLevels drift = name_levels(detect_plateaus(sets, drifting), h100_l2);
  EXPECT_EQ(drift.plateaus, 4);
  EXPECT_EQ(drift.l1_bytes, 204288u);
  const std::vector<double> flat(sets.size(), 100.0);
  const auto one = detect_plateaus(sets, flat);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.front().last_bytes, sets.back());
  EXPECT_FALSE(name_levels(one, h100_l2).dram_found);
  EXPECT_THROW(detect_plateaus({1, 2}, {1.0}), std::invalid_argument);
  EXPECT_THROW(detect_plateaus({1, 2}, {1.0, 0.0}), std::invalid_argument);
}

// The committed runs: the stored detection and a detection of the stored curve agree, the L2
// found lies within 15% of the device's L2 (the sweep's spacing there is 1/8 of it), and every
// level is a step of at least 25% over the one below.
TEST(Ladder, CommittedRunsOfBothGpusShowEveryStepAndTheDevicesL2) {
  for (const auto& batch : committed::batches) {
    const auto runs = committed::runs(batch);
    ASSERT_FALSE(runs.empty()) << batch.gpu;
    for (const RunRecord& run : runs) {
      std::map<size_t, double> cycles;
      for (const Measurement* m : committed::points(run, "memory_latency", "latency_cycles"))
        if (m->params.value("level", "") == "sweep")
          cycles[m->params["working_set_bytes"].get<size_t>()] = committed::median(*m);
      ASSERT_GE(cycles.size(), 10u) << batch.gpu << " " << run.id;
      std::vector<size_t> sets;
      std::vector<double> y;
      for (const auto& [bytes, c] : cycles)
        sets.push_back(bytes), y.push_back(c);
      const int64_t l2 = run.device.l2_bytes;
      const LadderLevels levels = name_levels(detect_plateaus(sets, y), l2);
      SCOPED_TRACE(std::string(batch.gpu) + " run " + run.id);
      EXPECT_GE(levels.plateaus, 3);
      EXPECT_TRUE(levels.dram_found);
      EXPECT_NEAR(double(levels.l2_bytes) / double(l2), 1.0, 0.15);
      EXPECT_GT(levels.l2_near_latency, 1.25 * levels.l1_latency);
      EXPECT_GT(levels.dram_latency,
                1.25 * std::max(levels.l2_near_latency, levels.l2_far_latency));
      if (levels.l2_near_bytes > 0) {
        EXPECT_GT(levels.l2_far_latency, 1.25 * levels.l2_near_latency);
        EXPECT_NEAR(double(levels.l2_near_bytes) / double(l2), 0.5, 0.15);
      }
      // The runner stores the detection on the medians' curve (extra.of_medians) and, as the
      // figure, the median of one detection per repetition: the first is this test's own
      // computation, exactly; the second may land a step lower (43.75 MiB where the medians say
      // 50 MiB in one H100 run of the -arith batch) and is held to the device's L2 like it.
      for (const Measurement* m : committed::points(run, "memory_latency", "detected_size_bytes")) {
        if (m->params.value("level", "") == "l2") {
          EXPECT_EQ(m->extra["of_medians"]["l2"].get<size_t>(), levels.l2_bytes);
          EXPECT_NEAR(committed::median(*m) / double(l2), 1.0, 0.15);
        }
      }
    }
  }
}
