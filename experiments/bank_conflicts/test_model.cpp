// The bank-conflict experiment's host arithmetic (model.cpp): conflict degrees, the model, the
// per-SM throughput from clock readings and the circular sums every thread is checked against.
#include "model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace apod;

TEST(BankModel, TheoreticalThroughputIs32BanksOf4BytesPerClock) {
  EXPECT_DOUBLE_EQ(shared_bytes_per_clock_limit(), 128.0);
}

TEST(BankModel, PowerOfTwoStridesConflictAsManyWaysAsTheStride) {
  // Stich's examples: stride 1 none, stride 2 two-way, stride 8 eight-way.
  EXPECT_EQ(conflict_degree(1), 1);
  EXPECT_EQ(conflict_degree(2), 2);
  EXPECT_EQ(conflict_degree(4), 4);
  EXPECT_EQ(conflict_degree(8), 8);
  EXPECT_EQ(conflict_degree(16), 16);
  EXPECT_EQ(conflict_degree(32), 32);
  EXPECT_EQ(conflict_degree(64), 32);
}

TEST(BankModel, OddStridesAndTheBroadcastDoNotConflict) {
  EXPECT_EQ(conflict_degree(3), 1);
  EXPECT_EQ(conflict_degree(33), 1);
  EXPECT_EQ(conflict_degree(6), 2);
  EXPECT_EQ(conflict_degree(0), 1); // every lane one word: one fetch
  EXPECT_THROW(conflict_degree(-1), std::invalid_argument);
}

TEST(BankModel, ModelDividesTheConflictFreeThroughputByTheDegree) {
  EXPECT_DOUBLE_EQ(conflict_model(120.0, 1), 120.0);
  EXPECT_DOUBLE_EQ(conflict_model(120.0, 8), 15.0);
  EXPECT_DOUBLE_EQ(conflict_model(128.0, 32), 4.0);
  EXPECT_THROW(conflict_model(128.0, 0), std::invalid_argument);
}

TEST(BankModel, ThroughputPerSmComparesClocksOnlyWithinOneSm) {
  // SM 0: two blocks of 1000 bytes over cycles 100..120 -> 100 B/clk. SM 1: one block over
  // 5000..5040 -> 25 B/clk (its counter has another origin). Mean 62.5.
  const std::vector<BlockClock> blocks = {{0, 100, 110}, {0, 105, 120}, {1, 5000, 5040}};
  EXPECT_DOUBLE_EQ(bytes_per_clock_per_sm(blocks, 1000.0), 62.5);
}

TEST(BankModel, ThroughputRejectsNoReadingsAndEmptySpans) {
  EXPECT_THROW(bytes_per_clock_per_sm({}, 1000.0), std::invalid_argument);
  EXPECT_THROW(bytes_per_clock_per_sm({{0, 50, 50}}, 1000.0), std::invalid_argument);
}

TEST(BankModel, CircularSumsMatchAWalkRoundTheArray) {
  const std::vector<uint32_t> words = {5, 0xFFFFFFFFu, 7, 11, 13};
  const CircularSums sums(words);
  for (uint64_t start : {0u, 1u, 4u, 7u})
    for (uint64_t count : {0u, 1u, 3u, 5u, 6u, 12u, 23u}) {
      uint32_t walk = 0;
      for (uint64_t i = 0; i < count; ++i)
        walk += words[(start + i) % words.size()];
      EXPECT_EQ(sums.sum(start, count), walk) << start << " " << count;
    }
}
