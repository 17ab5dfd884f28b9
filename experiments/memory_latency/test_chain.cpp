// memory_latency's host arithmetic: the chain is one cycle through every node, the host's walk
// of its links is the answer the chase must reach, and the probes scale with the device's caches.
#include "chain.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

using namespace apod;

TEST(Chain, OrderIsABijectionAndPositionIsItsInverse) {
  for (uint64_t n : {1, 2, 3, 5, 64, 1000, 4097, 65536}) {
    const ChainOrder order = chain_order(n, 42);
    std::vector<bool> seen(n, false);
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t node = order(k);
      ASSERT_LT(node, n);
      ASSERT_FALSE(seen[node]) << "node " << node << " visited twice in a chain of " << n;
      seen[node] = true;
      EXPECT_EQ(order.position(node), k);
    }
  }
}

TEST(Chain, LinksMakeOneCycleThroughEveryNode) {
  for (uint64_t n : {1, 2, 7, 1000, 65536}) {
    const ChainOrder order = chain_order(n, 7);
    std::vector<bool> seen(n, false);
    uint64_t node = order(0);
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_FALSE(seen[node]) << "the chain of " << n << " closes early";
      seen[node] = true;
      node = order.next(node);
    }
    EXPECT_EQ(node, order(0)) << "a chain of " << n << " does not close after n steps";
  }
}

TEST(Chain, WalkFollowsTheLinksAndWrapsAroundTheCycle) {
  const ChainOrder order = chain_order(1000, 3);
  const uint64_t start = order(0);
  EXPECT_EQ(walk(order, start, 0), start);
  EXPECT_EQ(walk(order, start, 1), order(1));
  EXPECT_EQ(walk(order, start, 999), order(999));
  EXPECT_EQ(walk(order, start, 1000), start);
  EXPECT_EQ(walk(order, start, 16384 + 8192), order((16384 + 8192) % 1000));
  for (uint64_t steps : {0, 1, 999, 1000, 1001, 24576})
    for (uint64_t from : {start, order(17), order(998)})
      EXPECT_EQ(advance(order, from, steps), walk(order, from, steps)) << steps;
}

TEST(Chain, OrderDependsOnTheSeedAndScattersNeighbours) {
  const ChainOrder a = chain_order(1 << 20, 7), b = chain_order(1 << 20, 7),
                   c = chain_order(1 << 20, 8);
  size_t same_seed_differs = 0, other_seed_differs = 0, sequential = 0, near = 0;
  for (uint64_t k = 0; k < 4096; ++k) {
    same_seed_differs += a(k) != b(k);
    other_seed_differs += a(k) != c(k);
    sequential += a.next(k) == k + 1;
    // A prefetcher could follow steps within a few lines; random ones rarely are.
    near += (a.next(k) > k ? a.next(k) - k : k - a.next(k)) < 64;
  }
  EXPECT_EQ(same_seed_differs, 0u);
  EXPECT_GT(other_seed_differs, 4000u);
  EXPECT_LT(sequential, 4u);
  EXPECT_LT(near, 16u);
  EXPECT_THROW(chain_order(0, 1), std::invalid_argument);
}

TEST(Chain, ProbesScaleWithTheDevicesCaches) {
  // H100 SXM: 228 KiB of shared memory per SM, 50 MiB of L2.
  const LatencyProbes h100 = latency_probes(233472, 52428800, false);
  EXPECT_EQ(h100.l1_bytes, 58368u);           // a quarter of 228 KiB, whole lines
  EXPECT_EQ(h100.l2_bytes, 52428800u / 4);    // 12.5 MiB
  EXPECT_EQ(h100.dram_bytes, 16u * 52428800); // 800 MiB
  EXPECT_EQ(latency_probes(233472, 52428800, true).dram_bytes, 8u * 52428800);
  // T4 (7.5): 64 KiB shared, 4 MiB L2.
  const LatencyProbes t4 = latency_probes(65536, 4194304, false);
  EXPECT_EQ(t4.l1_bytes, 16384u);
  EXPECT_EQ(t4.l2_bytes, 1048576u);
  for (size_t bytes : {h100.l1_bytes, h100.l2_bytes, t4.l1_bytes, t4.dram_bytes})
    EXPECT_EQ(bytes % chain_line_bytes, 0u);
  EXPECT_THROW(latency_probes(0, 1 << 20, false), std::invalid_argument);
}

TEST(Chain, WorkingSetsAscendFromInsideL1ToTheDramProbeAndHoldTheProbes) {
  const LatencyProbes p = latency_probes(233472, 52428800, false);
  const std::vector<size_t> sets = working_sets(p, false);
  EXPECT_TRUE(std::is_sorted(sets.begin(), sets.end()));
  EXPECT_EQ(std::adjacent_find(sets.begin(), sets.end()), sets.end());
  EXPECT_EQ(sets.front(), 4096u);
  EXPECT_EQ(sets.back(), p.dram_bytes);
  for (size_t probe : {p.l1_bytes, p.l2_bytes, p.dram_bytes})
    EXPECT_NE(std::find(sets.begin(), sets.end(), probe), sets.end());
  EXPECT_EQ(sets.size(), 18u + 3u); // 4 KiB .. 512 MiB, and the three probes
  EXPECT_LT(working_sets(p, true).size(), 10u);
  EXPECT_EQ(level_of(p, p.l1_bytes), "l1");
  EXPECT_EQ(level_of(p, p.l2_bytes), "l2");
  EXPECT_EQ(level_of(p, p.dram_bytes), "dram");
  EXPECT_EQ(level_of(p, 4096), "");
}

TEST(Chain, StepsKeepSamplesLongAndSkipWarmingBeyondTheL2) {
  const int64_t l2 = 52428800;
  EXPECT_EQ(timed_steps(4096, l2, false), 16384u);
  EXPECT_EQ(timed_steps(size_t(l2) * 16, l2, false), 4096u);
  EXPECT_EQ(timed_steps(4096, l2, true), 4096u);
  EXPECT_EQ(warm_steps(4096, l2), 32u); // one lap of 32 lines
  EXPECT_EQ(warm_steps(size_t(l2) / 4, l2), 8192u);
  EXPECT_EQ(warm_steps(size_t(l2) * 2, l2), 0u);
}
