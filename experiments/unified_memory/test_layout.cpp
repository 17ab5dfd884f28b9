// unified_memory's host arithmetic (layout.cpp): the buffer never asks for more than an eighth of
// the free device memory, the blocks' chunks cover every word once, and the checks find a word
// that is wrong.
#include "layout.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace apod::unified;

namespace {

constexpr size_t MiB = size_t(1) << 20;

TEST(UnifiedLayout, TheBufferStaysWithinAnEighthOfTheFreeMemoryInWholeGranules) {
  EXPECT_EQ(buffer_bytes(planned_bytes(false), 80 * 1024 * MiB), 128 * MiB);
  EXPECT_EQ(buffer_bytes(planned_bytes(true), 80 * 1024 * MiB), 16 * MiB);
  // 100 MiB free: an eighth is 12.5 MiB, rounded down to 12 MiB.
  EXPECT_EQ(buffer_bytes(planned_bytes(false), 100 * MiB), 12 * MiB);
  EXPECT_EQ(buffer_bytes(planned_bytes(false), 15 * MiB), 0u);
  for (size_t free_mib : {1, 17, 1000, 5000, 90000}) {
    const size_t b = buffer_bytes(planned_bytes(false), free_mib * MiB);
    EXPECT_LE(b * free_memory_divisor, free_mib * MiB) << free_mib;
    EXPECT_EQ(b % size_granule_bytes, 0u) << free_mib;
  }
}

TEST(UnifiedLayout, TheBlocksChunksCoverEveryWordOnceInWholeVectors) {
  for (size_t words : {size_t(4), size_t(1024), size_t(4) << 20, size_t(32) << 20})
    for (size_t blocks : {size_t(1), size_t(7), size_t(1056), size_t(1064)}) {
      size_t next = 0;
      for (size_t b = 0; b < blocks; ++b) {
        const WordRange r = block_words(words, blocks, b);
        EXPECT_EQ(r.first, next) << words << " " << blocks << " " << b;
        EXPECT_EQ(r.first % 4, 0u);
        next = r.last;
      }
      EXPECT_EQ(next, words) << words << " " << blocks;
    }
}

TEST(UnifiedLayout, ThePatternIsNeverZeroAndChangesWithTheSeed) {
  size_t same = 0;
  std::set<uint32_t> values;
  for (uint64_t i = 0; i < 100000; ++i) {
    EXPECT_NE(pattern_word(1, i), 0u);
    same += pattern_word(1, i) == pattern_word(2, i);
    values.insert(pattern_word(1, i));
  }
  EXPECT_LT(same, 10u);
  EXPECT_GT(values.size(), 99000u);
}

TEST(UnifiedLayout, WritingThePatternGivesEachBlocksSumAndTheChecksFindAWrongWord) {
  const size_t n = 1 << 16, blocks = 37;
  std::vector<uint32_t> words(n);
  const std::vector<uint64_t> sums = write_pattern(words.data(), n, 42, blocks);
  ASSERT_EQ(sums.size(), blocks);
  for (size_t b = 0; b < blocks; ++b) {
    const WordRange r = block_words(n, blocks, b);
    uint64_t sum = 0;
    for (size_t i = r.first; i < r.last; ++i) {
      ASSERT_EQ(words[i], pattern_word(42, i));
      sum += words[i];
    }
    EXPECT_EQ(sums[b], sum) << b;
  }
  EXPECT_EQ(count_wrong_sums(sums, sums.data()), 0u);
  EXPECT_EQ(count_wrong_words(words.data(), n, 42), 0u);
  EXPECT_EQ(count_wrong_words(words.data(), n, 43), n); // a stale buffer: every word wrong

  words[12345] ^= 1;
  EXPECT_EQ(count_wrong_words(words.data(), n, 42), 1u);
  std::vector<uint64_t> got = sums;
  got[blocks - 1] += 1;
  EXPECT_EQ(count_wrong_sums(sums, got.data()), 1u);
}

} // namespace
