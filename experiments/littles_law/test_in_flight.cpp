// littles_law's host arithmetic: the shapes span the bytes-in-flight axis, and the crossing of a
// bandwidth is read off the envelope of the measured points.
#include "in_flight.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace apod;

TEST(InFlight, ShapesSpanHalfAKibToAQuarterMibPerSm) {
  const auto shapes = flight_shapes(2048, false);
  EXPECT_EQ(shapes.size(), 3u * 4u * 7u);
  std::set<int> values;
  for (const auto& s : shapes) {
    values.insert(s.in_flight_bytes());
    EXPECT_EQ(s.threads_per_sm % flight_block_size, 0);
  }
  EXPECT_EQ(*values.begin(), 128 * 1 * 4);
  EXPECT_EQ(*values.rbegin(), 2048 * 8 * 16);
  EXPECT_EQ(values.size(), 10u + 7u); // 2^9 .. 2^18 and 1.5 x 2^11 .. 1.5 x 2^17
  EXPECT_TRUE(values.count(12288));   // between 8 and 16 KiB, where the 90% point falls
  // The guide's offsetCopy shape (2048 x 1 x 4 = 8 KiB) has persistent neighbours with as many.
  EXPECT_TRUE(values.count(8192));
  for (const auto& s : flight_shapes(1024, false))
    EXPECT_LE(s.threads_per_sm, 1024);
  EXPECT_EQ(flight_shapes(2048, true).size(), 8u);
}

TEST(InFlight, InterpolatesTheCrossingInLog2OfBytesInFlight) {
  // 1000 GB/s at 4 KiB, 3000 at 16 KiB: 2000 is halfway in log2, at 8 KiB.
  const auto at = in_flight_for_bandwidth({{4096, 1000}, {16384, 3000}}, 2000);
  ASSERT_TRUE(at.has_value());
  EXPECT_NEAR(*at, 8192.0, 1e-6);
  // A quarter of the way from 1000 to 3000: 2^(12 + 0.25 x 2).
  EXPECT_NEAR(*in_flight_for_bandwidth({{4096, 1000}, {16384, 3000}}, 1500), std::exp2(12.5), 1e-6);
  // Exactly at a measured point.
  EXPECT_NEAR(*in_flight_for_bandwidth({{4096, 1000}, {16384, 3000}}, 3000), 16384.0, 1e-9);
}

TEST(InFlight, UsesTheBestShapeForEachBytesInFlight) {
  // Two shapes with 8 KiB in flight: 1200 and 2600 GB/s; the envelope takes 2600, so 2400 is
  // crossed between 4 KiB (1000) and 8 KiB (2600), not past 8 KiB.
  const std::vector<InFlightPoint> points = {
      {8192, 1200}, {4096, 1000}, {8192, 2600}, {16384, 3000}};
  const auto at = in_flight_for_bandwidth(points, 2400);
  ASSERT_TRUE(at.has_value());
  EXPECT_GT(*at, 4096.0);
  EXPECT_LT(*at, 8192.0);
  EXPECT_NEAR(std::log2(*at), 12.0 + (2400.0 - 1000) / (2600 - 1000), 1e-9);
}

TEST(InFlight, FirstCrossingCountsAndUnreachedTargetsAreEmpty) {
  // Above the target already at the smallest value: that value, an upper bound.
  EXPECT_EQ(in_flight_for_bandwidth({{512, 2900}, {1024, 3000}}, 2000), std::optional<double>(512));
  // A dip after the first crossing does not move it.
  EXPECT_NEAR(
      *in_flight_for_bandwidth({{1024, 1000}, {2048, 2000}, {4096, 1500}, {8192, 2500}}, 2000),
      2048.0, 1e-9);
  EXPECT_FALSE(in_flight_for_bandwidth({{1024, 1000}, {2048, 1999}}, 2000).has_value());
  EXPECT_FALSE(in_flight_for_bandwidth({}, 1).has_value());
}
