// What the scaling experiment stores (record.cpp), from synthetic series: the serial phase held
// fixed, Gustafson's numerator taken from the base partition's own series, flags carried into
// every derived figure, distinct metric names for the two fractions, the memory-bound model.
#include "record.hpp"

#include "core/theory.hpp"
#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace apod;
using namespace apod::scaling;

namespace {

class Collect : public Recorder {
public:
  void record(Measurement m) override { all.push_back(std::move(m)); }
  std::vector<Measurement> all;
};

struct Harness {
  DeviceInfo device;
  RunOptions options;
  Collect out;
  ExperimentContext ctx{device, options, out, "scaling"};

  const Measurement& find(const std::string& metric, const json& params) const {
    for (const auto& m : out.all)
      if (m.metric == metric && m.params == params)
        return m;
    throw std::runtime_error("no " + metric + " " + params.dump());
  }
  int count(const std::string& metric) const {
    int n = 0;
    for (const auto& m : out.all)
      n += m.metric == metric;
    return n;
  }
};

const std::vector<int> hopper_sms = {8,  16, 24, 32,  40,  48,  56,  64, 72,
                                     80, 88, 96, 104, 112, 120, 128, 132};

// A point whose every repetition took `ms` (times `1 + wobble` on odd repetitions).
PartitionSeries point(int sm_count, double ms, int reps = 5, double wobble = 0) {
  Series s;
  for (int r = 0; r < reps; ++r)
    s.add(ms * (r % 2 ? 1 + wobble : 1));
  return {sm_count, sm_count / 8.0, s, true, json::object()};
}

// A parallel phase that scales ideally: base_ms / N on every partition.
std::vector<PartitionSeries> ideal_curve(double base_ms) {
  std::vector<PartitionSeries> c;
  for (int sm : hopper_sms)
    c.push_back(point(sm, base_ms * 8 / sm));
  return c;
}

json curve_point(const std::string& curve, int sm) {
  return {{"curve", curve}, {"sm_count", sm}};
}

} // namespace

TEST(ScalingRecord, AmdahlHoldsTheSerialPhaseFixedAndAnExactFitIsFlagged) {
  Harness h;
  LawInputs in{ScalingLaw::amdahl, 1.0, {}, ideal_curve(8.0)};
  in.base.assign(in.points.size(), in.points.front());
  record_law(h.ctx, in);

  // A GPU phase that scales exactly as the SM ratio makes the law exact: the fit then says
  // nothing the times did not, and is stored failed with its identity check.
  const Measurement& p = h.find("amdahl_parallel_fraction", {{"law", "amdahl"}});
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(p.extra["identity_check"]["exact"].get<bool>());
  EXPECT_TRUE(p.extra["identity_check"]["identity"].get<bool>());
  EXPECT_NEAR(p.extra["fit_of_medians"].get<double>(), 8.0 / 9.0, 1e-8);
  EXPECT_NEAR(p.extra["p_from_parts"].get<double>(), 8.0 / 9.0, 1e-12);
  EXPECT_LT(p.extra["standard_error"].get<double>(), 1e-6);
  EXPECT_LT(p.extra["rms_residual"].get<double>(), 1e-8);
  EXPECT_EQ(p.extra["residuals"].size(), hopper_sms.size());
  EXPECT_FALSE(p.extra["residual_trend"]["trend"].get<bool>());
  EXPECT_EQ(h.count("fitted_parallel_fraction"), 0) << "the old shared name is gone";
  EXPECT_EQ(h.count("gustafson_parallel_fraction"), 0);
  const Measurement& limit = h.find("amdahl_limit", {{"law", "amdahl"}});
  EXPECT_NEAR(limit.samples.front(), 9.0, 1e-6);
  EXPECT_NEAR(limit.extra["fit_of_medians"].get<double>(), 9.0, 1e-6);
  EXPECT_LE(limit.extra["ci95"][0].get<double>(), 9.0 + 1e-6);
  EXPECT_LT(limit.extra["standard_error"].get<double>(), 1e-4) << "P's times 1 / (1 - P)^2";
  EXPECT_FALSE(limit.ok());

  for (int sm : hopper_sms) {
    const Measurement& s = h.find("speedup", curve_point("amdahl", sm));
    EXPECT_DOUBLE_EQ(s.extra["serial_ms"].get<double>(), 1.0) << "held fixed at every point";
    EXPECT_NEAR(s.samples.front(), measured_speedup(1.0, 8.0, 8.0 * 8 / sm), 1e-12);
    EXPECT_NEAR(s.extra["residual"].get<double>(), 0.0, 1e-7);
    EXPECT_NEAR(s.extra["model_speedup"].get<double>(), amdahl_speedup(8.0 / 9.0, sm / 8.0), 1e-6);
    const Measurement& e = h.find("efficiency", curve_point("amdahl", sm));
    EXPECT_NEAR(e.samples.front(), s.samples.front() / (sm / 8.0), 1e-12);
  }
}

