// The sector model of strideCopy (sector_model.cpp): bytes moved by kind (loads at the 64-byte
// read grain), and bytes at the reference rate plus the per-access row costs.
#include "sector_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace apod;

namespace {

constexpr uint64_t threads = uint64_t(1) << 20;

TEST(SectorModel, UnitStrideMovesOnlyTheCopiedWords) {
  const SectorTraffic t = stride_copy_traffic(threads, 4, 1, true);
  EXPECT_DOUBLE_EQ(t.useful_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(t.read_bytes, 4.0 * threads);
  EXPECT_DOUBLE_EQ(t.write_bytes, 4.0 * threads);
  EXPECT_DOUBLE_EQ(t.rmw_read_bytes, 0.0); // every sector is written whole
  EXPECT_DOUBLE_EQ(t.efficiency(), 1.0);
}

TEST(SectorModel, DenseStridesTouchEveryBlockSoTheGrainDoesNotMatter) {
  // Stride 2 (8 bytes apart): every 64-byte block is read, every sector written in part.
  const SectorTraffic off = stride_copy_traffic(threads, 4, 2, false);
  EXPECT_DOUBLE_EQ(off.read_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(off.write_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(off.efficiency(), 0.5);
  const SectorTraffic on = stride_copy_traffic(threads, 4, 2, true);
  EXPECT_DOUBLE_EQ(on.rmw_read_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(on.efficiency(), 1.0 / 3.0);
  for (int stride = 1; stride <= 8; ++stride)
    EXPECT_NEAR(stride_copy_traffic(threads, 4, stride, false).efficiency(), 1.0 / stride, 1e-6)
        << stride;
}

TEST(SectorModel, ALoneSectorIsReadAsSixtyFourBytesAndMergedAsThirtyTwo) {
  // Stride 16 (64 bytes apart): one sector used per block, the whole block read for the load;
  // the partly written sector is merged by reading the sector.
  const SectorTraffic t = stride_copy_traffic(threads, 4, 16, true);
  EXPECT_DOUBLE_EQ(t.read_bytes, 64.0 * threads);
  EXPECT_DOUBLE_EQ(t.write_bytes, 32.0 * threads);
  EXPECT_DOUBLE_EQ(t.rmw_read_bytes, 32.0 * threads);
  // Strides 16 and 32 move the same bytes: what sets them apart is per access (the gather).
  EXPECT_DOUBLE_EQ(stride_copy_traffic(threads, 4, 32, true).moved_bytes(), t.moved_bytes());
  // Stride 12 (48 bytes apart): every 64-byte block is touched, two sectors of three.
  const SectorTraffic twelve = stride_copy_traffic(threads, 4, 12, false);
  EXPECT_NEAR(twelve.read_bytes, 48.0 * threads, 64.0);
  EXPECT_NEAR(twelve.write_bytes, 32.0 * threads, 32.0);
}

TEST(SectorModel, BlocksTouchedCountsTheLastPartialBlockExactly) {
  EXPECT_EQ(blocks_touched(0, 4, 64), 0u);
  EXPECT_EQ(blocks_touched(3, 4, 32), 1u);   // bytes 0..11
  EXPECT_EQ(blocks_touched(4, 12, 32), 2u);  // bytes 0, 12, 24, 36
  EXPECT_EQ(blocks_touched(6, 48, 64), 4u);  // bytes 0, 48, 96, 144, 192, 240: blocks 0-3
  EXPECT_EQ(blocks_touched(5, 128, 64), 5u); // each its own block
}

TEST(SectorModel, SectorSizedWordsAreWrittenWholeAtAnyStride) {
  const SectorTraffic t = stride_copy_traffic(threads, 32, 5, true);
  EXPECT_DOUBLE_EQ(t.rmw_read_bytes, 0.0);
}

TEST(SectorModel, BytesAtTheReferenceRatePlusBothRowCostsAddUpToGatherPlusScatter) {
  const SectorTraffic unit = stride_copy_traffic(threads, 4, 1, true);
  EXPECT_DOUBLE_EQ(dram_rate_gbs(3000.0, unit), 3000.0);
  // 8 MiB at 3000 GB/s: 2.796 us; calibrations that take exactly their bytes leave no row cost.
  const double half_ms = 4.0 * threads / 3e9;
  const StrideModel dense = stride_model(unit, 3000.0, half_ms, half_ms);
  EXPECT_NEAR(dense.row_load_ms, 0.0, 1e-15);
  EXPECT_NEAR(dense.row_store_ms, 0.0, 1e-15);
  EXPECT_NEAR(dense.model_gbs, 3000.0, 1e-9);
  // Sparse: 64 + 32 + 32 bytes per word at 3000 GB/s, and calibrations slower than their bytes.
  const SectorTraffic sparse = stride_copy_traffic(threads, 4, 32, true);
  const StrideModel m = stride_model(sparse, 3000.0, 0.03, 0.05);
  EXPECT_NEAR(m.bytes_ms, 128.0 * threads / 3e9, 1e-12);
  EXPECT_NEAR(m.row_load_ms, 0.03 - 64.0 * threads / 3e9, 1e-12);
  EXPECT_NEAR(m.row_store_ms, 0.05 - 64.0 * threads / 3e9, 1e-12);
  EXPECT_NEAR(m.model_ms, 0.08, 1e-12);
  EXPECT_NEAR(m.model_gbs, sparse.useful_bytes / 0.08e6, 1e-9);
  // A gather faster than its bytes at the reference rate: a negative row cost, kept.
  EXPECT_LT(stride_model(sparse, 3000.0, 0.02, 0.05).row_load_ms, 0.0);
  // A reference that itself wasted half its traffic: DRAM moved twice its figure.
  EXPECT_NEAR(dram_rate_gbs(1000.0, stride_copy_traffic(threads, 4, 2, false)), 2000.0, 1e-3);
}

TEST(SectorModel, RejectsWhatItCannotModel) {
  EXPECT_THROW(stride_copy_traffic(0, 4, 1, false), std::invalid_argument);
  EXPECT_THROW(stride_copy_traffic(8, 12, 1, false), std::invalid_argument);
  EXPECT_THROW(stride_copy_traffic(8, 4, 0, false), std::invalid_argument);
  EXPECT_THROW(dram_rate_gbs(1.0, SectorTraffic{}), std::invalid_argument);
  EXPECT_THROW(stride_model(stride_copy_traffic(8, 4, 1, false), 0.0, 1.0, 1.0),
               std::invalid_argument);
  EXPECT_THROW(stride_model(stride_copy_traffic(8, 4, 1, false), 1.0, 0.0, 1.0),
               std::invalid_argument);
}

} // namespace
