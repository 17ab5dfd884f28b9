// The occupancy experiment's host arithmetic (model.cpp): the guide's worked example (10.1.1)
// reproduced exactly, each resource limit, the achieved occupancy read from warps' spans, the
// spill kernel's chains, and the plan.
#include "model.hpp"

#include "core/catalog.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace apod::occupancy;

namespace {
SmLimits cc(int major, int minor) {
  const auto l = sm_limits(major, minor);
  if (!l)
    throw std::logic_error("no limits");
  return *l;
}
} // namespace

TEST(OccupancyModel, TheGuidesExample128ThreadBlocksAt37RegistersGive12BlocksAnd75Percent) {
  // Best Practices Guide 10.1.1: compute capability 7.0, 37 registers, 128-thread blocks.
  const Occupancy o = theoretical_occupancy(cc(7, 0), {128, 37});
  EXPECT_EQ(o.registers_per_warp, 1280); // 37 x 32 = 1184, rounded up to 256
  EXPECT_EQ(o.blocks_per_sm, 12);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.75);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(OccupancyModel, TheGuidesExample320ThreadBlocksAt37RegistersGive4BlocksAnd63Percent) {
  const Occupancy o = theoretical_occupancy(cc(7, 0), {320, 37});
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.625); // the guide's "63%"
  EXPECT_EQ(o.limiter, "registers");
}

TEST(OccupancyModel, TheExampleHoldsOnHopperAndForEveryCountThatRoundsTo1280) {
  for (int regs = 33; regs <= 40; ++regs) {
    EXPECT_EQ(theoretical_occupancy(cc(9, 0), {128, regs}).blocks_per_sm, 12) << regs;
    EXPECT_EQ(theoretical_occupancy(cc(9, 0), {320, regs}).blocks_per_sm, 4) << regs;
  }
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {128, 41}).blocks_per_sm, 10); // 1536 per warp
}

TEST(OccupancyModel, ThirtyTwoRegistersAllowFullOccupancyTheGuidesNaiveBound) {
  // "for a multiprocessor to have 100% occupancy, each thread can use at most 32 registers"
  const Occupancy o = theoretical_occupancy(cc(7, 0), {128, 32});
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_LT(theoretical_occupancy(cc(7, 0), {128, 33}).occupancy, 1.0);
}

TEST(OccupancyModel, WholeWarpsPerSubPartitionNotPerRegisterFile) {
  // 72 registers: 2304 per warp; 16384 / 2304 = 7 warps per quarter, 28 per SM: 3 blocks of 8
  // warps. The whole file over 2304 would give 28 too; 44 registers (1536 per warp) shows the
  // difference: 65536 / 1536 = 42 warps (5 blocks) but 4 x floor(16384 / 1536) = 40 (5 blocks);
  // at 320 threads (10 warps) 42 would give 4 blocks and 40 gives 4; the guide's 37 at 320
  // threads is where it matters: 51 warps by the file (5 blocks), 48 by quarters (4 blocks).
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 72}).blocks_per_sm, 3);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 44}).blocks_per_sm, 5);
}

TEST(OccupancyModel, WarpCapacityCountsRegistersPerWarpAndSharedMemoryPerBlock) {
  // 36 registers (1280 per warp): 12 warps per sub-partition, 48 per SM, whatever the block
  // size; the API's whole 320-thread blocks are 40 warps, but a block may start while another's
  // last warps run (48 seen on an H100).
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {320, 36}).warp_capacity, 48);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {320, 36}).resident_warps, 40);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {1024, 36}).warp_capacity, 48);
  // Shared memory and block slots are held per block: 4 blocks of 8 warps, 32 blocks of 1.
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 18, 0, 48 * 1024}).warp_capacity, 32);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {32, 16}).warp_capacity, 32);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 18}).warp_capacity, 64);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {1024, 255}).warp_capacity, 0);
}

TEST(OccupancyModel, TheBlockLimitBindsSmallBlocks) {
  const Occupancy o = theoretical_occupancy(cc(9, 0), {32, 16});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_EQ(theoretical_occupancy(cc(7, 5), {32, 16}).blocks_per_sm, 16);
}

TEST(OccupancyModel, SharedMemoryCountsTheReserveAndTheAllocationUnit) {
  // 9.0: 228 KiB per SM, 1 KiB reserved per block, 128-byte unit.
  const Occupancy a = theoretical_occupancy(cc(9, 0), {256, 32, 0, 48 * 1024});
  EXPECT_EQ(a.shared_per_block, 49 * 1024);
  EXPECT_EQ(a.blocks_per_sm, 4); // 228 / 49
  EXPECT_EQ(a.limiter, "shared memory");
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 32, 0, 200 * 1024}).blocks_per_sm, 1);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 32, 100, 1000}).shared_per_block,
            1024 + 1152); // 100 + 1000 + 1024 = 2124 -> 2176
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 32, 0, 228 * 1024}).blocks_per_sm, 0);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 32, 0, 227 * 1024}).blocks_per_sm, 1);
  // 7.0: no reserve, 256-byte unit, 96 KiB.
  EXPECT_EQ(theoretical_occupancy(cc(7, 0), {256, 32, 0, 100}).shared_per_block, 256);
  EXPECT_EQ(theoretical_occupancy(cc(7, 0), {256, 32, 0, 32 * 1024}).blocks_per_sm, 3);
}

