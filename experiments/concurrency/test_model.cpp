// The concurrency experiment's host arithmetic (model.cpp): the chain every kernel's output is
// checked against, the reading of the kernels' windows, the connection count in effect, the
// concurrency and sharing models, and the environment variable put back.
#include "model.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

using namespace apod::concurrency;

TEST(ConcurrencyModel, TheFastChainIsTheStepwiseChain) {
  for (uint32_t x : {0u, 1u, 12345u, 0xFFFFFFFFu})
    for (int steps : {0, 1, 2, 3, 7, 8, 1000, 4097, 20000})
      EXPECT_EQ(chain(x, steps), chain_stepwise(x, steps)) << x << " " << steps;
  EXPECT_THROW(chain(1, -1), std::invalid_argument);
}

TEST(ConcurrencyModel, AChainOneStepShortAndEveryThreadsSeedDiffer) {
  EXPECT_NE(chain(chain_seed(3, 5), 20000), chain(chain_seed(3, 5), 19999));
  std::set<uint32_t> seeds;
  for (uint32_t k = 0; k < 128; ++k)
    for (uint32_t lane = 0; lane < 32; ++lane)
      seeds.insert(chain_seed(k, lane));
  EXPECT_EQ(seeds.size(), 128u * 32u);
}

TEST(ConcurrencyModel, PeakOverlapCountsWindowsOpenAtOnceAndTouchingOnesDoNot) {
  EXPECT_EQ(peak_overlap({}), 0);
  EXPECT_EQ(peak_overlap({{0, 10, 0}, {10, 20, 0}, {20, 30, 0}}), 1); // back to back
  EXPECT_EQ(peak_overlap({{0, 10, 0}, {5, 15, 1}, {6, 8, 2}, {14, 20, 3}}), 3);
  EXPECT_EQ(peak_overlap({{0, 100, 0}, {0, 100, 1}, {0, 100, 2}, {0, 100, 3}}), 4);
}

TEST(ConcurrencyModel, MeanConcurrencyIsBusyTimeOverTheSpan) {
  // Four windows of 10 in two pairs: 40 busy over a span of 20.
  EXPECT_DOUBLE_EQ(mean_concurrency({{0, 10, 0}, {0, 10, 1}, {10, 20, 0}, {10, 20, 1}}), 2.0);
  EXPECT_DOUBLE_EQ(mean_concurrency({{0, 10, 0}, {10, 20, 0}}), 1.0);
  EXPECT_EQ(span_ns({{5, 10, 0}, {100, 150, 1}}), 145u);
  EXPECT_THROW(mean_concurrency({}), std::invalid_argument);
  EXPECT_THROW(mean_concurrency({{5, 5, 0}}), std::invalid_argument);
}

TEST(ConcurrencyModel, CrossOverlapIsOneSideBySideAndZeroTakingTurns) {
  // Side by side: both groups open the whole time.
  EXPECT_DOUBLE_EQ(cross_overlap({{0, 10, 0}, {10, 20, 0}, {0, 10, 1}, {10, 20, 1}}), 1.0);
  // Time-sliced: group 0 then group 1.
  EXPECT_DOUBLE_EQ(cross_overlap({{0, 10, 0}, {10, 20, 0}, {20, 30, 1}, {30, 40, 1}}), 0.0);
  // Half: 0 on [0, 20), 1 on [10, 30): both for 10 of 30.
  EXPECT_NEAR(cross_overlap({{0, 20, 0}, {10, 30, 1}}), 1.0 / 3.0, 1e-12);
  // Two windows of one group at once do not count as both groups.
  EXPECT_DOUBLE_EQ(cross_overlap({{0, 10, 0}, {0, 10, 0}}), 0.0);
  EXPECT_THROW(cross_overlap({}), std::invalid_argument);
}

TEST(ConcurrencyModel, ConnectionsInEffectFollowTheVariableWithinOneTo32ElseEight) {
  EXPECT_EQ(connections_in_effect(nullptr), 8);
  EXPECT_EQ(connections_in_effect(""), 8);
  EXPECT_EQ(connections_in_effect("32"), 32);
  EXPECT_EQ(connections_in_effect("1"), 1);
  EXPECT_EQ(connections_in_effect("16"), 16);
  EXPECT_EQ(connections_in_effect("0"), 8);
  EXPECT_EQ(connections_in_effect("33"), 8);
  EXPECT_EQ(connections_in_effect("4x"), 8);
  EXPECT_EQ(connections_to_request(8), 32);
  EXPECT_EQ(connections_to_request(16), 32);
  EXPECT_EQ(connections_to_request(32), 8);
}

