// copy_engines' host arithmetic (model.cpp): the guide's cpuFunction() overlap fraction (Best
// Practices Guide 9.1.2), the bidirectional ratio, the kernel's pass count, the host loop's
// closed form and staged_copy's model at a measured copy rate.
#include "model.hpp"

#include "staged_copy/model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace apod::engines;

TEST(CopyEnginesModel, OverlapFractionIsOneWhenTheShorterPartHidesWholly) {
  EXPECT_DOUBLE_EQ(overlap_fraction_of(3.0, 5.0, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(overlap_fraction_of(5.0, 3.0, 5.0), 1.0);
}

TEST(CopyEnginesModel, OverlapFractionIsZeroWhenThePartsRunInTurn) {
  EXPECT_DOUBLE_EQ(overlap_fraction_of(3.0, 5.0, 8.0), 0.0);
  // Half of the 4 ms host part hidden behind the 6 ms device part: 8 ms in all.
  EXPECT_DOUBLE_EQ(overlap_fraction_of(4.0, 6.0, 8.0), 0.5);
}

TEST(CopyEnginesModel, OverlapFractionIsNotClampedAndRejectsNonPositiveTimes) {
  EXPECT_GT(overlap_fraction_of(3.0, 5.0, 4.9), 1.0); // noise may put it past 1: kept as measured
  EXPECT_LT(overlap_fraction_of(3.0, 5.0, 8.3), 0.0);
  EXPECT_THROW(overlap_fraction_of(0.0, 5.0, 5.0), std::invalid_argument);
  EXPECT_THROW(overlap_fraction_of(3.0, -1.0, 5.0), std::invalid_argument);
  EXPECT_THROW(overlap_fraction_of(3.0, 5.0, 0.0), std::invalid_argument);
}

TEST(CopyEnginesModel, BidirectionalRatioIsTheTotalOverBothDirectionsAlone) {
  EXPECT_DOUBLE_EQ(bidirectional_ratio_of(110.0, 55.0, 55.0), 1.0); // two engines, full rate
  EXPECT_DOUBLE_EQ(bidirectional_ratio_of(55.0, 55.0, 55.0), 0.5);  // the copies take turns
  EXPECT_DOUBLE_EQ(bidirectional_ratio_of(75.0, 50.0, 100.0), 0.5); // unequal directions
  EXPECT_THROW(bidirectional_ratio_of(1.0, 0.0, 1.0), std::invalid_argument);
}

TEST(CopyEnginesModel, PassesMatchTheTargetWithinTheirLimits) {
  EXPECT_EQ(passes_for(0.18, 4.9, 256), 27);
  EXPECT_EQ(passes_for(10.0, 4.9, 256), 1); // one pass longer than the target: still one
  EXPECT_EQ(passes_for(0.001, 4.9, 256), 256);
  EXPECT_THROW(passes_for(0.0, 1.0, 8), std::invalid_argument);
  EXPECT_THROW(passes_for(1.0, 1.0, 0), std::invalid_argument);
}

TEST(CopyEnginesModel, CpuFunctionMatchesItsClosedForm) {
  const Lcg64 step;
  for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 1000ull, 123457ull})
    EXPECT_EQ(cpu_function(42, n, step), cpu_function_closed_form(42, n, step)) << n;
  const Lcg64 other{3, 7}; // x -> 3x + 7: two steps from 1 give 37
  EXPECT_EQ(cpu_function_closed_form(1, 2, other), 37u);
  EXPECT_NE(cpu_function(1, 1000, step), cpu_function(1, 1001, step));
}

TEST(CopyEnginesModel, IterationsScaleLinearlyToTheTarget) {
  EXPECT_EQ(iterations_for_ms(1 << 20, 2.0, 5.0), uint64_t(2.5 * (1 << 20)));
  EXPECT_EQ(iterations_for_ms(10, 100.0, 0.001), 1u);
  EXPECT_THROW(iterations_for_ms(0, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(iterations_for_ms(1, 0.0, 1.0), std::invalid_argument);
}

TEST(CopyEnginesModel, StagedModelAtAMeasuredRateSlowsOnlyTheCopy) {
  // No slowdown: staged_copy's own estimate with tT(n) = nStreams x chunk.
  EXPECT_DOUBLE_EQ(staged_model_at_rate_ms(0.625, 1.0, 5.0, 8),
                   apod::staged_estimate_ms(5.0, 5.0, 8));
  // The copy 20% slower beside the kernel: tT(8) = 6 ms > tE, so 6 + 5 / 8.
  EXPECT_DOUBLE_EQ(staged_model_at_rate_ms(0.625, 1.2, 5.0, 8), 6.0 + 5.0 / 8);
  EXPECT_THROW(staged_model_at_rate_ms(0.625, 0.0, 5.0, 8), std::invalid_argument);
}
