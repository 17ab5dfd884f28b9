// What a Series carries from the timing core into a stored record (runner/core/series.cpp): the
// SM clock of every sample, the sampling window, and the noisy rule for fixed counts.
#include "core/series.hpp"
#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace apod;

namespace {

TimedSamples timed_fixed(std::vector<double> ms, std::vector<double> clocks,
                         double target = 0.005) {
  TimedSamples t;
  t.ms = std::move(ms);
  t.excluded.assign(t.ms.size(), 0);
  t.sm_clock_mhz = std::move(clocks);
  t.window = {10.0, 10.5, 0.5, 150.0};
  t.target_ci_rel = target;
  return t;
}

} // namespace

TEST(Series, KeepsWhatTheTimingCoreMeasured) {
  const Series s = timed_fixed({1.0, 1.0, 1.0}, {1980, std::nan(""), 1965});
  ASSERT_EQ(s.sm_clock_mhz().size(), 3u);
  EXPECT_DOUBLE_EQ(s.clock(0), 1980);
  EXPECT_TRUE(std::isnan(s.clock(1)));
  EXPECT_DOUBLE_EQ(s.window().busy_s, 0.5);
  EXPECT_DOUBLE_EQ(*s.window().energy_j, 150.0);
  EXPECT_DOUBLE_EQ(s.target_ci_rel(), 0.005);
  const Series gbs = bandwidth_gbs(s, 2e9); // map keeps clocks and window
  EXPECT_DOUBLE_EQ(gbs.clock(2), 1965);
  EXPECT_DOUBLE_EQ(gbs.window().end_s, 10.5);
}

TEST(Series, AMeasurementStoresTheClockPerSampleAndTheWindow) {
  const Measurement m =
      make_measurement({{"n", 1}}, metrics::time_ms,
                       Series(timed_fixed({1.0, 1.0, 1.0}, {1979.6, std::nan(""), 1965.2})), true);
  const json& clocks = m.extra.at(keys::sm_clock_mhz);
  ASSERT_EQ(clocks.size(), m.samples.size()) << "aligned with the samples";
  EXPECT_EQ(clocks[0], 1980);
  EXPECT_TRUE(clocks[1].is_null());
  EXPECT_EQ(clocks[2], 1965);
  const json& window = m.extra.at(keys::sampling_window);
  EXPECT_DOUBLE_EQ(window.at("start_s").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(window.at("end_s").get<double>(), 10.5);
  EXPECT_DOUBLE_EQ(window.at("energy_j").get<double>(), 150.0);
}

TEST(Series, WithoutClocksOrWindowTheMeasurementSaysNothingOfThem) {
  const Measurement m = make_measurement({}, metrics::time_ms, Series({1.0, 2.0}, {}), true);
  EXPECT_FALSE(m.extra.contains(keys::sm_clock_mhz));
  EXPECT_FALSE(m.extra.contains(keys::sampling_window));
  EXPECT_FALSE(m.noisy) << "no CI target known: the series' own verdict stands";
}

TEST(Series, FixedCountFiguresAreMarkedNoisyOverTheValuesStored) {
  // Each input is steady, but their ratio scatters by +-20%: the stored figure is noisy.
  const Series a = timed_fixed({1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, {});
  const Series b = timed_fixed({1.0, 1.2, 0.8, 1.1, 0.9, 1.2, 0.8, 1.0}, {});
  const Measurement steady = make_measurement({}, metrics::time_ms, a, true);
  EXPECT_FALSE(steady.noisy);
  const Measurement ratio =
      make_measurement({}, {"ratio", "1", Direction::higher},
                       Series::zip(a, b, [](double x, double y) { return x / y; }), true);
  EXPECT_EQ(ratio.stop_reason, stop_fixed);
  EXPECT_TRUE(ratio.noisy);
}

TEST(Series, ZipTakesTheLowerClockAndSpansBothWindows) {
  TimedSamples ta = timed_fixed({1.0, 1.0}, {1980, std::nan("")});
  TimedSamples tb = timed_fixed({2.0, 2.0}, {1500, 1700});
  tb.window = {11.0, 12.0, 1.0, std::nullopt};
  const Series z = Series::zip(ta, tb, [](double x, double y) { return x + y; });
  EXPECT_DOUBLE_EQ(z.clock(0), 1500);
  EXPECT_DOUBLE_EQ(z.clock(1), 1700) << "the one that is known";
  EXPECT_DOUBLE_EQ(z.window().start_s, 10.0);
  EXPECT_DOUBLE_EQ(z.window().end_s, 12.0);
  EXPECT_DOUBLE_EQ(z.window().busy_s, 1.5);
  EXPECT_FALSE(z.window().energy_j.has_value())
      << "energy of one part only is no energy of the whole";
}

TEST(Series, WhereKeepsClocksAlignedAndAddKeepsFlagsAligned) {
  Series s = timed_fixed({1.0, 5.0, 2.0}, {1900, 1800, 1700});
  const Series kept = s.where([](double v) { return v < 3; });
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_DOUBLE_EQ(kept.clock(1), 1700);
  Series bare({1.0, 2.0}, {});
  bare.add(3.0, sample_flag::throttled);
  EXPECT_EQ(bare.flag(0), 0);
  EXPECT_EQ(bare.flag(2), sample_flag::throttled) << "the flag lands on its own value";
  EXPECT_TRUE(bare.sm_clock_mhz().empty());
}

TEST(Series, BandwidthIsBytesOverTimeWithFlagsKept) {
  const Series times({1.0, 2.0, 0.5}, {0, 1, 0});
  const Measurement m = bandwidth_measurement({{"offset", 1}}, 1e9, times, /*verified=*/true);
  ASSERT_EQ(m.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(m.samples[0], 1000.0);
  EXPECT_DOUBLE_EQ(m.samples[1], 500.0);
  EXPECT_DOUBLE_EQ(m.samples[2], 2000.0);
  EXPECT_EQ(m.unit, "GB/s");
  EXPECT_EQ(m.extra["bytes_moved"].get<double>(), 1e9);
  EXPECT_EQ(m.used_samples(), (std::vector<double>{1000.0, 2000.0}))
      << "the flagged sample is left out";
  const Measurement unverified = bandwidth_measurement({}, 1e9, times, /*verified=*/false);
  EXPECT_FALSE(point_status(unverified).ok()) << "an unverified output is never an ok point";
}
