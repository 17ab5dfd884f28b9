// The allocation experiment's host arithmetic (alloc_math.cpp) and its plan: the sizes, the safe
// fractions of device and host memory, how points are sampled and the cost per GiB.
#include "alloc_math.hpp"
#include "declaration.hpp"

#include "core/catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace apod;
using namespace apod::alloc;

namespace {

const Api& find(const std::string& name) {
  for (const Api& a : apis())
    if (a.name == name)
      return a;
  throw std::logic_error("no api " + name);
}

} // namespace

TEST(AllocMath, TheDefaultKeepsRepresentativeSizesAndFullSweepsFrom4KiBTo1GiB) {
  const Api& device = find("malloc");
  const Api& host = find("host_alloc");
  EXPECT_EQ(sizes(device, false, false), (std::vector<size_t>{4 * kib, mib, 64 * mib, gib}));
  // Pinning 1 GiB costs 0.7 s a pair (H100) and the same per GiB as 64 MiB: --full only.
  EXPECT_EQ(sizes(host, false, false), (std::vector<size_t>{4 * kib, mib, 64 * mib}));
  for (const Api& a : apis()) {
    const std::vector<size_t> full = sizes(a, false, true);
    EXPECT_EQ(full.front(), 4 * kib);
    EXPECT_EQ(full.back(), gib);
    EXPECT_EQ(full.size(), 10u);                  // 4 KiB x 4^0..4^9
    for (const size_t b : sizes(a, false, false)) // --full adds points, never changes the default's
      EXPECT_TRUE(std::find(full.begin(), full.end(), b) != full.end()) << b;
    EXPECT_LE(sizes(a, true, false).back(), 16 * mib);
  }
}

TEST(AllocMath, APointTakesAtMostAQuarterOfFreeDeviceMemoryAndAnEighthOfTheHosts) {
  const Api& device = find("malloc");
  const Api& host = find("host_alloc");
  EXPECT_TRUE(safe_size(device, gib, 4 * gib, 0));
  EXPECT_FALSE(safe_size(device, gib, 4 * gib - 1, 1000 * gib));
  EXPECT_TRUE(safe_size(host, gib, 0, 8 * gib));
  EXPECT_FALSE(safe_size(host, gib, 1000 * gib, 8 * gib - 1));
  EXPECT_TRUE(find("host_register").host);
  EXPECT_FALSE(find("pool_cold").host);
}

TEST(AllocMath, CostPerGiBIsThePairsTimeScaledToAGiB) {
  EXPECT_DOUBLE_EQ(ms_per_gib(1000.0, gib), 1.0);       // 1 ms for 1 GiB
  EXPECT_DOUBLE_EQ(ms_per_gib(1000.0, 64 * mib), 16.0); // 1 ms for 1/16 GiB
}

TEST(AllocMath, CostPerGiBOnlyFrom1MiBAndNeverForTheWarmPool) {
  EXPECT_FALSE(per_gib_point(find("host_alloc"), 4 * kib));
  EXPECT_TRUE(per_gib_point(find("host_alloc"), mib));
  EXPECT_TRUE(per_gib_point(find("pool_cold"), gib));
  EXPECT_FALSE(per_gib_point(find("pool_warm"), gib));
}

TEST(AllocMath, LongPairsTakeFewerSamplesAndOneWarmUpWithinTheCap) {
  EXPECT_EQ(warmup_pairs(4 * kib, 3), 3);
  EXPECT_EQ(warmup_pairs(64 * mib, 3), 1);
  EXPECT_EQ(warmup_pairs(gib, 0), 0);
  EXPECT_EQ(min_samples(0.0, 0.15, 10), 10);   // not measured: the policy's
  EXPECT_EQ(min_samples(0.001, 0.15, 10), 10); // 10 pairs fit
  EXPECT_EQ(min_samples(0.03, 0.15, 10), 5);   // 5 pairs of 30 ms fit in 0.15 s
  EXPECT_EQ(min_samples(0.7, 0.15, 10), 3);    // never under 3
  EXPECT_EQ(min_samples(0.7, 0.15, 2), 3);
  EXPECT_DOUBLE_EQ(point_cap_s(4 * kib, 1.0), 0.05);
  EXPECT_DOUBLE_EQ(point_cap_s(64 * mib, 1.0), 0.15);
  EXPECT_DOUBLE_EQ(point_cap_s(gib, 1.0), 0.15);
  EXPECT_DOUBLE_EQ(point_cap_s(gib, 0.05), 0.05); // never over the policy's
}

TEST(AllocMath, PatternBytesAreNeverZeroAndChangeFromSampleToSample) {
  for (size_t i = 0; i < 1000; ++i) {
    EXPECT_NE(pattern_byte(i), 0);
    EXPECT_NE(pattern_byte(i), pattern_byte(i + 1));
  }
}

TEST(AllocMath, ProbesCoverTheStartMiddleAndEnd) {
  EXPECT_EQ(probe_offsets(4 * kib, 4 * kib), (std::vector<size_t>{0}));
  EXPECT_EQ(probe_offsets(mib, 4 * kib), (std::vector<size_t>{0, mib / 2, mib - 4 * kib}));
  for (const size_t off : probe_offsets(gib, 256))
    EXPECT_LE(off + 256, gib);
}

TEST(AllocMath, MemoryCameBackWithinTheSlack) {
  EXPECT_TRUE(freed(100 * mib, 100 * mib, 0));
  EXPECT_TRUE(freed(100 * mib, 40 * mib, 64 * mib));
  EXPECT_FALSE(freed(gib, 100 * mib, 64 * mib));
}

TEST(AllocMath, ThePlanListsEveryAllocatorAtEverySizeWithTheLargeOnesConditional) {
  const Declaration* d = find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->order, 122);
  EXPECT_EQ(d->chapter, Chapter::concurrency_launch);
  EXPECT_TRUE(declaration_problems(*d).empty());
  for (const Metric& m : d->metrics)
    EXPECT_EQ(m.metric_class, MetricClass::host_phase) << m.name;
  for (const bool full : {false, true}) {
    PlanInput in;
    in.full = full;
    const auto points = d->plan(in);
    size_t expected = 0;
    for (const Api& a : apis())
      expected += sizes(a, false, full).size();
    EXPECT_EQ(points.size(), expected);
    for (const PlannedPoint& p : points) {
      const size_t b = p.params[bytes.key].get<size_t>();
      EXPECT_EQ(!p.when.empty(), b > conditional_bytes) << p.params.dump();
      EXPECT_EQ(p.metrics.size(), per_gib_point(find(p.params[api.key]), b) ? 3u : 2u);
    }
  }
}
