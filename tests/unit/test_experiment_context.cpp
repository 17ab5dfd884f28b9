// What an experiment reads from earlier in its run (runner/core/experiment.cpp).
#include "core/experiment.hpp"
#include "core/series.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

Measurement point(const std::string& experiment, const std::string& metric, json params,
                  double value) {
  Measurement m = make_measurement(std::move(params), {metric, "GB/s", Direction::higher},
                                   Series({value, value, value}, {}), true);
  m.experiment = experiment;
  return m;
}

struct NullRecorder : Recorder {
  void record(Measurement) override {}
};

} // namespace

TEST(ExperimentContext, AchievablePeakIsTheMatchingAccessTypesThenTheOverallOne) {
  const DeviceInfo device;
  const RunOptions options;
  NullRecorder recorder;
  std::vector<Measurement> earlier = {
      point("peak_copy", keys::access_peak, {{keys::access_type, access::write}}, 3304),
      point("peak_copy", keys::access_peak, {{keys::access_type, access::copy}}, 3035),
      point("peak_copy", keys::achievable_peak, {{"method", "best"}}, 3304)};
  ExperimentContext ctx{device, options, recorder, "littles_law", &earlier};
  EXPECT_DOUBLE_EQ(*ctx.achievable_peak_gbs(access::copy), 3035)
      << "a copy is read against the copy peak";
  EXPECT_DOUBLE_EQ(*ctx.achievable_peak_gbs(access::triad), 3304)
      << "no triad peak: the overall one";
  earlier.clear();
  EXPECT_FALSE(ctx.achievable_peak_gbs(access::copy)) << "peak_copy did not run";
  ExperimentContext alone{device, options, recorder, "littles_law"};
  EXPECT_FALSE(alone.achievable_peak_gbs(access::copy));
}

TEST(ExperimentContext, EarlierMedianSkipsFailedPointsAndMatchesParams) {
  const DeviceInfo device;
  const RunOptions options;
  NullRecorder recorder;
  Measurement failed = point("memory_latency", "latency_ns", {{"level", "dram"}}, 1);
  failed.verified = false;
  std::vector<Measurement> earlier = {
      failed, point("memory_latency", "latency_ns", {{"level", "l2"}}, 140),
      point("memory_latency", "latency_ns", {{"level", "dram"}}, 560)};
  ExperimentContext ctx{device, options, recorder, "littles_law", &earlier};
  EXPECT_DOUBLE_EQ(*ctx.earlier_median("memory_latency", "latency_ns", {{"level", "dram"}}), 560);
  EXPECT_FALSE(ctx.earlier_median("memory_latency", "latency_cycles"));
}
