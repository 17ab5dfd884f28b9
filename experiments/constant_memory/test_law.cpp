// The constant_memory experiment's host arithmetic (law.cpp): the address groups give k unique
// addresses per read, the chains stay distinct, the expected sums and chain ends match a
// straightforward simulation, and the law's fit recovers a line and its ratio.
#include "law.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace apod::constant_memory;

TEST(ConstantLaw, AWarpReadsExactlyKUniqueAddressesAtEveryTrip) {
  for (uint32_t k : {1u, 2u, 4u, 8u, 16u, 32u})
    for (uint32_t trip : {0u, 1u, 31u, 100u}) {
      std::set<uint32_t> columns;
      for (uint32_t lane = 0; lane < 32; ++lane)
        columns.insert(column_of(lane, k, trip));
      EXPECT_EQ(columns.size(), k) << "k " << k << " trip " << trip;
    }
}

TEST(ConstantLaw, TheIndexMovesEveryTripSoNothingCanBeHoisted) {
  EXPECT_NE(column_of(0, 1, 0), column_of(0, 1, 1));
  EXPECT_EQ(column_of(0, 1, 0), column_of(0, 1, 32)); // and wraps inside the row
}

TEST(ConstantLaw, TheChainIsOnePermutationCycleAndKChainsStayDistinct) {
  std::set<uint32_t> seen;
  uint32_t offset = 0;
  for (uint32_t i = 0; i < table_words; ++i) {
    seen.insert(offset);
    offset = chain_next_offset(offset);
    EXPECT_EQ(offset % 4, 0u);
    EXPECT_LT(offset, table_words * 4);
  }
  EXPECT_EQ(seen.size(), size_t(table_words)); // full period: every node once
  EXPECT_EQ(offset, 0u);
  for (uint32_t k : {2u, 8u, 32u})
    for (uint64_t steps : {0ull, 1ull, 77ull, 4608ull}) {
      std::set<uint32_t> ends;
      for (uint32_t lane = 0; lane < 32; ++lane)
        ends.insert(expected_chain_end(lane, k, steps));
      EXPECT_EQ(ends.size(), k);
    }
}

TEST(ConstantLaw, TheTablesHoldTheValuesTheRegisterSourceComputes) {
  const auto table = table_words_host();
  const auto chain = chain_offsets_host();
  ASSERT_EQ(table.size(), size_t(table_words));
  EXPECT_EQ(table[3], 3u * value_multiplier);
  EXPECT_EQ(chain[0], 4u);  // node 0 -> node 1
  EXPECT_EQ(chain[1], 24u); // node 1 -> node 6
  EXPECT_EQ(expected_chain_end(0, 1, 2), 24u);
}

TEST(ConstantLaw, TheExpectedSumIsTheSumOfTheWordsTheThreadReads) {
  // Lane 3 at k = 2 is group 1: trip 0 reads column 1 of each row, trip 1 column 2.
  uint32_t sum = 0;
  for (uint32_t col : {1u, 2u})
    for (uint32_t row = 0; row < reads_per_trip; ++row)
      sum += table_value(row * row_words + col);
  EXPECT_EQ(expected_thread_sum(3, 2, 2), sum);
  EXPECT_EQ(expected_thread_sum(3, 2, 2), expected_thread_sum(1, 2, 2)); // same group
  EXPECT_NE(expected_thread_sum(3, 2, 2), expected_thread_sum(2, 2, 2));
  EXPECT_NE(expected_thread_sum(0, 1, 512), expected_thread_sum(0, 1, 511));
}

TEST(ConstantLaw, SerialisingReadsGetFewerTripsSoPointsTakeAlike) {
  EXPECT_EQ(trips_per_thread(true, 1, 512), 512u);
  EXPECT_EQ(trips_per_thread(true, 8, 512), 64u);
  EXPECT_EQ(trips_per_thread(true, 32, 128), min_trips);
  EXPECT_EQ(trips_per_thread(false, 32, 512), 512u);
  EXPECT_THROW(trips_per_thread(true, 0, 512), std::invalid_argument);
}

TEST(ConstantLaw, TheFitRecoversALineAndItsRatioToOneAddress) {
  // Cost 0.5 + 1 x k clocks per warp read: rates 1 / (0.5 + k).
  std::vector<double> k = {1, 2, 4, 8, 16, 32}, rate;
  for (double x : k)
    rate.push_back(1.0 / (0.5 + x));
  const LineFit f = fit_cost_law(k, rate);
  EXPECT_NEAR(f.intercept, 0.5, 1e-12);
  EXPECT_NEAR(f.slope, 1.0, 1e-12);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_NEAR(fitted_rate(f, 8), 1.0 / 8.5, 1e-12);
  // time(32) / time(1) = 32.5 / 1.5: below k = 32 by the fixed half clock.
  EXPECT_NEAR(cost_ratio(rate[0], rate[5]), 32.5 / 1.5, 1e-12);
  EXPECT_THROW(cost_ratio(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(fit_cost_law({1, 2}, {1.0, 0.0}), std::invalid_argument);
}

TEST(ConstantLaw, AFlatSourceFitsWithNoSlopeAndANoisyOneWithLowerR2) {
  const LineFit flat = fit_line({1, 2, 4}, {3, 3, 3});
  EXPECT_DOUBLE_EQ(flat.slope, 0.0);
  EXPECT_DOUBLE_EQ(flat.intercept, 3.0);
  EXPECT_DOUBLE_EQ(flat.r2, 1.0);
  const LineFit noisy = fit_line({1, 2, 3, 4}, {1, 3, 2, 4});
  EXPECT_NEAR(noisy.slope, 0.8, 1e-12);
  EXPECT_LT(noisy.r2, 1.0);
  EXPECT_THROW(fit_line({1}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_line({2, 2}, {1, 3}), std::invalid_argument);
}

TEST(ConstantDeclaration, ThePlanHasFourSourcesAtSixAddressCountsWithThreeMetrics) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(apod::PlanInput{});
  ASSERT_EQ(points.size(), 24u);
  for (const auto& p : points)
    EXPECT_EQ(p.metrics.size(), 3u);
}
