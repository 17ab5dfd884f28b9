// The L2 persistence experiment's host arithmetic (model.cpp).
#include "model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

using namespace apod;

TEST(L2PersistenceModel, SweepRunsFromWellInsideTheSetAsideToTwiceIt) {
  const auto full = region_ratios(false);
  EXPECT_DOUBLE_EQ(full.front(), 0.25);
  EXPECT_DOUBLE_EQ(full.back(), 2.0);
  EXPECT_TRUE(std::is_sorted(full.begin(), full.end()));
  EXPECT_NE(std::find(full.begin(), full.end(), 1.0), full.end());
  const auto quick = region_ratios(true);
  ASSERT_EQ(quick.size(), 2u);
  EXPECT_LT(quick.front(), 1.0); // one size that fits
  EXPECT_GT(quick.back(), 1.0);  // one that does not
}

TEST(L2PersistenceModel, RegionsAreWholePagesOfTheSetAside) {
  // The guide's A100: 30 MB set aside, regions 10..60 MB.
  const size_t set_aside = 30u << 20;
  EXPECT_EQ(region_bytes(set_aside, 2.0), size_t(60) << 20);
  EXPECT_EQ(region_bytes(set_aside, 0.25) % 4096, 0u);
  EXPECT_EQ(region_bytes(4095, 0.5), 4096u); // never empty
  EXPECT_THROW(region_bytes(0, 1.0), std::invalid_argument);
  EXPECT_THROW(region_bytes(set_aside, 0.0), std::invalid_argument);
}

TEST(L2PersistenceModel, TunedHitRatioIsSetAsideOverRegionAtMostOne) {
  const size_t set_aside = 30u << 20;
  EXPECT_DOUBLE_EQ(hit_ratio(Window::tuned, set_aside, size_t(60) << 20), 0.5);
  EXPECT_DOUBLE_EQ(hit_ratio(Window::tuned, set_aside, size_t(40) << 20), 0.75);
  EXPECT_DOUBLE_EQ(hit_ratio(Window::tuned, set_aside, size_t(10) << 20), 1.0);
  EXPECT_DOUBLE_EQ(hit_ratio(Window::hit_ratio_1, set_aside, size_t(60) << 20), 1.0);
  EXPECT_DOUBLE_EQ(hit_ratio(Window::none, set_aside, size_t(60) << 20), 0.0);
  EXPECT_THROW(hit_ratio(Window::tuned, set_aside, 0), std::invalid_argument);
}

TEST(L2PersistenceModel, WindowNamesAreTheStoredParameterValues) {
  EXPECT_EQ(std::string(window_name(Window::none)), "none");
  EXPECT_EQ(std::string(window_name(Window::hit_ratio_1)), "hit_ratio_1");
  EXPECT_EQ(std::string(window_name(Window::tuned)), "tuned");
}

TEST(L2PersistenceModel, CompulsoryBytesReadAndWriteStreamingOnceAndReadTheRegionOnce) {
  EXPECT_DOUBLE_EQ(compulsory_bytes(1000, 4096), 8000.0 + 4096.0);
}

TEST(L2PersistenceModel, StreamingWordGainsThePersistentWordPerLaunchModulo2To32) {
  EXPECT_EQ(streaming_after(10, 3, 0), 10u);
  EXPECT_EQ(streaming_after(10, 3, 4), 22u);
  EXPECT_EQ(streaming_after(0xFFFFFFFFu, 2, 1), 1u);
  uint32_t walk = 0x12345678u;
  for (int i = 0; i < 39; ++i)
    walk += 0x9ABCDEF1u;
  EXPECT_EQ(streaming_after(0x12345678u, 0x9ABCDEF1u, 39), walk);
}
