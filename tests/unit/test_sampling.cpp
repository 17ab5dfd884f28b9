// The stopping rules of the measurement core (runner/sampling.cpp).
#include "core/sampling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

using namespace apod;

namespace {
SamplingPolicy policy() {
  SamplingPolicy p;
  p.min_samples = 10;
  p.max_samples = 200;
  p.target_ci_rel = 0.005;
  p.max_point_s = 5.0;
  return p;
}
} // namespace

TEST(Sampling, StopsAtMinimumWhenSamplesAgree) {
  AdaptiveSampler s(policy());
  int taken = 0;
  while (s.want_more())
    s.add(1.0 + 0.0001 * (taken++ % 3));
  const TimedSamples t = s.finish();
  EXPECT_EQ(t.size(), 10u) << "identical samples converge at the minimum count";
  EXPECT_EQ(t.stop_reason, stop_converged);
  EXPECT_FALSE(t.noisy);
}

TEST(Sampling, NoisySamplesRunToTheCapAndAreFlagged) {
  SamplingPolicy p = policy();
  p.max_samples = 50;
  AdaptiveSampler s(p);
  int taken = 0;
  while (s.want_more())
    s.add(taken++ % 2 ? 1.0 : 2.0); // 50% spread never converges
  const TimedSamples t = s.finish();
  EXPECT_EQ(t.size(), 50u);
  EXPECT_EQ(t.stop_reason, stop_max_samples);
  EXPECT_TRUE(t.noisy);
}

TEST(Sampling, TimeCapEndsAPointThatWillNotSettle) {
  SamplingPolicy p = policy();
  p.max_point_s = 0.05;
  AdaptiveSampler s(p);
  int taken = 0;
  while (s.want_more()) {
    s.add(taken++ % 2 ? 1.0 : 2.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const TimedSamples t = s.finish();
  EXPECT_EQ(t.stop_reason, stop_time_cap);
  EXPECT_TRUE(t.noisy);
  EXPECT_GE(t.size(), 10u) << "the minimum is taken even past the cap";
  EXPECT_LT(t.size(), 200u);
}

TEST(Sampling, ExcludedSamplesDoNotCountTowardTheMinimum) {
  AdaptiveSampler s(policy());
  int taken = 0;
  while (s.want_more()) {
    // Every other sample was taken at low clocks: flagged, kept, not used.
    s.add(taken % 2 ? 5.0 : 1.0, taken % 2 ? 1 : 0);
    ++taken;
  }
  const TimedSamples t = s.finish();
  EXPECT_EQ(t.size(), 19u)
      << "10 used samples (even indices) need 19 taken when every other is excluded";
  int excluded = 0;
  for (auto e : t.excluded)
    excluded += e != 0;
  EXPECT_EQ(excluded, 9);
  EXPECT_EQ(t.stop_reason, stop_converged) << "the slow excluded samples do not spoil the CI";
}

TEST(Sampling, FixedCountPointsAreNoisyByTheAdaptiveRule) {
  SamplingPolicy p = policy(); // target: the median's interval within 0.5% either side
  TimedSamples steady;
  steady.ms = {1.000, 1.001, 0.999, 1.000, 1.002, 0.998, 1.000, 1.001, 0.999, 1.000};
  finish_fixed(steady, p);
  EXPECT_EQ(steady.stop_reason, stop_fixed);
  EXPECT_FALSE(steady.noisy) << "10 samples within 0.2% meet the target";
  EXPECT_DOUBLE_EQ(steady.target_ci_rel, p.target_ci_rel);

  TimedSamples scattered = steady;
  scattered.ms = {1.0, 1.9, 0.6, 1.4, 1.0, 0.7, 1.5, 1.2, 0.8, 1.1}; // +-45%, as fixed points saw
  finish_fixed(scattered, p);
  EXPECT_TRUE(scattered.noisy) << "the same rule that marks an adaptive point noisy";

  TimedSamples all_flagged = steady;
  all_flagged.excluded.assign(all_flagged.ms.size(), sample_flag::throttled);
  finish_fixed(all_flagged, p);
  EXPECT_TRUE(all_flagged.noisy) << "no used sample meets no target";
}

TEST(Sampling, TheNoisyRuleUsesTheRangeBelowSixSamples) {
  // Under 6 samples the interval is [min, max]: 1.0 .. 1.02 is +-1% around 1.01, over 0.5%.
  EXPECT_TRUE(over_ci_target({1.0, 1.01, 1.02}, 0.005));
  EXPECT_FALSE(over_ci_target({1.0, 1.01, 1.02}, 0.02));
  EXPECT_TRUE(over_ci_target({}, 0.5));
}

TEST(Sampling, AdaptiveSamplerKeepsTheClockOfEverySample) {
  AdaptiveSampler s(policy());
  int taken = 0;
  while (s.want_more())
    s.add(1.0, 0, taken++ % 2 ? 1980.0 : std::nan(""));
  const TimedSamples t = s.finish();
  ASSERT_EQ(t.sm_clock_mhz.size(), t.ms.size());
  EXPECT_TRUE(std::isnan(t.sm_clock_mhz[0]));
  EXPECT_DOUBLE_EQ(t.sm_clock_mhz[1], 1980.0);
  EXPECT_DOUBLE_EQ(t.target_ci_rel, policy().target_ci_rel);
}

TEST(Sampling, SmClockIsCyclesOverNanoseconds) {
  // 1.98e6 cycles in 1 ms of %globaltimer: 1980 MHz.
  ClockStamps s{1'000'000, 5'000, 2'000'000, 5'000 + 1'980'000};
  ASSERT_TRUE(sm_clock_mhz_between(s).has_value());
  EXPECT_NEAR(*sm_clock_mhz_between(s), 1980.0, 1e-9);
  // 20 us at 1.5 GHz is the shortest interval that gives a clock.
  ClockStamps shortest{0, 0, min_clock_interval_ns, 30'000};
  EXPECT_NEAR(*sm_clock_mhz_between(shortest), 1500.0, 1e-9);
  ClockStamps too_short{0, 0, min_clock_interval_ns - 1, 30'000};
  EXPECT_FALSE(sm_clock_mhz_between(too_short).has_value()) << "the timer's steps would dominate";
  ClockStamps backwards{0, 9'000, 50'000, 1'000};
  EXPECT_FALSE(sm_clock_mhz_between(backwards).has_value());
}
