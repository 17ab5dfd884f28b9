// The tensor-core experiment's power window (power_window.cpp): the power between the energy
// counter's steps, and the monitor that keeps samples taken at the power cap.
#include "power_window.hpp"

#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

using namespace apod;
using namespace apod::tensor;

TEST(PowerWindow, PowerIsTheEnergyBetweenTheFirstAndLastStepOverTheirInterval) {
  // Polling starts at 0.00 s (1000 J); the counter steps at 0.03, 0.13 and 0.23 s by 64 J.
  const std::vector<EnergyReading> r = {{0.00, 1000}, {0.03, 1064}, {0.13, 1128}, {0.23, 1192}};
  EXPECT_DOUBLE_EQ(*watts_between_steps(r, 0.05), 128 / 0.2);
  // Energy over the whole poll would count the first partial step: 192 J / 0.23 s = 835 W.
  EXPECT_LT(*watts_between_steps(r, 0.05), 700);
}

TEST(PowerWindow, NoFigureWithoutTwoStepsFarEnoughApart) {
  EXPECT_FALSE(watts_between_steps({}, 0.05));
  EXPECT_FALSE(watts_between_steps({{0.0, 10}, {0.04, 74}}, 0.05));              // one step only
  EXPECT_FALSE(watts_between_steps({{0.0, 10}, {0.01, 74}, {0.03, 138}}, 0.05)); // 0.02 s apart
  EXPECT_FALSE(watts_between_steps({{0.0, 10}, {0.01, 74}, {0.2, 74}}, 0.05));   // no increase
  EXPECT_TRUE(watts_between_steps({{0.0, 10}, {0.01, 74}, {0.11, 138}}, 0.05));
}

namespace {
struct FixedMonitor : SampleMonitor {
  uint8_t flags = 0, measured = 0;
  uint8_t check() override { return flags; }
  uint8_t check_measured_clock(double) override { return measured; }
};
} // namespace

TEST(PowerWindow, SamplesAtThePowerCapAreKeptAndCounted) {
  FixedMonitor inner;
  CappedMonitor m(&inner);
  // At the cap: NVML reports a reason and the clock is low, by NVML and as measured: kept, once.
  inner.flags = sample_flag::throttled | sample_flag::low_clock;
  inner.measured = sample_flag::low_clock;
  EXPECT_EQ(m.check(), 0);
  EXPECT_EQ(m.check_measured_clock(1300), 0);
  // At the cap, the clock low only as measured: kept.
  inner.flags = sample_flag::throttled;
  EXPECT_EQ(m.check(), 0);
  EXPECT_EQ(m.check_measured_clock(1300), 0);
  EXPECT_EQ(m.throttled(), 2);
  EXPECT_EQ(m.low_clock(), 2);
}

TEST(PowerWindow, ALowClockWithoutAReasonAndAFailedMonitorStillExclude) {
  FixedMonitor inner;
  CappedMonitor m(&inner);
  inner.flags = sample_flag::low_clock; // the gpu suite's dipped sample
  EXPECT_EQ(m.check(), sample_flag::low_clock);
  inner.flags = 0;
  inner.measured = sample_flag::low_clock;
  EXPECT_EQ(m.check(), 0);
  EXPECT_EQ(m.check_measured_clock(1300), sample_flag::low_clock);
  inner.flags = sample_flag::monitor_failed | sample_flag::throttled;
  EXPECT_EQ(m.check(), sample_flag::monitor_failed);
  EXPECT_EQ(m.throttled(), 1);
  EXPECT_EQ(m.low_clock(), 0);
  CappedMonitor none(nullptr); // no monitor in the run: nothing flagged
  EXPECT_EQ(none.check(), 0);
}
