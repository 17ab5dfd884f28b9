// The block_size experiment's host arithmetic (model.cpp): grids, resident threads, the FMA work
// that keeps every launch's total the same, the chains the outputs are checked against, and the
// plan.
#include "model.hpp"

#include "core/catalog.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace apod::block_size;

TEST(BlockSizeModel, GridsAreOneBlockPerSmOneWaveOrEightWaves) {
  EXPECT_EQ(grid_blocks(one_block_per_sm, 132, 8), 132);
  EXPECT_EQ(grid_blocks(one_wave, 132, 8), 1056);
  EXPECT_EQ(grid_blocks(many_waves, 132, 8), 8448);
  EXPECT_THROW(grid_blocks("two_waves", 132, 8), std::invalid_argument);
  EXPECT_THROW(grid_blocks(one_wave, 132, 0), std::invalid_argument);
}

TEST(BlockSizeModel, OneBlockPerSmHasTheBlockSizeAsItsThreadsPerSm) {
  EXPECT_EQ(resident_threads_per_sm(one_block_per_sm, 192, 10), 192);
  EXPECT_EQ(resident_threads_per_sm(one_wave, 192, 10), 1920);
  EXPECT_EQ(resident_threads_per_sm(many_waves, 32, 32), 1024); // the block limit binds
}

TEST(BlockSizeModel, EveryShapeDoesAboutTheSameFmas) {
  const double total = double(1 << 30);
  EXPECT_EQ(fma_steps(total, 132 * 32), 63550); // 2^30 / (4224 x 4), rounded
  EXPECT_EQ(fma_steps(total, int64_t(8) * 132 * 2048), 124);
  EXPECT_EQ(fma_steps(10, 1000), 1);
  EXPECT_THROW(fma_steps(total, 0), std::invalid_argument);
}

TEST(BlockSizeModel, ChainsAreExactAndEveryStepCounts) {
  EXPECT_FLOAT_EQ(fma_output(1.0f, 0), 4.0f + (0 + 1 + 2 + 3) / 8.0f);
  EXPECT_NE(fma_output(input_value(3), 124), fma_output(input_value(3), 123));
  EXPECT_NE(fma_output(input_value(3), 124), fma_output(input_value(4), 124));
  EXPECT_TRUE(std::isfinite(fma_output(input_value(63), 70000)));
}

TEST(BlockSizeDeclaration, ThePlanCoversBothKernelsEveryGridAndTheGuidesBlockSizes) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  apod::PlanInput in;
  const auto points = d->plan(in);
  EXPECT_EQ(points.size(), 2u * 3u * 7u);
  std::set<int> blocks;
  for (const auto& p : points)
    blocks.insert(p.params[threads.key].get<int>());
  for (int b : {32, 64, 128, 192, 256, 512, 1024})
    EXPECT_TRUE(blocks.count(b)) << b;
  in.quick = true;
  EXPECT_EQ(d->plan(in).size(), 2u * 2u * 3u);
  in.quick = false, in.full = true;
  EXPECT_EQ(d->plan(in).size(), 2u * 3u * 10u);
}
