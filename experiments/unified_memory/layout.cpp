// unified_memory's host arithmetic (layout.hpp).
#include "layout.hpp"

#include "core/verify.hpp"

#include <algorithm>

namespace apod::unified {

size_t planned_bytes(bool quick) {
  return quick ? size_t(16) << 20 : size_t(128) << 20;
}

size_t buffer_bytes(size_t planned, size_t free_bytes) {
  const size_t cap = free_bytes / free_memory_divisor;
  return std::min(planned, cap) / size_granule_bytes * size_granule_bytes;
}

size_t chunk_vectors(size_t words, size_t blocks) {
  const size_t vectors = words / 4;
  return blocks ? (vectors + blocks - 1) / blocks : 0;
}

WordRange block_words(size_t words, size_t blocks, size_t b) {
  const size_t chunk = 4 * chunk_vectors(words, blocks);
  const size_t first = std::min(words, b * chunk);
  return {first, std::min(words, first + chunk)};
}

std::vector<uint64_t> write_pattern(uint32_t* words, size_t n, uint64_t seed, size_t blocks) {
  std::vector<uint64_t> sums(blocks, 0);
  parallel_count(blocks, [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) {
      const WordRange r = block_words(n, blocks, b);
      uint64_t sum = 0;
      for (size_t i = r.first; i < r.last; ++i) {
        const uint32_t w = pattern_word(seed, i);
        words[i] = w;
        sum += w;
      }
      sums[b] = sum;
    }
    return size_t(0);
  });
  return sums;
}

size_t count_wrong_sums(const std::vector<uint64_t>& expected, const uint64_t* got) {
  size_t wrong = 0;
  for (size_t b = 0; b < expected.size(); ++b)
    wrong += got[b] != expected[b];
  return wrong;
}

size_t count_wrong_words(const uint32_t* words, size_t n, uint64_t seed) {
  return parallel_count(n, [&](size_t begin, size_t end) {
    size_t wrong = 0;
    for (size_t i = begin; i < end; ++i)
      wrong += words[i] != pattern_word(seed, i);
    return wrong;
  });
}

} // namespace apod::unified
