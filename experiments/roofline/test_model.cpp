// The roofline experiment's host arithmetic (model.cpp): its FLOP and byte counts, the sweep, and
// the FMA chains the host checks every output against.
#include "model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace apod;

TEST(RooflineModel, IntensityIsTwoFlopsPerFmaOverBytesReadAndWritten) {
  // FP32: k FMAs over 4 bytes read + 4 written -> k / 4 FLOP per byte; FP64: k / 8.
  EXPECT_DOUBLE_EQ(flops_per_element(16), 32.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(4), 8.0);
  EXPECT_DOUBLE_EQ(flops_per_byte(1, 4), 0.25);
  EXPECT_DOUBLE_EQ(flops_per_byte(1024, 4), 256.0);
  EXPECT_DOUBLE_EQ(flops_per_byte(1024, 8), 128.0);
  EXPECT_THROW(bytes_per_element(0), std::invalid_argument);
  EXPECT_THROW(flops_per_element(-1), std::invalid_argument);
}

TEST(RooflineModel, SweepRunsFromOneFmaToEightTimesTheBalance) {
  // H100-like FP32: balance ~20 FLOP/byte; 8 x 20 = 160 needs k / 4 >= 160, k = 1024.
  const auto fp32 = fma_counts(20.0, 4, false);
  ASSERT_FALSE(fp32.empty());
  EXPECT_EQ(fp32.front(), 1);
  EXPECT_EQ(fp32.back(), 1024);
  EXPECT_EQ(fp32.size(), 11u);
  for (size_t i = 1; i < fp32.size(); ++i)
    EXPECT_EQ(fp32[i], 2 * fp32[i - 1]);
  EXPECT_GE(flops_per_byte(fp32.back(), 4), 8 * 20.0);
  // A consumer part's FP64 (balance ~1.3) still reaches 64 FMAs, the floor.
  EXPECT_EQ(fma_counts(1.3, 8, false).back(), 128);
  EXPECT_EQ(fma_counts(0.1, 8, false).back(), 64);
  // An absurd balance stops at the cap; an unknown one at 1024.
  EXPECT_EQ(fma_counts(1e9, 4, false).back(), max_fma_per_element);
  EXPECT_EQ(fma_counts(std::nullopt, 4, false).back(), 1024);
}

TEST(RooflineModel, QuickSweepKeepsBothEndsAndOnePointBetween) {
  const auto quick = fma_counts(20.0, 4, true);
  EXPECT_EQ(quick, (std::vector<int>{1, 16, 1024}));
}

TEST(RooflineModel, InputsAreDistinctAndInRange) {
  const auto inputs = chain_inputs<double>();
  ASSERT_EQ(inputs.size(), chain_table_size);
  EXPECT_EQ(std::set<double>(inputs.begin(), inputs.end()).size(), chain_table_size);
  for (double x : inputs) {
    EXPECT_GE(x, 1.0);
    EXPECT_LT(x, 1.25);
  }
}

TEST(RooflineModel, ChainIsTheFusedStepRepeated) {
  EXPECT_EQ(fma_chain(1.0, 0), 1.0);
  EXPECT_EQ(fma_chain(1.0, 1), std::fma(1.0, chain_multiplier, chain_addend));
  EXPECT_EQ(fma_chain(1.0f, 2),
            std::fma(std::fma(1.0f, float(chain_multiplier), float(chain_addend)),
                     float(chain_multiplier), float(chain_addend)));
  // Contracts towards 1.5 and never overshoots it.
  const double far = fma_chain(1.0, 4096);
  EXPECT_GT(far, 1.0);
  EXPECT_LT(far, 1.5);
}

// The check is exact, so it must be able to tell k FMAs from k - 1: every input's chain moves at
// every step, in both precisions, over the whole sweep.
template <class T> void expect_every_step_changes_every_value() {
  const auto inputs = chain_inputs<T>();
  for (int k : {1, 2, 64, 1023, 4096}) {
    const auto before = chain_outputs(inputs, k - 1), after = chain_outputs(inputs, k);
    for (size_t t = 0; t < inputs.size(); ++t)
      ASSERT_NE(before[t], after[t]) << "k " << k;
  }
}

TEST(RooflineModel, OneFmaMoreOrLessChangesEveryOutputInFp32) {
  expect_every_step_changes_every_value<float>();
}

TEST(RooflineModel, OneFmaMoreOrLessChangesEveryOutputInFp64) {
  expect_every_step_changes_every_value<double>();
}

TEST(RooflineModel, Fp32AndFp64ChainsDiffer) {
  // The precision is really the one named: the FP32 chain rounds differently from the FP64 one.
  const auto f = chain_outputs(chain_inputs<float>(), 256);
  const auto d = chain_outputs(chain_inputs<double>(), 256);
  size_t differ = 0;
  for (size_t t = 0; t < f.size(); ++t)
    differ += double(f[t]) != d[t];
  EXPECT_GT(differ, f.size() / 2);
}
