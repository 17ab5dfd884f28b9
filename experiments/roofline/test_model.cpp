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

TEST(RooflineModel, SweepGoesOnUntilTheLastTwoPointsAreFlat) {
  EXPECT_TRUE(curve_flat(100.0, 101.4));
  EXPECT_FALSE(curve_flat(100.0, 102.0));
  EXPECT_FALSE(curve_flat(0.0, 1.0));
  // The H200's FP32 of 2026-11-23: 58990 at 256, 61929 at 512 (+5%): not flat, go on.
  EXPECT_EQ(next_fma_count({256, 512}, {58990, 61929}), 1024);
  EXPECT_EQ(next_fma_count({512, 1024}, {61863, 63285}), 2048);          // the H100's: +2.3%
  EXPECT_EQ(next_fma_count({1024, 2048}, {63285, 63700}), std::nullopt); // flat
  EXPECT_EQ(next_fma_count({2048, 4096}, {60000, 63000}), std::nullopt); // the cap
  EXPECT_EQ(next_fma_count({1}, {700}), std::nullopt);
  EXPECT_THROW(next_fma_count({1, 2}, {700}), std::invalid_argument);
}

TEST(RooflineModel, WaitingShareIsLittlesLawBytesOverTheBytesResidentWarpsHold) {
  // H100 FP32: 3036 GB/s x 347 ns = 1.05 MB must be in flight; 132 SMs x 64 warps x 512 B
  // (4 chains x 32 lanes x 4 B) = 4.3 MB can be: a quarter of the warps must wait at once.
  EXPECT_NEAR(waiting_share(3036, 347, 132, 64, 512), 3036 * 347.0 / (132 * 64 * 512.0), 1e-12);
  EXPECT_NEAR(waiting_share(3036, 347, 132, 64, 512), 0.244, 0.001);
  // FP64 warps hold twice the bytes: half the share.
  EXPECT_NEAR(waiting_share(3036, 347, 132, 64, 1024), 0.122, 0.001);
  EXPECT_DOUBLE_EQ(waiting_share(3036, 347, 1, 1, 4), 1.0); // never more than all of them
  EXPECT_THROW(waiting_share(0, 347, 132, 64, 512), std::invalid_argument);
  EXPECT_THROW(waiting_share(3036, 347, 132, 0, 512), std::invalid_argument);
}

TEST(RooflineModel, SoftRooflineRunsFromTheClassicRoofToNoOverlap) {
  // share 0: min(peak, I x B); share 1: the phases in series, 1 / (1 / (I x B) + 1 / peak).
  EXPECT_DOUBLE_EQ(soft_roofline_gflops(4, 60000, 3000, 0), 12000);
  EXPECT_DOUBLE_EQ(soft_roofline_gflops(100, 60000, 3000, 0), 60000);
  EXPECT_NEAR(soft_roofline_gflops(20, 60000, 3000, 1), 30000, 1e-9); // at the ridge: half
  // At the ridge the knee is 1 / (1 + share) of the roof.
  EXPECT_NEAR(soft_roofline_gflops(20, 60000, 3000, 0.25), 60000 / 1.25, 1e-9);
  // Far from the ridge the model returns to the roof.
  EXPECT_NEAR(soft_roofline_gflops(1e6, 60000, 3000, 0.25) / 60000, 1, 1e-4);
  EXPECT_NEAR(soft_roofline_gflops(0.01, 60000, 3000, 0.25), 1 / (1 / 30.0 + 0.25 / 60000), 1e-9);
  EXPECT_THROW(soft_roofline_gflops(1, 60000, 3000, 1.5), std::invalid_argument);
  EXPECT_THROW(soft_roofline_gflops(0, 60000, 3000, 0.5), std::invalid_argument);
}
