// Summary statistics of samples and the point-status rule (measurement.cpp).
#include "core/errors.hpp"
#include "core/measurement.hpp"

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

TEST(Stats, EmptyHasNoSamples) {
  EXPECT_EQ(summarize({}).n, 0);
}

TEST(Stats, QuartilesAndRelativeStddev) {
  const Summary s = summarize({1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_NEAR(s.rsd, std::sqrt(2.5) / 3, 1e-12);
}

TEST(Stats, MedianConfidenceIntervalUsesBinomialOrderStatistics) {
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i)
    v.push_back(i);
  // n = 10: P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024, so j = 2: [x(2), x(9)].
  Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.ci_low, 2);
  EXPECT_DOUBLE_EQ(s.ci_high, 9);
  EXPECT_NEAR(s.ci_half_width_rel(), 3.5 / 5.5, 1e-12);
  // Too few samples for any order-statistic interval: the whole range.
  s = summarize({5, 1, 3});
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 5);
  // The interval narrows as n grows: n = 100 gives ranks 40 and 61.
  v.clear();
  for (int i = 1; i <= 100; ++i)
    v.push_back(i);
  s = summarize(v);
  EXPECT_DOUBLE_EQ(s.ci_low, 40);
  EXPECT_DOUBLE_EQ(s.ci_high, 61);
}

TEST(Stats, ExcludedSamplesAreLeftOutOfTheStatistics) {
  Measurement m;
  m.samples = {100, 1, 102, 101};
  m.excluded = {0, 1, 0, 0};
  const auto used = m.used_samples();
  ASSERT_EQ(used.size(), 3u);
  EXPECT_DOUBLE_EQ(summarize(used).min, 100);
}

TEST(Measurement, SampleCountsAreUsedAndExcludedByTheStatisticsRule) {
  Measurement m;
  m.samples = {100, 1, 102, 101, 99};
  m.excluded = {0, 1, 0, 2}; // the fifth sample has no flag: used, as by used_samples()
  const SampleCounts counts = sample_counts(m);
  EXPECT_EQ(counts.used, m.used_samples().size());
  EXPECT_EQ(counts.used, 3u);
  EXPECT_EQ(counts.excluded, 2u);
  EXPECT_EQ(counts.taken(), 5u);
  EXPECT_EQ(counts.text(), "3 samples used, 2 excluded");
  m.excluded.clear();
  EXPECT_EQ(sample_counts(m).text(), "5 samples");
}

TEST(Measurement, PointStatusDecidesOkFailedOrExcludedWithOneText) {
  Measurement m;
  m.samples = {1.0, 2.0};
  m.verified = true;
  EXPECT_TRUE(m.ok());
  EXPECT_EQ(point_status(m).reason, "");
  EXPECT_STREQ(point_status(m).word(), "ok");
  m.excluded = {1, 0};
  EXPECT_TRUE(m.ok()) << "one used sample is enough";
  m.excluded = {1, 2};
  EXPECT_EQ(point_status(m).state, PointState::excluded);
  EXPECT_EQ(point_status(m).reason, reason_all_excluded);
  EXPECT_STREQ(point_status(m).word(), "failed");
  m.verified = false;
  EXPECT_EQ(point_status(m).state, PointState::failed);
  EXPECT_EQ(point_status(m).reason, reason_not_verified);
  m.error = "cudaErrorIllegalAddress";
  EXPECT_EQ(point_status(m).reason, "cudaErrorIllegalAddress")
      << "the error wins over the verification";
  Measurement empty;
  empty.verified = true;
  EXPECT_EQ(point_status(empty).reason, reason_no_samples);
}

TEST(ExitCodes, EachErrorClassHasItsOwnCodeAndOnlyDeviceFailuresAre3) {
  EXPECT_EQ(exit_report(InputError("bad")).code, exit_usage);
  EXPECT_EQ(exit_report(NoDevice("none")).code, exit_no_device);
  EXPECT_EQ(exit_report(CudaError("cudaMalloc failed", 2)).code, exit_no_device);
  EXPECT_EQ(exit_report(std::bad_alloc()).code, exit_resources);
  EXPECT_EQ(exit_report(ResourceError("fork: Resource temporarily unavailable")).code,
            exit_resources);
  EXPECT_EQ(exit_report(std::length_error("vector")).code, exit_resources);
  const ExitReport bug = exit_report(std::logic_error("template: unclosed section"));
  EXPECT_EQ(bug.code, exit_internal) << "an internal error must not claim a missing GPU";
  EXPECT_NE(bug.message.find("internal error"), std::string::npos);
  EXPECT_EQ(exit_report(std::runtime_error("spawn failed")).code, exit_internal);
}
