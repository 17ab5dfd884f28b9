// littles_law's loaded-latency maths: the curve is read as measured (sorted, never shortening
// with load, never extrapolated), and Little's law on it is a fixed point that agrees with the
// closed form where the latency is constant.
#include "loaded.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace apod;

TEST(LoadedLatency, CurveIsSortedByBandwidthAndNeverShortensWithLoad) {
  const auto curve = loaded_curve({{2000, 700}, {0, 500}, {1000, 480}, {3000, 1500}, {-1, 9}});
  ASSERT_EQ(curve.size(), 4u); // the negative bandwidth is dropped; the idle point stays
  EXPECT_EQ(curve[0].gbs, 0);
  EXPECT_EQ(curve[1].gbs, 1000);
  EXPECT_EQ(curve[1].ns, 500); // a dip below the idle latency is noise: raised to it
  EXPECT_EQ(curve[3].ns, 1500);
}

TEST(LoadedLatency, InterpolatesLatencyAndRefusesToExtrapolate) {
  const auto curve = loaded_curve({{0, 500}, {1000, 600}, {3000, 1600}});
  EXPECT_DOUBLE_EQ(*latency_at(curve, 0), 500);
  EXPECT_DOUBLE_EQ(*latency_at(curve, 500), 550);
  EXPECT_DOUBLE_EQ(*latency_at(curve, 2000), 1100);
  EXPECT_DOUBLE_EQ(*latency_at(curve, 3000), 1600);
  EXPECT_FALSE(latency_at(curve, 3000.1).has_value());
  EXPECT_FALSE(latency_at({}, 1).has_value());
}

TEST(LoadedLatency, FixedPointEqualsTheClosedFormWhenLatencyIsConstant) {
  // L = 500 ns at every load: B = 2 x 132 x 4096 / 500 = 2162.7 GB/s.
  const auto flat = loaded_curve({{0, 500}, {5000, 500}});
  EXPECT_NEAR(*littles_fixed_point_gbs(flat, 132, 4096, 2), 2.0 * 132 * 4096 / 500, 1e-6);
}

TEST(LoadedLatency, FixedPointLiesOnTheCurve) {
  const auto curve = loaded_curve({{0, 500}, {1000, 600}, {2000, 800}, {3000, 2000}});
  for (double x : {512.0, 2048.0, 8192.0, 16384.0}) {
    const double b = *littles_fixed_point_gbs(curve, 132, x, 2);
    ASSERT_LE(b, 3000);
    // B x L(B) = 2 x S x X: Little's law holds at the answer.
    EXPECT_NEAR(b * *latency_at(curve, b), 2.0 * 132 * x, 1e-6 * 2.0 * 132 * x) << x;
  }
  // More in flight, more bandwidth, but less than in proportion once latency rises.
  const double at_4k = *littles_fixed_point_gbs(curve, 132, 4096, 2);
  const double at_8k = *littles_fixed_point_gbs(curve, 132, 8192, 2);
  EXPECT_GT(at_8k, at_4k);
  EXPECT_LT(at_8k, 2 * at_4k);
}

TEST(LoadedLatency, PastTheCurveTheHighestLatencyBounds) {
  const auto curve = loaded_curve({{0, 500}, {3000, 1000}});
  // 2 x 132 x 65536 / 1000 = 17301 GB/s at the highest latency: past the curve's 3000.
  EXPECT_NEAR(*littles_fixed_point_gbs(curve, 132, 65536, 2), 2.0 * 132 * 65536 / 1000, 1e-6);
  EXPECT_FALSE(littles_fixed_point_gbs({}, 132, 4096, 2).has_value());
  EXPECT_THROW(littles_fixed_point_gbs(curve, 0, 4096, 2), std::invalid_argument);
}

TEST(LoadedLatency, InFlightForABandwidthIsLittlesLawAtThatLoad) {
  const auto curve = loaded_curve({{0, 347}, {2500, 1270}});
  // At 2500 GB/s: 2500 x 1270 / (2 x 132) = 12026.5 bytes per SM (the review's ~13.1 KB).
  EXPECT_NEAR(*littles_in_flight_bytes_per_sm(curve, 2500, 132, 2), 2500.0 * 1270 / 264, 1e-9);
  EXPECT_FALSE(littles_in_flight_bytes_per_sm(curve, 2600, 132, 2).has_value());
  // The inverse of the fixed point.
  const double x = *littles_in_flight_bytes_per_sm(curve, 1800, 132, 2);
  EXPECT_NEAR(*littles_fixed_point_gbs(curve, 132, x, 2), 1800, 1e-6);
}

TEST(LoadedLatency, LadderStartsUnthrottledAndRises) {
  const auto d = background_delays_cycles();
  ASSERT_GE(d.size(), 12u);
  EXPECT_EQ(d.front(), 0);
  for (size_t i = 1; i < d.size(); ++i)
    EXPECT_GT(d[i], d[i - 1]);
}
