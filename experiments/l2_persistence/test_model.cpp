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

TEST(L2PersistenceModel, SetAsideSweepStartsWithNoneAndEndsAtTheMaximum) {
  // The reference (nothing set aside) is measured first: every other point is read against it.
  for (bool quick : {false, true}) {
    const auto f = set_aside_fractions(quick);
    ASSERT_GE(f.size(), 3u);
    EXPECT_DOUBLE_EQ(f.front(), 0.0);
    EXPECT_DOUBLE_EQ(f.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
  }
  EXPECT_EQ(set_aside_fractions(false).size(), 5u);
}

TEST(L2PersistenceModel, SetAsideIsWholePagesOfTheMaximumAndZeroForNone) {
  const size_t h100_max = 32768000; // persistingL2CacheMaxSize: 5/8 of 50 MiB
  EXPECT_EQ(set_aside_bytes(h100_max, 0.0), 0u);
  EXPECT_EQ(set_aside_bytes(h100_max, 1.0), h100_max);
  EXPECT_EQ(set_aside_bytes(h100_max, 0.25), 8192000u);
  EXPECT_EQ(set_aside_bytes(h100_max + 100, 1.0) % 4096, 0u);
  EXPECT_THROW(set_aside_bytes(h100_max, -0.1), std::invalid_argument);
  EXPECT_THROW(set_aside_bytes(h100_max, 1.5), std::invalid_argument);
}

TEST(L2PersistenceModel, BestNetGainIsTheHighestWindowedOkPoint) {
  // A no-window point is never the gain (it is the carve-out's cost), nor a failed one.
  const std::vector<GainCandidate> c = {{0.60, false, true},
                                        {1.07, true, true},
                                        {1.90, true, false},
                                        {1.20, false, true},
                                        {0.95, true, true}};
  ASSERT_TRUE(best_net_gain(c).has_value());
  EXPECT_EQ(*best_net_gain(c), 1u);
  // A loss is still the best there is, and says so (below 1).
  const std::vector<GainCandidate> losses = {{0.5, true, true}, {0.7, true, true}};
  EXPECT_EQ(*best_net_gain(losses), 1u);
  EXPECT_FALSE(best_net_gain({{1.2, false, true}, {1.3, true, false}}).has_value());
  EXPECT_FALSE(best_net_gain({}).has_value());
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
