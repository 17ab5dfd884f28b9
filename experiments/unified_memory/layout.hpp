// unified_memory's host arithmetic: the buffer's size within the device's free memory, the words'
// pseudo-random pattern, and the partition of the buffer into one contiguous chunk per block whose
// sums the host checks. Host code (layout.cpp), testable without a GPU; pattern_word is also
// called by the kernel that writes the pattern on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define APOD_UNIFIED_HD __host__ __device__
#else
#define APOD_UNIFIED_HD
#endif

namespace apod::unified {

/// The buffer's planned size: 128 MiB, 2.5 times the H100's and H200's 50 MiB L2, so a kernel
/// reading it reaches DRAM (--quick: 16 MiB).
size_t planned_bytes(bool quick);

/// At most this share of the device's free memory is asked for as managed memory: over-asking
/// oversubscribes the device, which evicts pages under the kernel and can stall the GPU.
inline constexpr size_t free_memory_divisor = 8;
/// Sizes are whole 2 MiB pages, the unit the driver migrates large ranges in.
inline constexpr size_t size_granule_bytes = size_t(2) << 20;

/// The size used: the planned size, at most free_bytes / free_memory_divisor, rounded down to
/// whole 2 MiB granules; 0 when not even one granule fits.
size_t buffer_bytes(size_t planned, size_t free_bytes);

/// Word i of the pattern of `seed`: never zero, and different for another seed at almost every
/// index, so a stale or unwritten word shows in the sums.
APOD_UNIFIED_HD inline uint32_t pattern_word(uint64_t seed, uint64_t i) {
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
  z ^= z >> 29;
  z *= 0xBF58476D1CE4E5B9ull;
  return uint32_t(z >> 32) | 1u;
}

/// The kernel reads 16-byte vectors: the chunk of each block in vectors (4 words), so that
/// `blocks` chunks cover `words` (a multiple of 4).
size_t chunk_vectors(size_t words, size_t blocks);

/// The words of block b: [first, last).
struct WordRange {
  size_t first = 0, last = 0;
};
WordRange block_words(size_t words, size_t blocks, size_t b);

/// Writes the pattern of `seed` into words[0, n) with the host's threads and returns each block's
/// sum of its words (64-bit), the figure the read kernel must find.
std::vector<uint64_t> write_pattern(uint32_t* words, size_t n, uint64_t seed, size_t blocks);

/// The blocks whose sum differs from the expected one.
size_t count_wrong_sums(const std::vector<uint64_t>& expected, const uint64_t* got);

/// Reads words[0, n) with the host's threads and counts those that are not the pattern of `seed`.
size_t count_wrong_words(const uint32_t* words, size_t n, uint64_t seed);

} // namespace apod::unified
