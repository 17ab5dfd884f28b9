// The per-sample clock check fails closed (runner/run/clock_monitor.cpp): a query that stops
// answering mid-run flags every sample and is reported; one that never answered is recorded as
// missing, and the clock measured on the device is checked either way.
#include "core/in_flight.hpp"
#include "core/vocabulary.hpp"
#include "run/clock_monitor.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

constexpr int gpu_lost = 15, not_supported = 3;

// NVML as a test sets it: each query answers with a value or an NVML error code.
class FakeNvml : public ClockSource {
public:
  NvmlAnswer<unsigned> sm_clock_mhz() override {
    return clock_code ? NvmlAnswer<unsigned>{{}, clock_code} : NvmlAnswer<unsigned>{clock, 0};
  }
  NvmlAnswer<unsigned> max_sm_clock_mhz() override { return {1980u, 0}; }
  NvmlAnswer<unsigned long long> clocks_event_reasons() override {
    return reasons_code ? NvmlAnswer<unsigned long long>{{}, reasons_code}
                        : NvmlAnswer<unsigned long long>{reasons, 0};
  }
  unsigned clock = 1980;
  int clock_code = 0;
  unsigned long long reasons = 0;
  int reasons_code = 0;
};

} // namespace

TEST(ClockMonitor, FlagsLowClocksAndThrottling) {
  FakeNvml nvml;
  ClockMonitor monitor(&nvml, 0.75, 1000);
  EXPECT_EQ(monitor.check(), 0);
  nvml.clock = 1400; // under 75% of NVML's 1980 MHz maximum (1485)
  EXPECT_EQ(monitor.check(), sample_flag::low_clock);
  nvml.clock = 1980, nvml.reasons = 0x4; // software power cap
  EXPECT_EQ(monitor.check(), sample_flag::throttled);
  EXPECT_EQ(monitor.check_measured_clock(1400.0), sample_flag::low_clock)
      << "the clock measured on the device";
  EXPECT_EQ(monitor.check_measured_clock(1900.0), 0);
  EXPECT_FALSE(monitor.failed());
}

TEST(ClockMonitor, AQueryThatStopsAnsweringFlagsEverySampleAndIsReported) {
  in_flight::start_run();
  in_flight::set_experiment("peak_copy");
  FakeNvml nvml;
  ClockMonitor monitor(&nvml, 0.75, 1980);
  EXPECT_EQ(monitor.check(), 0);
  nvml.reasons_code = gpu_lost;
  EXPECT_EQ(monitor.check(), sample_flag::monitor_failed)
      << "fail closed: nothing vouches for this sample";
  EXPECT_EQ(monitor.check(), sample_flag::monitor_failed);
  EXPECT_TRUE(monitor.failed());
  const std::vector<TelemetryReading> events = monitor.take_events();
  ASSERT_EQ(events.size(), 1u) << "one event per change, not per sample";
  ASSERT_TRUE(events[0].is_event());
  EXPECT_EQ(events[0].event->name, "monitor_failed");
  EXPECT_EQ(events[0].event->nvml_code, gpu_lost);
  EXPECT_EQ(events[0].experiment, "peak_copy");
  EXPECT_EQ(to_json(events[0]).dump(),
            R"({"event":"monitor_failed","query":"clocks event reasons","experiment":"peak_copy",)"
            R"("nvml_code":15,"t_s":null})")
      << "as the telemetry stores it, once the sampler stamps its t_s";
  nvml.reasons_code = 0;
  EXPECT_EQ(monitor.check(), 0);
  EXPECT_EQ(monitor.take_events()[0].event->name, "monitor_recovered");
  EXPECT_TRUE(monitor.failed()) << "the run still had a spell without a monitor";
  in_flight::set_experiment("");
}

TEST(ClockMonitor, AQueryTheDeviceNeverAnsweredIsRecordedNotFlagged) {
  FakeNvml nvml;
  nvml.reasons_code = not_supported;
  ClockMonitor monitor(&nvml, 0.75, 1980);
  EXPECT_EQ(monitor.check(), 0);
  const MonitorAvailability a = monitor.availability();
  EXPECT_TRUE(a.available);
  EXPECT_EQ(a.sm_clock_check, true);
  EXPECT_EQ(a.clocks_event_reasons_check, false);
  EXPECT_DOUBLE_EQ(a.min_sm_clock_mhz.value_or(0), 1485.0);
}

TEST(ClockMonitor, WithoutNvmlTheRunSaysSoAndTheMeasuredClockIsStillChecked) {
  ClockMonitor monitor(nullptr, 0.75, 1980, "libnvidia-ml.so.1 not found");
  EXPECT_EQ(monitor.check(), 0);
  EXPECT_EQ(monitor.check_measured_clock(1000.0), sample_flag::low_clock);
  const MonitorAvailability a = monitor.availability();
  EXPECT_FALSE(a.available);
  EXPECT_EQ(a.why, "libnvidia-ml.so.1 not found");
  EXPECT_EQ(a.max_sm_clock_source, "cudaDevAttrClockRate");
}
