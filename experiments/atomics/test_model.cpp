// The atomics experiment's host arithmetic (model.cpp): addresses and their threads at a
// contention level, the float-exactness cap, the calibration and the alternating net every
// counter is checked against; and the declaration's contention levels, plan and classes.
#include "model.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace apod::atomics;

TEST(AtomicsModel, ConsecutiveThreadsShareAnAddressAndALastGroupMayBePartial) {
  EXPECT_EQ(address_count(270336, 1), 270336);
  EXPECT_EQ(address_count(270336, 32), 8448);
  EXPECT_EQ(address_count(270336, 270336), 1);
  EXPECT_EQ(address_count(1000, 32), 32); // 31 full warps and one of 8
  EXPECT_EQ(threads_on_address(30, 1000, 32), 32);
  EXPECT_EQ(threads_on_address(31, 1000, 32), 8);
  EXPECT_EQ(threads_on_address(32, 1000, 32), 0);
  EXPECT_THROW(address_count(0, 1), std::invalid_argument);
}

TEST(AtomicsModel, AFloatCounterStaysExactUnderTheCap) {
  // One address of a full H100 grid: 2^23 / 270336 = 31 operations per thread.
  EXPECT_EQ(max_ops_per_thread(270336, 4096), 31);
  EXPECT_EQ(max_ops_per_thread(1, 4096), 4096);
  EXPECT_EQ(max_ops_per_thread(int64_t(1) << 30, 4096), 1); // never below one
  // The most a counter can hold: the net of earlier launches plus one launch, both within the cap,
  // less than 2^24 in magnitude, and every integer up to 2^24 is a float, so each +-1 is exact.
  const float top = float(2 * max_updates_per_address); // 2^24
  EXPECT_EQ(double(top - 1.0f), double(2 * max_updates_per_address - 1));
  EXPECT_EQ(double(-top + 1.0f), double(1 - 2 * max_updates_per_address));
}

TEST(AtomicsModel, CalibrationDoublesUntilALaunchIsLongEnough) {
  EXPECT_EQ(next_calibration_ops(1, 0.01, 0.5, 4096), 2);
  EXPECT_EQ(next_calibration_ops(64, 0.2, 0.5, 4096), 128);
  EXPECT_EQ(next_calibration_ops(64, 0.3, 0.5, 4096), std::nullopt); // past half the target
  EXPECT_EQ(next_calibration_ops(4096, 0.01, 0.5, 4096), std::nullopt);
  EXPECT_EQ(next_calibration_ops(31, 0.01, 0.5, 31), std::nullopt); // the float cap
}

TEST(AtomicsModel, LaunchesAlternateSignsAndTheNetFollowsTheirOperations) {
  NetTally tally;
  EXPECT_EQ(tally.next_sign(), 1);
  tally.launched(4); // +4
  EXPECT_EQ(tally.next_sign(), -1);
  tally.launched(8); // -8
  tally.launched(8); // +8
  EXPECT_EQ(tally.net(), 4);
  EXPECT_EQ(tally.launches(), 3);
}

TEST(AtomicsModel, CountersAreComparedExactlyWithTheNetTimesTheirThreads) {
  // 100 threads, 32 per address: 4 addresses, the last of 4 threads; net -3.
  EXPECT_EQ(count_wrong(std::vector<int>{-96, -96, -96, -12}, 100, 32, -3), 0);
  EXPECT_EQ(count_wrong(std::vector<int>{-96, -96, -95, -12}, 100, 32, -3), 1);
  // Unsigned counters wrap as the device's do.
  EXPECT_EQ(count_wrong(std::vector<unsigned long long>{~0ull - 95}, 32, 32, -3), 0);
  EXPECT_EQ(count_wrong(std::vector<float>{5.0f, 5.0f}, 2, 1, 5), 0);
  EXPECT_EQ(count_wrong(std::vector<float>{5.0f, std::nanf("")}, 2, 1, 5), 1);
  EXPECT_EQ(count_wrong(std::vector<double>{0.0}, 7, 7, 0), 0);
}

TEST(AtomicsModel, RatesCountEveryThreadsOperations) {
  EXPECT_DOUBLE_EQ(atomic_rate_g(1e6, 10, 1.0), 10.0); // 1e7 operations in 1 ms: 10 G/s
}

TEST(AtomicsDeclaration, ContentionLevelsLeaveTheHopelessCasOutAndQuickDropsOneLevel) {
  const auto& global_ops = operations(global_memory);
  const Operation& add = global_ops.front();
  const Operation& cas = global_ops.back();
  ASSERT_TRUE(cas.cas);
  EXPECT_EQ(contention_levels(global_memory, add, 270336, false),
            (std::vector<int64_t>{1, 32, 1024, 270336}));
  EXPECT_EQ(contention_levels(global_memory, cas, 270336, false),
            (std::vector<int64_t>{1, 32, 1024})); // every thread on one address: seconds
  EXPECT_EQ(contention_levels(global_memory, add, 270336, true),
            (std::vector<int64_t>{1, 32, 270336}));
  EXPECT_EQ(contention_levels(shared_memory, add, 270336, false),
            (std::vector<int64_t>{1, 32, block_size}));
  EXPECT_EQ(contention_levels(system_memory, add, 8448, false),
            (std::vector<int64_t>{1, 32, 8448}));
}

TEST(AtomicsDeclaration, ThePlanNamesEveryMemoryOperationAndLevel) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  apod::PlanInput in;
  in.device.sm_count = 132;
  in.device.cc_major = 9;
  // global: 4 adds x 4 levels + CAS x 3; shared: 4 x 3; system: 1 x 3.
  EXPECT_EQ(d->plan(in).size(), 19u + 12u + 3u);
  in.quick = true;
  EXPECT_EQ(d->plan(in).size(), 14u + 12u + 3u);
  EXPECT_EQ(d->metrics.front().class_of({{memory.key, system_memory}}, {}),
            apod::MetricClass::host_link);
  EXPECT_EQ(d->metrics.front().class_of({{memory.key, global_memory}}, {}),
            apod::MetricClass::on_chip);
}
