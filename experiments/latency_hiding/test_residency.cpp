// latency_hiding's host arithmetic: the shapes fit the device, and the shared-memory search finds
// the least allocation that holds a kernel to the wanted resident blocks.
#include "residency.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

using namespace apod;

namespace {

// The occupancy calculator's shared-memory limit alone: floor(per_sm / (bytes + reserved)),
// capped by the blocks and threads limits, as on compute capability 9.0 (228 KiB per SM, 1 KiB
// reserved per block, 32 blocks, 2048 threads).
int hopper_blocks(size_t bytes, int block_size) {
  const size_t per_sm = 233472, reserved = 1024;
  const int by_shared = int(per_sm / (bytes + reserved));
  return std::min({by_shared, 32, 2048 / block_size});
}

} // namespace

TEST(Residency, ShapesCoverTheSlidesAxisAndFitTheDevice) {
  const auto shapes = hiding_shapes(2048, 32, false);
  ASSERT_EQ(shapes.size(), 16u);
  EXPECT_EQ(shapes.front().threads_per_sm(), 64);
  EXPECT_EQ(shapes[9].threads_per_sm(), 2048);     // 64 x 32
  EXPECT_EQ(shapes.back().threads_per_sm(), 2048); // 256 x 8
  // A Turing SM: 1024 threads, 16 blocks.
  for (const auto& s : hiding_shapes(1024, 16, false)) {
    EXPECT_LE(s.threads_per_sm(), 1024);
    EXPECT_LE(s.blocks_per_sm, 16);
  }
  EXPECT_EQ(hiding_shapes(1024, 16, false).size(), 8u + 4u);
  EXPECT_EQ(hiding_shapes(2048, 32, true).size(), 4u);
}

TEST(Residency, FindsTheLeastSharedMemoryThatHoldsTheKernelToTheTarget) {
  for (int target : {1, 2, 3, 4, 6, 8, 12, 16, 24}) {
    const auto blocks_at = [](size_t bytes) { return hopper_blocks(bytes, 64); };
    const auto bytes = shared_bytes_for_blocks(target, 232448, 128, blocks_at);
    ASSERT_TRUE(bytes.has_value()) << target;
    EXPECT_EQ(blocks_at(*bytes), target);
    EXPECT_GT(blocks_at(*bytes - 128), target) << "not the least allocation for " << target;
    EXPECT_EQ(*bytes % 128, 0u);
  }
}

TEST(Residency, NoSharedMemoryWhenOtherLimitsAlreadyGiveTheTarget) {
  // 256-thread blocks: 8 resident by the thread limit alone.
  const auto blocks_at = [](size_t bytes) { return hopper_blocks(bytes, 256); };
  EXPECT_EQ(shared_bytes_for_blocks(8, 232448, 128, blocks_at), std::optional<size_t>(0));
  // 32 blocks of 64 threads: the block limit.
  EXPECT_EQ(shared_bytes_for_blocks(32, 232448, 128, [](size_t b) { return hopper_blocks(b, 64); }),
            std::optional<size_t>(0));
}

TEST(Residency, EmptyWhenNoAllocationGivesExactlyTheTarget) {
  // More than the limits allow at no shared memory.
  EXPECT_FALSE(
      shared_bytes_for_blocks(9, 232448, 128, [](size_t b) { return hopper_blocks(b, 256); }));
  // Residency jumps from 3 to 1: 2 is never reached.
  const auto jumpy = [](size_t bytes) { return bytes < 1000 ? 3 : 1; };
  EXPECT_FALSE(shared_bytes_for_blocks(2, 4096, 128, jumpy));
  EXPECT_EQ(shared_bytes_for_blocks(1, 4096, 128, jumpy), std::optional<size_t>(1024));
  // Even the most shared memory leaves more than one block resident.
  EXPECT_FALSE(shared_bytes_for_blocks(1, 4096, 128, [](size_t) { return 2; }));
  EXPECT_THROW(shared_bytes_for_blocks(0, 4096, 128, jumpy), std::invalid_argument);
}

TEST(Residency, LaunchBoundIsBlocksPerSecondTimesTheBytesEachBlockMoves) {
  // The review's figures: 1.65 G blocks/s of 64 threads, 8 bytes each: 844.8 GB/s (the flat
  // 851 GB/s of the non-persistent 64-thread series).
  EXPECT_NEAR(launch_bound_gbs(1.65e9, 64, 8), 844.8, 1e-9);
  EXPECT_NEAR(launch_bound_gbs(1.64e9, 128, 8), 1679.36, 1e-9);
  EXPECT_THROW(launch_bound_gbs(0, 64, 8), std::invalid_argument);
  EXPECT_THROW(launch_bound_gbs(1e9, 0, 8), std::invalid_argument);
  const auto sizes = launch_rate_block_sizes();
  EXPECT_NE(std::find(sizes.begin(), sizes.end(), 64), sizes.end()); // the series it bounds
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
}