TEST(OccupancyModel, ALaunchThatCannotFitHasNoBlocks) {
  // 1024 threads at 255 registers: 8160 -> 8192 per warp x 32 warps is 4x the register file.
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {1024, 255}).blocks_per_sm, 0);
  EXPECT_EQ(theoretical_occupancy(cc(9, 0), {256, 256}).blocks_per_sm, 0); // past 255
  EXPECT_THROW(theoretical_occupancy(cc(9, 0), {0, 32}), std::invalid_argument);
  EXPECT_THROW(theoretical_occupancy(cc(7, 5), {2048, 32}), std::invalid_argument);
}

TEST(OccupancyModel, TheTableKnowsTheGuidesAndTodaysDevicesOnly) {
  EXPECT_EQ(cc(9, 0).max_threads_per_sm, 2048);
  EXPECT_EQ(cc(8, 6).max_threads_per_sm, 1536);
  EXPECT_EQ(cc(8, 0).shared_bytes_per_block, 163 * 1024);
  EXPECT_FALSE(sm_limits(6, 0).has_value());
  EXPECT_FALSE(sm_limits(10, 3).has_value());
}

TEST(OccupancyAchieved, MeanResidentWarpsPerSmCycleOverTheMaximum) {
  // SM 0: two warps over cycles 0-100 and 50-100: 150 warp-cycles in 100 cycles, 1.5 warps.
  // SM 7: one warp over 1000-1100: 1 warp. Total 250 / 200 = 1.25 warps, of 4: 0.3125.
  const std::vector<WarpSpan> w = {{0, 0, 100}, {0, 50, 100}, {7, 1000, 1100}};
  const Achieved a = achieved_occupancy(w, 4);
  EXPECT_DOUBLE_EQ(a.occupancy, 0.3125);
  EXPECT_EQ(a.max_resident_warps, 2);
  EXPECT_EQ(a.sms, 2);
}

TEST(OccupancyAchieved, AWarpLeavingAsAnotherArrivesIsNotCountedWithIt) {
  const std::vector<WarpSpan> w = {{3, 0, 10}, {3, 10, 20}, {3, 20, 30}};
  const Achieved a = achieved_occupancy(w, 1);
  EXPECT_EQ(a.max_resident_warps, 1);
  EXPECT_DOUBLE_EQ(a.occupancy, 1.0);
}

TEST(OccupancyAchieved, RefusesWhatIsNoTrace) {
  EXPECT_THROW(achieved_occupancy({}, 64), std::invalid_argument);
  EXPECT_THROW(achieved_occupancy({{0, 10, 5}}, 64), std::invalid_argument);
  EXPECT_THROW(achieved_occupancy({{0, 0, 5}}, 0), std::invalid_argument);
}

TEST(OccupancySpill, ChainsAreExactAndEveryStepCounts) {
  EXPECT_FLOAT_EQ(spill_chains_sum(1.0f, 0), 64.0f + 63.0f * 64.0f / 2.0f / 64.0f);
  EXPECT_NE(spill_chains_sum(input_value(5), 256), spill_chains_sum(input_value(5), 255));
  EXPECT_NE(spill_chains_sum(input_value(5), 256), spill_chains_sum(input_value(6), 256));
  EXPECT_TRUE(std::isfinite(spill_chains_sum(input_value(63), 4096)));
}

TEST(OccupancyDeclaration, ThePlanListsEveryStudyAndOnlySharedMemoryTheDeviceHas) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  apod::PlanInput in; // the nominal H100: 227 KiB per block
  const auto points = d->plan(in);
  EXPECT_EQ(points.size(), 8u + 7u + 6u + 3u);
  for (const auto& p : points)
    EXPECT_EQ(p.metrics.size(), 3u);
  in.device.cc_major = 7, in.device.cc_minor = 5; // 64 KiB per block: 0, 32, 48 only
  int shared = 0;
  for (const auto& p : d->plan(in))
    shared += p.params[study.key] == shared_study;
  EXPECT_EQ(shared, 3);
  in.quick = true;
  EXPECT_LT(d->plan(in).size(), points.size() / 2);
  in.quick = false, in.full = true;
  EXPECT_GT(d->plan(in).size(), points.size());
}