TEST(ConcurrencyModel, ConcurrencyIsTheSmallestOfStreamsConnectionsKernelsAndResidentLimits) {
  const auto grids = resident_grid_limit(9, 0);
  ASSERT_TRUE(grids.has_value());
  EXPECT_EQ(*grids, 128);
  EXPECT_EQ(resident_grid_limit(8, 0), 128);
  EXPECT_EQ(resident_grid_limit(7, 5), 128);
  EXPECT_FALSE(resident_grid_limit(10, 0).has_value());
  EXPECT_FALSE(resident_grid_limit(7, 2).has_value());
  // H100: 132 SMs x 32 resident one-warp blocks.
  EXPECT_EQ(concurrency_model(1, 8, 128, grids, 132 * 32, true), 1);
  EXPECT_EQ(concurrency_model(4, 8, 128, grids, 132 * 32, true), 4);
  EXPECT_EQ(concurrency_model(64, 8, 128, grids, 132 * 32, true), 8);
  EXPECT_EQ(concurrency_model(64, 32, 128, grids, 132 * 32, true), 32);
  EXPECT_EQ(concurrency_model(64, 32, 16, grids, 132 * 32, true), 16);
  EXPECT_EQ(concurrency_model(256, 512, 1000, grids, 132 * 32, true), 128); // hypothetical counts
  EXPECT_EQ(concurrency_model(64, 32, 128, std::nullopt, 20, true), 20);
  EXPECT_THROW(concurrency_model(0, 8, 128, grids, 10, true), std::invalid_argument);
}

TEST(ConcurrencyModel, RoundRobinQueuesAreNotBoundByTheConnections) {
  // Neighbours in a queue belong to different streams: 64 streams on 8 connections, 64 at once.
  EXPECT_EQ(concurrency_model(64, 8, 128, 128, 132 * 32, false), 64);
  EXPECT_EQ(concurrency_model(16, 8, 128, 128, 132 * 32, false), 16);
  EXPECT_EQ(concurrency_model(64, 8, 128, 128, 132 * 32, true), 8);
}

TEST(ConcurrencyModel, IndependentSideBySideWorkloadsOverlapByTheirBusyFractions) {
  EXPECT_DOUBLE_EQ(side_by_side_overlap(1.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(side_by_side_overlap(0.5, 0.5), 0.25 / 0.75);
  EXPECT_NEAR(side_by_side_overlap(0.93, 0.93), 0.8692, 1e-4); // the H100's 40 us kernels
  EXPECT_DOUBLE_EQ(side_by_side_overlap(0.0, 0.0), 0.0);
  EXPECT_THROW(side_by_side_overlap(1.2, 0.5), std::invalid_argument);
}

TEST(ConcurrencyModel, ContextsTimeSliceToTwiceTheTimeAndStreamsDoNot) {
  EXPECT_DOUBLE_EQ(sharing_model(true), 2.0);
  EXPECT_DOUBLE_EQ(sharing_model(false), 1.0);
}

TEST(ConcurrencyModel, TheVariableIsPutBackSetOrUnset) {
  const char* name = "APOD_TEST_CONCURRENCY_VARIABLE";
  ::unsetenv(name);
  {
    const ScopedEnvironmentVariable v(name, "32");
    EXPECT_STREQ(std::getenv(name), "32");
  }
  EXPECT_EQ(std::getenv(name), nullptr);
  ::setenv(name, "4", 1);
  {
    const ScopedEnvironmentVariable v(name, "32");
    EXPECT_STREQ(std::getenv(name), "32");
  }
  EXPECT_STREQ(std::getenv(name), "4");
  ::unsetenv(name);
}

TEST(ConcurrencyDeclaration, ThePlanHas28StreamPointsAndThreeSharingPoints) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(apod::PlanInput{});
  ASSERT_EQ(points.size(), 31u); // 2 contexts x 2 orders x 7 stream counts + 3
  int conditional = 0;
  for (const auto& p : points)
    conditional += !p.when.empty();
  EXPECT_EQ(conditional, 1); // the green contexts' point
  EXPECT_EQ(d->order, 124);
}
