// The registry of what is in flight (runner/core/in_flight.cpp): telemetry tags and the window
// and energy of each point's sampling loop.
#include "core/in_flight.hpp"

#include <gtest/gtest.h>

#include <thread>

using namespace apod;

TEST(InFlight, TagsNameTheExperimentAndThePointInFlight) {
  in_flight::start_run();
  EXPECT_EQ(in_flight::tag().experiment, "");
  EXPECT_EQ(in_flight::tag().point, -1);
  in_flight::set_experiment("peak_copy");
  {
    in_flight::PointScope first;
    EXPECT_EQ(first.id(), 0);
    EXPECT_EQ(in_flight::tag().experiment, "peak_copy");
    EXPECT_EQ(in_flight::tag().point, 0);
  }
  EXPECT_EQ(in_flight::tag().point, -1) << "between points no point is in flight";
  in_flight::PointScope second;
  EXPECT_EQ(second.id(), 1) << "points are numbered per run";
  second.finish();
  in_flight::start_run();
  EXPECT_EQ(in_flight::PointScope().id(), 0) << "a new run numbers from 0 again";
  in_flight::set_experiment("");
}

TEST(InFlight, APointsWindowIsOnTheRunClockWithTheEnergyUsed) {
  in_flight::start_run();
  double joules = 1000.0;
  in_flight::set_energy_reader([&joules] { return std::optional<double>(joules); });
  in_flight::PointScope point;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  joules += 7.5;
  const SamplingWindow w = point.finish();
  EXPECT_GE(w.start_s, 0.0);
  EXPECT_GE(w.end_s - w.start_s, 0.019);
  EXPECT_DOUBLE_EQ(w.busy_s, w.end_s - w.start_s);
  ASSERT_TRUE(w.energy_j.has_value());
  EXPECT_DOUBLE_EQ(*w.energy_j, 7.5);
  EXPECT_LE(w.end_s, in_flight::run_clock_s());
  EXPECT_DOUBLE_EQ(point.finish().end_s, w.end_s) << "finishing twice changes nothing";
  in_flight::set_energy_reader(nullptr);
  EXPECT_FALSE(in_flight::PointScope().finish().energy_j.has_value()) << "no reader, no energy";
}

TEST(InFlight, MergedWindowsSpanBothAndSumTheirWork) {
  const SamplingWindow a{1.0, 2.0, 1.0, 100.0}, b{3.0, 3.5, 0.5, 40.0};
  const SamplingWindow m = SamplingWindow::merge(a, b);
  EXPECT_DOUBLE_EQ(m.start_s, 1.0);
  EXPECT_DOUBLE_EQ(m.end_s, 3.5);
  EXPECT_DOUBLE_EQ(m.busy_s, 1.5);
  EXPECT_DOUBLE_EQ(*m.energy_j, 140.0);
  EXPECT_DOUBLE_EQ(SamplingWindow::merge(SamplingWindow{}, b).end_s, 3.5)
      << "an empty window adds nothing";
}
