// Summary statistics and the bandwidth conversion of samples (measurement.cpp, bandwidth.cpp).
#include "bandwidth.hpp"
#include "measurement.hpp"

#include <gtest/gtest.h>

using namespace apod;

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(summarize({3, 1, 2}).median, 2);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
}

TEST(Stats, MinMaxMeanAndSampleStddev) {
  const Summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, 2.138089935, 1e-9);
}

TEST(Stats, EmptyHasNoSamples) { EXPECT_EQ(summarize({}).n, 0); }

TEST(Bandwidth, SamplesAreBytesOverTime) {
  const Measurement m = bandwidth_measurement({{"offset", 1}}, 1e9, {1.0, 2.0, 0.5});
  ASSERT_EQ(m.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(m.samples[0], 1000.0);
  EXPECT_DOUBLE_EQ(m.samples[1], 500.0);
  EXPECT_DOUBLE_EQ(m.samples[2], 2000.0);
  EXPECT_EQ(m.unit, "GB/s");
  EXPECT_EQ(m.extra["bytes_moved"].get<double>(), 1e9);
  EXPECT_FALSE(m.ok()) << "a measurement is not ok until its output is verified";
}