TEST(ScalingRecord, AmdahlFitsOnePOverADecadeOfSerialWorkWithRealResiduals) {
  Harness h;
  // The GPU phase falls short of the SM ratio by up to 3% at 132 SMs, as measured on an H100.
  LawInputs in{ScalingLaw::amdahl, 0.5, {}, {}};
  for (int sm : hopper_sms)
    in.points.push_back(point(sm, 8.8 * 8 / sm * (1 + 0.03 * (sm - 8) / 124.0)));
  in.base.assign(in.points.size(), in.points.front());
  in.other_serial = {{10.0, 5.0}, {0.1, 0.05}};
  record_law(h.ctx, in);

  const Measurement& p = h.find("amdahl_parallel_fraction", {{"law", "amdahl"}});
  EXPECT_TRUE(p.ok()) << p.error;
  EXPECT_FALSE(p.extra["identity_check"]["identity"].get<bool>());
  EXPECT_EQ(p.extra["identity_check"]["free_quantities"], 1);
  EXPECT_GT(p.extra["identity_check"]["max_relative_residual"].get<double>(), 1e-4);
  EXPECT_GT(p.extra["standard_error"].get<double>(), 1e-6);
  EXPECT_EQ(p.extra["residuals"].size(), 3 * hopper_sms.size());
  EXPECT_NEAR(p.extra["fit_of_medians"].get<double>(), 8.8 / 9.3, 0.01);
  ASSERT_EQ(p.extra["serial_levels"].size(), 3u);
  EXPECT_EQ(p.extra["serial_levels"][0]["curve"], "amdahl_serial_x0.1");
  EXPECT_NEAR(p.extra["serial_levels"][2]["serial_ratio"].get<double>(), 10.0, 1e-12);
  for (const char* curve : {"amdahl_serial_x0.1", "amdahl", "amdahl_serial_x10"}) {
    const Measurement& s = h.find("speedup", curve_point(curve, 132));
    EXPECT_TRUE(s.ok()) << curve;
    EXPECT_TRUE(s.extra.contains("residual")) << curve;
  }
  const double s10 = h.find("speedup", curve_point("amdahl_serial_x10", 132)).samples.front();
  EXPECT_NEAR(s10, (5.0 + 8.8) / (5.0 + 8.8 * 8 / 132 * 1.03), 1e-12);
  EXPECT_EQ(amdahl_curve(1.0), "amdahl");
  EXPECT_EQ(amdahl_curve(10.0), "amdahl_serial_x10");
}

TEST(ScalingRecord, GustafsonNumeratorIsTheGrownProblemTimedOnTheBase) {
  Harness h;
  // The grown problem on the base partition runs 10% slower than N x the base problem: an
  // extrapolation would miss that; the measured numerator carries it.
  const double s = 1.0, p = 2.0;
  LawInputs in{ScalingLaw::gustafson, s, {}, {}};
  for (int sm : hopper_sms) {
    const double n = sm / 8.0;
    in.points.push_back(point(sm, p));
    in.base.push_back(point(8, sm == 8 ? p : 1.1 * n * p));
  }
  record_law(h.ctx, in);
  for (int sm : {16, 64, 132}) {
    const double n = sm / 8.0;
    const Measurement& speedup = h.find("speedup", curve_point("gustafson", sm));
    EXPECT_NEAR(speedup.samples.front(), (s + 1.1 * n * p) / (s + p), 1e-12);
    const Measurement& numerator = h.find("base_partition_ms", curve_point("gustafson", sm));
    EXPECT_EQ(numerator.extra["ran_on_sm_count"], 8);
    EXPECT_NEAR(numerator.samples.front(), 1.1 * n * p, 1e-12);
    EXPECT_NEAR(h.find("kernel_ms", curve_point("gustafson", sm)).samples.front(), p, 1e-12);
  }
  const Measurement& fraction = h.find("gustafson_parallel_fraction", {{"law", "gustafson"}});
  EXPECT_NEAR(fraction.extra["p_from_parts"].get<double>(), p / (s + p), 1e-12);
  EXPECT_EQ(h.count("amdahl_parallel_fraction"), 0);
  EXPECT_EQ(h.count("amdahl_limit"), 0);
}

