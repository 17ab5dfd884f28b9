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

TEST(BankModel, FourByteWavefrontsAreTheConflictDegree) {
  for (int stride : {0, 1, 2, 3, 4, 6, 8, 16, 31, 32, 33, 64})
    EXPECT_EQ(strided_wavefronts(4, stride), conflict_degree(stride)) << stride;
  EXPECT_EQ(min_wavefronts(4), 1);
}

TEST(BankModel, EightByteAccessesAreServedByHalfWarps) {
  // 16 lanes x 8 bytes fill the 32 banks once: a conflict-free request takes two wavefronts.
  EXPECT_EQ(min_wavefronts(8), 2);
  EXPECT_EQ(strided_wavefronts(8, 1), 2);
  EXPECT_EQ(strided_wavefronts(8, 2), 4); // a half-warp spans 256 bytes: two words a bank
  EXPECT_EQ(strided_wavefronts(8, 3), 2); // odd: conflict-free
  EXPECT_EQ(strided_wavefronts(8, 4), 8);
  EXPECT_EQ(strided_wavefronts(8, 16), 32); // every lane of a half-warp in banks 0 and 1
  EXPECT_EQ(strided_wavefronts(8, 32), 32);
  EXPECT_EQ(strided_wavefronts(8, 0), 2); // the broadcast: one word pair, still two phases
}

TEST(BankModel, SixteenByteAccessesAreServedByQuarterWarps) {
  EXPECT_EQ(min_wavefronts(16), 4);
  EXPECT_EQ(strided_wavefronts(16, 1), 4);
  EXPECT_EQ(strided_wavefronts(16, 2), 8);
  EXPECT_EQ(strided_wavefronts(16, 3), 4);
  EXPECT_EQ(strided_wavefronts(16, 5), 4);
  EXPECT_EQ(strided_wavefronts(16, 8), 32);
  EXPECT_EQ(strided_wavefronts(16, 16), 32);
}

TEST(BankModel, WavefrontsCountDistinctWordsPerBankAndShareOneWord) {
  std::vector<uint64_t> same_word(32, 64); // every lane word 16: one fetch
  EXPECT_EQ(wavefronts_per_request(same_word, 4), 1);
  std::vector<uint64_t> two_words(32);
  for (int l = 0; l < 32; ++l)
    two_words[size_t(l)] = l % 2 ? 0 : 128; // words 0 and 32, both bank 0
  EXPECT_EQ(wavefronts_per_request(two_words, 4), 2);
  EXPECT_THROW(wavefronts_per_request(two_words, 12), std::invalid_argument);
  EXPECT_THROW(wavefronts_per_request({0, 8}, 8), std::invalid_argument);
  std::vector<uint64_t> misaligned(32, 4);
  EXPECT_THROW(wavefronts_per_request(misaligned, 8), std::invalid_argument);
  EXPECT_THROW(strided_wavefronts(4, -1), std::invalid_argument);
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
