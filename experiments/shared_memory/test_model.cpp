// The shared_memory experiment's host arithmetic (model.cpp) and its declaration's plan.
#include "model.hpp"

#include "core/catalog.hpp"
#include "shared_memory/declaration.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace apod::smem;

TEST(SharedMemoryModel, TheLimitIs128BytesPerClockPerSm) {
  // H100 SXM: 1980 MHz peak SM clock: 253.44 GB/s per SM, x 132 SMs = 33454 GB/s.
  EXPECT_NEAR(limit_gbs_per_sm(1980000), 253.44, 1e-9);
  EXPECT_NEAR(limit_gbs_per_gpu(132, 1980000), 33454.08, 1e-6);
  // GT200 (Stich: 16 banks x 32 bits per 2 clocks = 32 bytes per clock): at a 1296 MHz shader
  // clock 41.5 GB/s, inside the slides' 38-44 GB/s; apod's limit is the 32-bank one.
  EXPECT_NEAR(32 * 1.296, 41.47, 0.01);
}

TEST(SharedMemoryModel, GbsIsBytesOverNanoseconds) {
  EXPECT_DOUBLE_EQ(gbs(2e9, 1000.0), 2.0);
  EXPECT_DOUBLE_EQ(gbs(1e6, 0.001), 1000.0);
  EXPECT_THROW(gbs(1.0, 0.0), std::invalid_argument);
}

TEST(SharedMemoryModel, MeasuredWavefrontsAreRequestBytesOverBytesPerClock) {
  // 128 bytes per clock at 1000 MHz is 128 GB/s: a 4-byte request is one clock, 16-byte four.
  EXPECT_DOUBLE_EQ(measured_wavefronts(4, 128.0, 1000.0), 1.0);
  EXPECT_DOUBLE_EQ(measured_wavefronts(16, 128.0, 1000.0), 4.0);
  // A 32-way conflict: 4 bytes per clock.
  EXPECT_DOUBLE_EQ(measured_wavefronts(4, 4.0, 1000.0), 32.0);
  EXPECT_THROW(measured_wavefronts(4, 0.0, 1000.0), std::invalid_argument);
  EXPECT_THROW(measured_wavefronts(4, 1.0, 0.0), std::invalid_argument);
}

TEST(SharedMemoryModel, TheModelScalesTheConflictFreeFigureByWavefronts) {
  EXPECT_DOUBLE_EQ(wavefront_model_gbs(240.0, 1, 32), 7.5);
  EXPECT_DOUBLE_EQ(wavefront_model_gbs(240.0, 2, 4), 120.0);
  EXPECT_DOUBLE_EQ(wavefront_model_gbs(240.0, 4, 4), 240.0);
  EXPECT_THROW(wavefront_model_gbs(240.0, 2, 1), std::invalid_argument);
}

TEST(SharedMemoryModel, ReadsKeepEveryPointAboutAsLong) {
  EXPECT_EQ(reads_per_thread(8192, 4, 1, 1, 8), 8192);
  EXPECT_EQ(reads_per_thread(8192, 16, 4, 4, 8), 2048); // a quarter of the loads, as many bytes
  EXPECT_EQ(reads_per_thread(8192, 4, 32, 1, 8), 256);
  EXPECT_EQ(reads_per_thread(8192, 8, 32, 2, 8), 256);
  EXPECT_EQ(reads_per_thread(1024, 16, 32, 4, 8), 64); // the floor, 8 trips
  EXPECT_EQ(reads_per_thread(1000, 4, 3, 1, 8) % 8, 0);
}

TEST(SharedMemoryModel, ElementSumsMatchAWalkOverWideElements) {
  const std::vector<uint32_t> words = {1, 2, 0xFFFFFFFFu, 4, 5, 6, 7, 8};
  for (int per : {1, 2, 4}) {
    const ElementSums sums(words, per);
    const uint64_t n = words.size() / per;
    for (uint64_t start : {0u, 1u, 3u, 9u})
      for (uint64_t count : {0u, 1u, 2u, 5u, 17u}) {
        uint32_t walk = 0;
        for (uint64_t i = 0; i < count; ++i)
          for (int w = 0; w < per; ++w)
            walk += words[((start + i) % n) * per + w];
        EXPECT_EQ(sums.sum(start, count), walk) << per << " " << start << " " << count;
      }
  }
  EXPECT_THROW(ElementSums(words, 3), std::invalid_argument);
  EXPECT_THROW(ElementSums({}, 1), std::invalid_argument);
}

TEST(SharedMemoryModel, TheStencilSumsTheSevenInputsAroundEachOutput) {
  const std::vector<uint32_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 0xFFFFFFFFu};
  const std::vector<uint32_t> out = stencil_reference(in, 3);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 28u);
  EXPECT_EQ(out[1], 35u);
  EXPECT_EQ(out[2], 3u + 4 + 5 + 6 + 7 + 8 - 1); // wraps as 32-bit adds
  EXPECT_THROW(stencil_reference({1, 2, 3}, 3), std::invalid_argument);
}

TEST(SharedMemoryModel, TheChaseIsOneCycleThroughEverySlot) {
  const std::vector<uint32_t> next = chase_cycle(4096, 7);
  std::set<uint32_t> seen;
  uint32_t at = 0;
  for (int i = 0; i < 4096; ++i) {
    seen.insert(at);
    at = next[at];
  }
  EXPECT_EQ(seen.size(), 4096u);
  EXPECT_EQ(at, 0u);
  EXPECT_EQ(chase_end(next, 0, 4096), 0u);
  EXPECT_EQ(chase_end(next, 0, 4098), next[next[0]]);
  EXPECT_THROW(chase_cycle(1, 7), std::invalid_argument);
}

TEST(SharedMemoryDeclaration, ThePlanHasEveryWidthStrideAndClustersOnlyFromHopper) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  apod::PlanInput hopper; // the nominal device: an H100
  const auto points = d->plan(hopper);
  // 19 strided, 2 padding, 2 stencil, 4 cluster bandwidth, 2 cluster latency.
  EXPECT_EQ(points.size(), 29u);
  int per_gpu = 0;
  for (const auto& p : points)
    for (const auto& m : p.metrics)
      per_gpu += m == bandwidth_per_gpu.name;
  EXPECT_EQ(per_gpu, 3); // stride 1 of each width
  apod::PlanInput ampere;
  ampere.device.cc_major = 8;
  EXPECT_EQ(d->plan(ampere).size(), 23u);
  EXPECT_TRUE(apod::declaration_problems(*d).empty());
}