TEST(ScalingRecord, AFlaggedSampleLeavesItsRepetitionOutOfEveryFigureMadeFromIt) {
  Harness h;
  LawInputs in{ScalingLaw::amdahl, 1.0, {}, ideal_curve(8.0)};
  in.points[3].ms = Series(in.points[3].ms.values(), {0, 0, 1, 0, 0});
  in.base.assign(in.points.size(), in.points.front());
  record_law(h.ctx, in);
  const std::vector<uint8_t> third_out = {0, 0, 1, 0, 0};
  EXPECT_EQ(h.find("speedup", curve_point("amdahl", 32)).excluded, third_out);
  EXPECT_EQ(h.find("speedup", curve_point("amdahl", 40)).excluded, std::vector<uint8_t>(5, 0));
  EXPECT_EQ(h.find("amdahl_parallel_fraction", {{"law", "amdahl"}}).excluded, third_out);
  EXPECT_EQ(h.find("amdahl_limit", {{"law", "amdahl"}}).excluded, third_out);
}

TEST(ScalingRecord, PhaseCurveSpeedupIsSampleBySampleOverTheBase) {
  Harness h;
  std::vector<PartitionSeries> c = {point(8, 4.0, 4, 0.5), point(16, 2.0, 4, 0.0)};
  record_phase_curve(h.ctx, "compute", c, {1.0, 2.0});
  const Measurement& s = h.find("speedup", curve_point("compute", 16));
  ASSERT_EQ(s.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(s.samples[0], 2.0);
  EXPECT_DOUBLE_EQ(s.samples[1], 3.0); // the base's slow second repetition over this one's
  EXPECT_DOUBLE_EQ(s.extra["model_speedup"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(h.find("efficiency", curve_point("compute", 16)).samples[1], 1.5);
  EXPECT_DOUBLE_EQ(h.find("kernel_ms", curve_point("compute", 8)).samples[1], 6.0);
  c[1].verified = false;
  Harness failed;
  record_phase_curve(failed.ctx, "compute", c, {1.0, 2.0});
  EXPECT_FALSE(failed.find("speedup", curve_point("compute", 16)).ok());
  EXPECT_TRUE(failed.find("speedup", curve_point("compute", 8)).ok());
}

TEST(ScalingRecord, MemoryCurveCarriesTheModelAndItsKnee) {
  Harness h;
  // 1 GB moved; 1000 GB/s on 8 SMs (125 per SM); the hardware levels off at 2900 GB/s.
  const double bytes = 1e9;
  std::vector<PartitionSeries> c;
  for (int sm : {8, 16, 24, 32, 40})
    c.push_back(point(sm, 1e3 / std::min(125.0 * sm, 2900.0)));
  record_memory_bandwidth(h.ctx, c, bytes, {3000, "achievable_peak"}, 4800);

  const Measurement& knee = h.find("predicted_knee_sm_count", {{"curve", "memory"}});
  EXPECT_NEAR(knee.samples.front(), 24.0, 1e-9);       // 3000 / 125
  EXPECT_EQ(knee.extra["measured_knee_sm_count"], 24); // 2900 >= 95% of 2900
  EXPECT_EQ(knee.extra["model_limit_source"], "achievable_peak");
  const Measurement& bw16 = h.find("effective_bandwidth", curve_point("memory", 16));
  EXPECT_NEAR(bw16.samples.front(), 2000.0, 1e-9);
  EXPECT_NEAR(bw16.extra["model_gbs"].get<double>(), 2000.0, 1e-9);
  EXPECT_EQ(bw16.extra[keys::limit_gbs], 4800);
  EXPECT_NEAR(
      h.find("effective_bandwidth", curve_point("memory", 40)).extra["model_gbs"].get<double>(),
      3000.0, 1e-9);
  EXPECT_NEAR(memory_model(c.front(), bytes, {3000, ""}).speedup(40), 3.0, 1e-12);
}
