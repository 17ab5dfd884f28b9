// The overlap matrix's schedule (schedule.hpp): the gist's rows, the random order per round, the
// warm-up rule, when measured rounds stop, and the test for a position effect.
#include "schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace apod;

TEST(OverlapSchedule, RowsAreTheGistsCombinationsPerKernel) {
  const std::vector<Row> rows = gist_rows();
  ASSERT_EQ(rows.size(), 18u);
  const char* configs[] = {"mapped/default", "pinned/default", "pageable/default",
                           "mapped/new",     "pinned/new",     "pageable/new"};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].config(), configs[i % 6]) << i;
    EXPECT_EQ(rows[i].kernel, all_kernels[i / 6]) << i;
    EXPECT_EQ(rows[i].mapped, rows[i].pinned && i % 3 == 0) << i; // mapped implies pinned
    EXPECT_EQ(first_row_of_kernel(rows, i), i / 6 * 6) << i;
  }
}

TEST(OverlapSchedule, EachRoundIsAPermutationFixedBySeedAndRound) {
  std::set<std::vector<size_t>> seen;
  for (uint64_t round = 0; round < 50; ++round) {
    std::vector<size_t> order = round_order(7, round, 18);
    EXPECT_EQ(order, round_order(7, round, 18));
    seen.insert(order);
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i)
      EXPECT_EQ(order[i], i);
  }
  EXPECT_EQ(seen.size(), 50u);
  EXPECT_NE(round_order(7, 0, 18), round_order(8, 0, 18));
}

TEST(OverlapSchedule, NoRowKeepsThePositionOrTheNeighbourOfAFixedOrder) {
  // Over 1800 rounds every row runs first about 100 times (binomial sd ~10), and the gist's
  // first pinned row (1) follows many different rows.
  std::vector<int> first(18, 0);
  std::set<size_t> before_pinned;
  for (uint64_t round = 0; round < 1800; ++round) {
    const std::vector<size_t> order = round_order(0x0E7A9F, round, 18);
    ++first[order[0]];
    const auto at = std::find(order.begin(), order.end(), size_t(1));
    if (at != order.begin())
      before_pinned.insert(*(at - 1));
  }
  for (size_t r = 0; r < 18; ++r) {
    EXPECT_GT(first[r], 50) << r;
    EXPECT_LT(first[r], 150) << r;
  }
  EXPECT_EQ(before_pinned.size(), 17u);
}

TEST(OverlapSchedule, WarmupEndsWhenRoundsStopGettingFaster) {
  WarmupRule steady(3);
  EXPECT_FALSE(steady.done_after(10.0));
  EXPECT_FALSE(steady.done_after(10.2));
  EXPECT_TRUE(steady.done_after(9.9)); // three rounds, the last two within 10% of the fastest
  EXPECT_TRUE(steady.stable());

  WarmupRule falling(3); // a first-use cost that fades over several rounds
  int rounds = 0;
  for (double t : {100.0, 60.0, 30.0, 15.0, 11.0, 10.0, 10.5}) {
    ++rounds;
    if (falling.done_after(t))
      break;
  }
  EXPECT_EQ(rounds, 6);
  EXPECT_TRUE(falling.stable());
}

TEST(OverlapSchedule, WarmupTakesAtLeastTwoRoundsAndAtMostItsCap) {
  WarmupRule none(0);
  EXPECT_FALSE(none.done_after(5.0));
  EXPECT_TRUE(none.done_after(5.0));

  WarmupRule unsettled(3, 20);
  int rounds = 0;
  while (!unsettled.done_after(rounds % 2 ? 10.0 : 20.0))
    ++rounds;
  EXPECT_EQ(unsettled.rounds(), 20);
  EXPECT_FALSE(unsettled.stable());
}

TEST(OverlapSchedule, MeasuredRoundsStopAtTheCountOrTheBudget) {
  EXPECT_EQ(round_stop_reason(5, 0.1, 10, 1000, 1.0), "");
  EXPECT_EQ(round_stop_reason(5, 9.0, 10, 1000, 1.0), ""); // the minimum first
  EXPECT_EQ(round_stop_reason(10, 1.0, 10, 1000, 1.0), stop_time_cap);
  EXPECT_EQ(round_stop_reason(1000, 0.5, 10, 1000, 1.0), stop_max_samples);
  EXPECT_EQ(round_stop_reason(12, 0.5, 10, 1000, 1.0), "");
}

TEST(OverlapSchedule, FinishedSeriesAreNoisyByTheAdaptiveRule) {
  SamplingPolicy policy;
  policy.min_samples = 10;
  policy.target_ci_rel = 0.005;
  Series tight, wide, flagged;
  for (int i = 0; i < 40; ++i) {
    tight.add(1.0 + 0.0001 * (i % 5));
    wide.add(1.0 + 0.2 * (i % 5));
    flagged.add(1.0, i < 35 ? 1 : 0); // only 5 used
  }
  finish_series(tight, stop_time_cap, policy);
  finish_series(wide, stop_time_cap, policy);
  finish_series(flagged, stop_max_samples, policy);
  EXPECT_EQ(tight.stop_reason(), stop_time_cap);
  EXPECT_FALSE(tight.noisy());
  EXPECT_TRUE(wide.noisy());
  EXPECT_EQ(flagged.stop_reason(), stop_max_samples);
  EXPECT_TRUE(flagged.noisy());
}

TEST(OverlapSchedule, PositionEffectIsADifferenceBeyondNoise) {
  const auto series = [](double centre, double spread, uint8_t flag_from = 255) {
    Series s;
    for (int i = 0; i < 30; ++i)
      s.add(centre + spread * ((i * 7) % 11 - 5) / 5.0, i >= flag_from ? 1 : 0);
    return s;
  };
  EXPECT_FALSE(differs_beyond_noise(series(30, 3), series(30, 3)));
  EXPECT_TRUE(differs_beyond_noise(series(350, 100), series(30, 3)));     // issue 12's first row
  EXPECT_FALSE(differs_beyond_noise(series(31.5, 0.1), series(30, 0.1))); // 5%: below the floor
  EXPECT_TRUE(differs_beyond_noise(series(40, 0.5), series(30, 0.5)));
  EXPECT_FALSE(differs_beyond_noise(series(30, 3), series(30, 3, 20))); // fewer, same level
  EXPECT_FALSE(differs_beyond_noise(Series(), series(30, 3)));
}

TEST(OverlapSchedule, ColdRowsCopyEveryCopyRowOnceAfterTheGistsRows) {
  const std::vector<Row> rows = with_cold_rows(gist_rows());
  ASSERT_EQ(rows.size(), 18u + 12u); // 2 copy rows of 3 per kernel and stream
  for (size_t i = 0; i < 18; ++i)
    EXPECT_FALSE(rows[i].cold) << i;
  for (size_t i = 18; i < rows.size(); ++i) {
    EXPECT_TRUE(rows[i].cold) << i;
    EXPECT_FALSE(rows[i].mapped) << i;
    EXPECT_STREQ(rows[i].host_buffer(), "cold");
  }
  EXPECT_STREQ(rows[0].host_buffer(), "just_written");
  // A cold row's ratio divides by its kernel's mapped row, as the gist's rows do.
  EXPECT_EQ(first_row_of_kernel(rows, 18), 0u);
  EXPECT_EQ(with_cold_rows(rows).size(), rows.size()); // cold rows are not doubled
}
