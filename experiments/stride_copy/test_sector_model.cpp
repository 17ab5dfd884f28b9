// The 32-byte-sector model of strideCopy (sector_model.cpp): bytes moved by kind, and the
// bandwidth expected from a measured reference.
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

TEST(SectorModel, StrideTwoFetchesWholeSectorsAndPartialWritesCostAReadWithEcc) {
  const SectorTraffic off = stride_copy_traffic(threads, 4, 2, false);
  EXPECT_DOUBLE_EQ(off.read_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(off.write_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(off.efficiency(), 0.5);
  const SectorTraffic on = stride_copy_traffic(threads, 4, 2, true);
  EXPECT_DOUBLE_EQ(on.rmw_read_bytes, 8.0 * threads);
  EXPECT_DOUBLE_EQ(on.efficiency(), 1.0 / 3.0);
}

TEST(SectorModel, FourByteWordsFallAsOneOverStrideUntilEightThenStayFlat) {
  for (int stride = 1; stride <= 8; ++stride)
    EXPECT_NEAR(stride_copy_traffic(threads, 4, stride, false).efficiency(), 1.0 / stride, 1e-6)
        << stride;
  for (int stride : {8, 9, 16, 31, 32}) {
    EXPECT_NEAR(stride_copy_traffic(threads, 4, stride, false).efficiency(), 1.0 / 8, 1e-12);
    EXPECT_NEAR(stride_copy_traffic(threads, 4, stride, true).efficiency(), 1.0 / 12, 1e-12);
  }
}

TEST(SectorModel, EightByteWordsReachTheFloorAtStrideFour) {
  EXPECT_NEAR(stride_copy_traffic(threads, 8, 2, false).efficiency(), 0.5, 1e-6);
  EXPECT_NEAR(stride_copy_traffic(threads, 8, 4, false).efficiency(), 0.25, 1e-12);
  EXPECT_NEAR(stride_copy_traffic(threads, 8, 32, true).efficiency(), 16.0 / 96, 1e-12);
}

TEST(SectorModel, SectorSizedWordsAreWrittenWholeAtAnyStride) {
  const SectorTraffic t = stride_copy_traffic(threads, 32, 5, true);
  EXPECT_DOUBLE_EQ(t.rmw_read_bytes, 0.0);
  EXPECT_DOUBLE_EQ(t.efficiency(), 1.0);
}

TEST(SectorModel, CountsTheLastPartialSectorExactly) {
  // 3 words of 4 bytes: one sector read, written partly, so merged when ECC is on.
  const SectorTraffic t = stride_copy_traffic(3, 4, 1, true);
  EXPECT_DOUBLE_EQ(t.read_bytes, 32.0);
  EXPECT_DOUBLE_EQ(t.rmw_read_bytes, 32.0);
  // Stride 3 (12 bytes apart): words at bytes 0, 12, 24, 36 touch sectors 0 and 1.
  EXPECT_DOUBLE_EQ(stride_copy_traffic(4, 4, 3, false).read_bytes, 64.0);
}

TEST(SectorModel, ExpectedBandwidthScalesTheReferenceByEfficiency) {
  const SectorTraffic unit = stride_copy_traffic(threads, 4, 1, true);
  EXPECT_DOUBLE_EQ(sector_model_gbs(3000.0, unit, unit), 3000.0);
  EXPECT_NEAR(sector_model_gbs(3000.0, unit, stride_copy_traffic(threads, 4, 4, false)), 750.0,
              1e-3);
  EXPECT_NEAR(sector_model_gbs(3000.0, unit, stride_copy_traffic(threads, 4, 32, true)), 250.0,
              1e-9);
  // A reference that itself wasted half its traffic: DRAM moved twice its figure.
  const SectorTraffic two = stride_copy_traffic(threads, 4, 2, false);
  EXPECT_NEAR(sector_model_gbs(1000.0, two, stride_copy_traffic(threads, 4, 8, false)), 250.0,
              1e-3);
}

TEST(SectorModel, RejectsWhatItCannotModel) {
  EXPECT_THROW(stride_copy_traffic(0, 4, 1, false), std::invalid_argument);
  EXPECT_THROW(stride_copy_traffic(8, 12, 1, false), std::invalid_argument);
  EXPECT_THROW(stride_copy_traffic(8, 4, 0, false), std::invalid_argument);
  EXPECT_THROW(sector_model_gbs(1.0, SectorTraffic{}, SectorTraffic{}), std::invalid_argument);
}

} // namespace
