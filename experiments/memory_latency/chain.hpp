// Host-side arithmetic of the memory_latency experiment: the random chain a single thread chases
// (shared with the device, which links it), the host's walk of it (the answer the device's final
// position must equal), the working-set sizes swept, and the rule that names the L1, L2 and DRAM
// plateaus.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod {

/// One node of the chain per 128-byte cache line (an L1 and L2 line on every architecture from
/// compute capability 7.5), so every step touches a line no earlier step of the lap touched.
inline constexpr size_t chain_line_bytes = 128;

#ifdef __CUDACC__
#define APOD_CHAIN_HD __host__ __device__
#else
#define APOD_CHAIN_HD
#endif

/// The random order in which the chain visits its n nodes: order(0), order(1), ..., order(n-1),
/// then order(0) again, so node order(k) links to order(k + 1 mod n) and the chain is one cycle
/// through every node. `order` is a pseudo-random bijection of [0, n): a 4-round Feistel network
/// over the smallest even number of bits that covers n (at most 4n values), with cycle walking: a
/// result at or past n is mapped again until it falls below n, which leaves a bijection of [0, n).
/// The device links the chain from it in parallel; the host walks the same links step by step
/// (walk()). The keys come from the seed alone.
struct ChainOrder {
  uint64_t n = 1;
  uint32_t half_bits = 1;
  uint64_t keys[4] = {};

  /// The node visited at position k (k < n).
  APOD_CHAIN_HD uint64_t operator()(uint64_t k) const {
    do {
      k = feistel(k, false);
    } while (k >= n);
    return k;
  }
  /// The position at which `node` is visited (the inverse of operator()).
  APOD_CHAIN_HD uint64_t position(uint64_t node) const {
    do {
      node = feistel(node, true);
    } while (node >= n);
    return node;
  }
  /// The node `node` links to.
  APOD_CHAIN_HD uint64_t next(uint64_t node) const {
    const uint64_t k = position(node) + 1;
    return (*this)(k == n ? 0 : k);
  }

private:
  APOD_CHAIN_HD uint64_t round(uint64_t half, int i) const {
    uint64_t z = (half ^ keys[i]) * 0xBF58476D1CE4E5B9ull; // SplitMix64's mixing steps
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) & ((uint64_t(1) << half_bits) - 1);
  }
  APOD_CHAIN_HD uint64_t feistel(uint64_t x, bool inverse) const {
    const uint64_t mask = (uint64_t(1) << half_bits) - 1;
    uint64_t left = x >> half_bits, right = x & mask;
    for (int r = 0; r < 4; ++r) {
      if (!inverse) {
        const uint64_t mixed = left ^ round(right, r);
        left = right, right = mixed;
      } else {
        const uint64_t mixed = right ^ round(left, 3 - r);
        right = left, left = mixed;
      }
    }
    return (left << half_bits) | right;
  }
};

/// The order of a chain of n >= 1 nodes (n < 2^62) from `seed`.
ChainOrder chain_order(uint64_t n, uint64_t seed);

/// The node reached from `start` after `steps` steps, following the links one by one on the host.
uint64_t walk(const ChainOrder& order, uint64_t start, uint64_t steps);

/// The same node as walk(), from the order's positions in constant time: a lap of a set of
/// 10^6 lines is checked without walking it.
uint64_t advance(const ChainOrder& order, uint64_t start, uint64_t steps);

/// The working sets that stand for each level, from the device's own sizes:
/// - l1: a quarter of the shared memory per SM. On every architecture from 7.5 the unified
///   L1/shared array is larger than its largest shared carve-out, so with the carve-out set to
///   prefer L1 this set fits the L1 several times over (H100: 57 KiB of a 256 KiB array).
/// - l2: a quarter of the L2, far past any L1 and inside the L2 however its partitions hold it.
/// - dram: 16x the L2 (8x in quick mode): a random line is in the L2 with probability at most
///   1/16, so the plateau is DRAM's within a few percent.
/// Each is rounded down to whole lines.
struct LatencyProbes {
  size_t l1_bytes = 0, l2_bytes = 0, dram_bytes = 0;
};
LatencyProbes latency_probes(int64_t shared_bytes_per_sm, int64_t l2_bytes, bool quick);

/// The swept working sets, ascending and distinct: the powers of two from 4 KiB (quick: every
/// fourth) up to the DRAM probe, and the three probes.
std::vector<size_t> working_sets(const LatencyProbes& probes, bool quick);

/// The level a probe size stands for ("l1", "l2", "dram"), or "" for a size that is not a probe.
std::string level_of(const LatencyProbes& probes, size_t working_set_bytes);

/// Timed steps per sample: enough that a sample lasts well past the timer's resolution at the
/// level's latency (16384 for sets within the L2, 4096 beyond; a quarter in quick mode).
uint32_t timed_steps(size_t working_set_bytes, int64_t l2_bytes, bool quick);

/// Untimed steps before the clocks start, so the chain is in the L1 when it fits there: one lap
/// (at most 8192 steps) for sets within the L2; none beyond, where they would only cost time.
uint32_t warm_steps(size_t working_set_bytes, int64_t l2_bytes);

} // namespace apod
