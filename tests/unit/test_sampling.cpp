// The stopping rules of the measurement core (runner/sampling.cpp).
#include "core/sampling.hpp"

#include <gtest/gtest.h>

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
}  // namespace

TEST(Sampling, StopsAtMinimumWhenSamplesAgree) {
  AdaptiveSampler s(policy());
  int taken = 0;
  while (s.want_more()) s.add(1.0 + 0.0001 * (taken++ % 3));
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
  while (s.want_more()) s.add(taken++ % 2 ? 1.0 : 2.0);  // 50% spread never converges
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
  EXPECT_EQ(t.size(), 19u) << "10 used samples (even indices) need 19 taken when every other is excluded";
  int excluded = 0;
  for (auto e : t.excluded) excluded += e != 0;
  EXPECT_EQ(excluded, 9);
  EXPECT_EQ(t.stop_reason, stop_converged) << "the slow excluded samples do not spoil the CI";
}

TEST(Sampling, DerivedSamplesAreLeftOutWhenAnyInputWas) {
  std::vector<uint8_t> model = {0, 1, 0, 0};         // tT: sample 1 at low clocks
  merge_excluded(model, {0, 0, 2, 0, 2});             // tE: samples 2 and 4 throttled
  EXPECT_EQ(model, (std::vector<uint8_t>{0, 1, 2, 0, 2}));
  merge_excluded(model, {1, 1});
  EXPECT_EQ(model, (std::vector<uint8_t>{1, 1, 2, 0, 2})) << "flags OR together";
  EXPECT_EQ(used_values({10, 11, 12, 13, 14, 15}, model), (std::vector<double>{13, 15}))
      << "a value past the end of the flags is used";
}

TEST(Sampling, AFixedPointWithEverySampleFlaggedCarriesNoFigure) {
  Measurement m;
  m.samples = {1.0, 1.1, 0.9};
  apply_fixed_exclusions(m, {1, 0, 2});
  EXPECT_EQ(m.stop_reason, stop_fixed);
  EXPECT_TRUE(m.error.empty());
  EXPECT_EQ(m.used_samples(), (std::vector<double>{1.1}));
  apply_fixed_exclusions(m, {1, 2, 2});
  EXPECT_TRUE(m.used_samples().empty());
  EXPECT_NE(m.error.find("throttled"), std::string::npos) << m.error;
  EXPECT_FALSE(m.ok());
}
