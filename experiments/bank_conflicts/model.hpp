// Host-side arithmetic of the bank-conflict experiment (bank_conflicts.cu): how many ways a
// warp's access conflicts and what that predicts, the throughput per SM from the blocks' own clock
// readings, and the circular sums that give every thread's expected checksum in O(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace apod {

/// Shared memory has 32 banks, 4 bytes wide, each serving one 4-byte word per clock (CUDA C++
/// Programming Guide, compute capability 5.x and later, "Shared Memory"; Stich's slides, "Fermi:
/// now 32 banks, 32-bit wide each").
inline constexpr int shared_banks = 32;
inline constexpr int shared_bank_bytes = 4;

/// Bytes per clock one SM's shared memory can deliver: banks x bank width, 128.
double shared_bytes_per_clock_limit();

/// The ways a warp's 4-byte access conflicts when lane l reads word l x stride_words: the lanes
/// that fall in one bank, gcd(stride, 32). Stride 0 is the broadcast (every lane one word, one
/// fetch: Stich, "all broadcasts = no conflicts"): 1. Throws std::invalid_argument if negative.
int conflict_degree(int stride_words);

/// The wavefronts (passes over the 32 banks, one per clock) a warp's shared-memory request takes
/// when lane l accesses `access_bytes` (4, 8 or 16) at byte address byte_addresses[l] (32 lanes,
/// each address a multiple of access_bytes). A request of wider accesses is served in phases of
/// 128 / access_bytes lanes (8 bytes: half-warps, 16 bytes: quarter-warps). That is the model's
/// assumption: the Programming Guide states a half-warp rule for 64-bit accesses only for compute
/// capability 3.x and speaks of 32-bit words alone for 5.x and later, so shared_memory measures
/// the wider widths against it. A phase takes as many wavefronts as the most distinct 4-byte words
/// one bank holds among its lanes' words (lanes reading one word share its fetch: the broadcast).
/// The sum over the phases; at least 32 x access_bytes / 128. Throws std::invalid_argument for
/// another width, not 32 addresses, or a misaligned one.
int wavefronts_per_request(const std::vector<uint64_t>& byte_addresses, int access_bytes);

/// wavefronts_per_request when lane l reads element l x stride_elements of an array of
/// access_bytes-byte elements (stride 0: every lane one element). 4 bytes: gcd(stride, 32), as
/// conflict_degree; 8 bytes: 2 x gcd(stride, 16), 16 bytes: 4 x gcd(stride, 8) (odd strides
/// conflict-free for every width).
int strided_wavefronts(int access_bytes, int stride_elements);

/// The fewest wavefronts a warp's request of access_bytes per lane takes: 32 x access_bytes /
/// 128 (1, 2, 4): every bank busy on every pass.
int min_wavefronts(int access_bytes);

/// The model: an n-way conflict serialises n accesses, so the throughput is the conflict-free
/// one divided by n (Stich: "n accesses are executed serially").
double conflict_model(double conflict_free, int degree);

/// One block's reading of its SM's cycle counter (clock64) around its timed loop.
struct BlockClock {
  uint32_t sm = 0;
  uint64_t start = 0, end = 0;
};

/// Bytes per clock per SM: for each SM, the bytes its blocks read over the cycles from the first
/// block's start to the last block's end on it (the counter is per SM, so readings are compared
/// only within one SM), then the mean over the SMs. Throws std::invalid_argument for no blocks or
/// an SM whose span is not positive.
double bytes_per_clock_per_sm(const std::vector<BlockClock>& blocks, double bytes_per_block);

/// Sums of consecutive words of a circular array (mod 2^32, as the kernel's 32-bit adds): the
/// kernel's thread reads words (base + i) mod size for i in [0, count).
class CircularSums {
public:
  explicit CircularSums(const std::vector<uint32_t>& words);
  /// words[(start + i) mod size] summed over i in [0, count).
  uint32_t sum(uint64_t start, uint64_t count) const;

private:
  std::vector<uint32_t> prefix_; // prefix_[i] = words[0] + ... + words[i - 1]
};

} // namespace apod
