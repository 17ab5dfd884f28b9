// The staged-copy experiment's host-side arithmetic (model.cpp): the Best Practices
// Guide's estimate (9.1.2), the kernel-length calibration and the closed form the check uses.
#include "model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace apod;

TEST(StagedModel, KernelBoundCaseHidesAllButOneStageOfTheTransfer) {
  // tE > tT: tE + tT / nStreams.
  EXPECT_DOUBLE_EQ(staged_estimate_ms(4.0, 10.0, 4), 11.0);
  EXPECT_DOUBLE_EQ(staged_estimate_ms(4.0, 10.0, 32), 10.125);
}

TEST(StagedModel, TransferBoundCaseHidesAllButOneStageOfTheKernel) {
  // tT >= tE: tT + tE / nStreams.
  EXPECT_DOUBLE_EQ(staged_estimate_ms(10.0, 4.0, 4), 11.0);
  EXPECT_DOUBLE_EQ(staged_estimate_ms(8.0, 8.0, 2), 12.0);
}

TEST(StagedModel, OneStreamIsTheSequentialVersion) {
  // The guide: tE + tT for the sequential version, whichever is longer.
  EXPECT_DOUBLE_EQ(staged_estimate_ms(3.0, 5.0, 1), 8.0);
  EXPECT_DOUBLE_EQ(staged_estimate_ms(5.0, 3.0, 1), 8.0);
}

TEST(StagedModel, EstimateFallsTowardTheLongerPartAsStreamsGrow) {
  double previous = staged_estimate_ms(5.0, 6.0, 1);
  for (int n = 2; n <= 1024; n *= 2) {
    const double now = staged_estimate_ms(5.0, 6.0, n);
    EXPECT_LT(now, previous);
    EXPECT_GT(now, 6.0);
    previous = now;
  }
}

TEST(StagedModel, EstimateRejectsNonsense) {
  EXPECT_THROW(staged_estimate_ms(1.0, 1.0, 0), std::invalid_argument);
  EXPECT_THROW(staged_estimate_ms(-1.0, 1.0, 2), std::invalid_argument);
  EXPECT_THROW(staged_estimate_ms(1.0, -1.0, 2), std::invalid_argument);
}

TEST(StagedModel, IterationsComeFromTheLineThroughTwoRuns) {
  // 0.1 ms fixed + 0.01 ms per iteration: 5 ms needs 490 iterations.
  EXPECT_EQ(iterations_for_time(64, 0.74, 512, 5.22, 5.0), 490);
  // A target under the fixed part still asks for at least one iteration.
  EXPECT_EQ(iterations_for_time(64, 0.74, 512, 5.22, 0.05), 1);
}

TEST(StagedModel, IterationsFallBackToScalingWhenTheLineDoesNotRise) {
  EXPECT_EQ(iterations_for_time(64, 2.0, 512, 2.0, 4.0), 1024);
  EXPECT_THROW(iterations_for_time(64, 1.0, 64, 2.0, 4.0), std::invalid_argument);
  EXPECT_THROW(iterations_for_time(64, 0.0, 512, 2.0, 4.0), std::invalid_argument);
}

TEST(StagedModel, AffinePowerMatchesStepByStepIteration) {
  const AffineMap32 step{1664525u, 1013904223u};
  for (uint64_t steps : {0ull, 1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4097ull}) {
    uint32_t x = 0xDEADBEEFu;
    for (uint64_t k = 0; k < steps; ++k)
      x = step(x);
    EXPECT_EQ(affine_power(step, steps)(0xDEADBEEFu), x) << steps << " steps";
  }
  EXPECT_EQ(affine_power(step, 0)(12345u), 12345u); // zero steps: the identity
}

TEST(StagedModel, AmdahlLimitsLeaveOutPairsWithoutOne) {
  // Pair 1: a late launch made tE longer than its total (P = 1.02, seen on the H200 with --quick).
  size_t left_out = 0;
  const Series a = amdahl_limits(Series({0.5, 1.02, 0.75, 1.0}, {0, 0, 2, 0}), left_out);
  EXPECT_EQ(left_out, 2u) << "P = 1 has no finite limit either";
  ASSERT_EQ(a.size(), 2u);
  EXPECT_NEAR(a.values()[0], 2.0, 1e-12);
  EXPECT_NEAR(a.values()[1], 4.0, 1e-12);
  EXPECT_EQ(a.flags(), (std::vector<uint8_t>{0, 2})) << "flags follow the pairs kept";
  const Series none = amdahl_limits(Series({1.1, std::nan("")}, {}), left_out);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(left_out, 2u);
}
