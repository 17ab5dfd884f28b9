// peak_copy's choice of peaks (peaks.cpp): the best verified point per access type, and the
// achievable peak as the best of those, named by its type.
#include "peaks.hpp"

#include "core/series.hpp"
#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

Measurement point(const char* type, const char* config, std::vector<double> gbs, bool verified,
                  std::vector<uint8_t> flags = {}) {
  return make_measurement({{keys::access_type, type}, {"config", config}},
                          metrics::effective_bandwidth, Series(std::move(gbs), std::move(flags)),
                          verified, {{keys::bytes_moved, 1e9}});
}

TEST(Peaks, OnePerAccessTypeFromItsBestVerifiedMedianWithThatPointsSamples) {
  const std::vector<Measurement> points = {
      point(access::copy, "copy a", {3000, 3010, 3020}, true),
      point(access::read, "read a", {3100, 3110, 3120}, true),
      point(access::copy, "copy b", {3050, 3060, 3070}, true, {0, 1, 0}),
      point(access::copy, "copy c", {3900, 3900, 3900}, false), // wrong output: never a peak
  };
  const auto peaks = access_peaks(points);
  ASSERT_EQ(peaks.size(), 2u);
  EXPECT_EQ(peaks[0].metric, keys::access_peak);
  EXPECT_EQ(peaks[0].params.at(keys::access_type), access::copy);
  EXPECT_TRUE(peaks[0].ok());
  EXPECT_EQ(peaks[0].samples, (std::vector<double>{3050, 3060, 3070}));
  EXPECT_EQ(peaks[0].excluded, (std::vector<uint8_t>{0, 1, 0})); // the flags travel with them
  EXPECT_EQ(peaks[0].extra.at("winner").at("config"), "copy b");
  EXPECT_EQ(peaks[0].extra.at("points_compared"), 3);
  EXPECT_EQ(peaks[0].extra.at(keys::bytes_moved), 1e9);
  EXPECT_EQ(peaks[1].params.at(keys::access_type), access::read);
  EXPECT_EQ(peaks[1].extra.at("winner").at("config"), "read a");
}

TEST(Peaks, ATypeWithNoVerifiedPointIsAFailedPeak) {
  const auto peaks = access_peaks({point(access::write, "w", {2900, 2910}, false)});
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_FALSE(peaks[0].ok());
  EXPECT_EQ(point_status(peaks[0]).reason, "no write point verified");
}

TEST(Peaks, PointsOfOtherMetricsOrWithoutAnAccessTypeAreIgnored) {
  Measurement no_type = point(access::copy, "x", {5000, 5000}, true);
  no_type.params.erase(keys::access_type);
  Measurement time = point(access::copy, "t", {9000, 9000}, true);
  time.metric = "time_ms";
  EXPECT_TRUE(access_peaks({no_type, time}).empty());
}

TEST(Peaks, TheAchievablePeakIsTheBestTypeAndNamesIt) {
  const auto peaks = access_peaks({point(access::copy, "c", {3000, 3001}, true),
                                   point(access::read, "r", {3100, 3101}, true),
                                   point(access::triad, "t", {3050, 3051}, true)});
  const Measurement best = achievable_peak(peaks);
  EXPECT_EQ(best.metric, keys::achievable_peak);
  EXPECT_EQ(best.params, (json{{"method", "best"}}));
  EXPECT_TRUE(best.ok());
  EXPECT_EQ(best.samples, (std::vector<double>{3100, 3101}));
  EXPECT_EQ(best.extra.at(keys::access_type), access::read);
  EXPECT_EQ(best.extra.at("winner").at("config"), "r");
  EXPECT_EQ(best.extra.at("access_types_compared"), 3);
}

TEST(Peaks, NoVerifiedTypeLeavesTheAchievablePeakFailed) {
  const Measurement best = achievable_peak(access_peaks({point(access::copy, "c", {1, 1}, false)}));
  EXPECT_FALSE(best.ok());
  EXPECT_EQ(point_status(best).reason, "no access type has a verified point");
}

} // namespace
