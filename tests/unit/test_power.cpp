// The power during a point's work, for per-watt figures (runner/analysis/power.cpp).
#include "analysis/power.hpp"
#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

json reading(double t_s, const char* experiment, double power_w, double energy_j) {
  return {{"t_s", t_s},
          {"experiment", experiment ? json(experiment) : json(nullptr)},
          {"power_w", power_w},
          {"energy_j", energy_j}};
}

// Readings as a document stores them, read as the run's telemetry.
std::vector<TelemetryReading> typed(const json& readings) {
  std::vector<TelemetryReading> telemetry;
  for (const json& r : readings)
    telemetry.push_back(telemetry_from_json(r, "telemetry"));
  return telemetry;
}

// A run: idle at 100 W, peak_copy from 1 s to 3 s at 600 W, then host_transfer at 200 W.
std::vector<TelemetryReading> run_telemetry() {
  json t = json::array();
  double joules = 0;
  for (int i = 0; i <= 24; ++i) {
    const double s = i * 0.25;
    const char* experiment = s < 1 ? nullptr : s < 3 ? "peak_copy" : "host_transfer";
    const double watts = s < 1 ? 100 : s < 3 ? 600 : 200;
    t.push_back(reading(s, experiment, watts, joules));
    joules += watts * 0.25;
  }
  t.push_back({{"t_s", 2.0}, {"event", "monitor_failed"}, {"experiment", "peak_copy"}});
  return typed(t);
}

json window(double start_s, double end_s, std::optional<double> energy_j) {
  json w = {{"start_s", start_s}, {"end_s", end_s}, {"busy_s", end_s - start_s}};
  if (energy_j)
    w["energy_j"] = *energy_j;
  return {{keys::sampling_window, w}};
}

} // namespace

TEST(Power, ALongPointUsesTheEnergyItsSamplingUsed) {
  const auto p = point_power_w(window(1.2, 1.7, 290.0), run_telemetry(), "peak_copy");
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->watts, 580.0);
  EXPECT_EQ(p->basis, power_basis_point_energy);
}

TEST(Power, AShortPointUsesTheReadingsTakenDuringIt) {
  // 50 ms of sampling: too short for the energy counter alone; readings at 1.25 .. 2.0 s.
  const auto p = point_power_w(window(1.2, 2.05, std::nullopt), run_telemetry(), "peak_copy");
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->watts, 600.0, 1e-9)
      << "the energy between the first and last reading in the window";
  EXPECT_EQ(p->basis, power_basis_point_readings);
  const auto tiny = point_power_w(window(1.3, 1.35, 20.0), run_telemetry(), "peak_copy");
  ASSERT_TRUE(tiny.has_value());
  EXPECT_EQ(tiny->basis, power_basis_experiment) << "no reading inside: the experiment's readings";
  EXPECT_NEAR(tiny->watts, 600.0, 1e-9) << "never the run's median, which idle time pulls down";
}

TEST(Power, WithoutEnergyTheMeanOfThePowerReadings) {
  json t = json::array({{{"t_s", 1.0}, {"experiment", "x"}, {"power_w", 300.0}},
                        {{"t_s", 1.25}, {"experiment", "x"}, {"power_w", 500.0}}});
  const auto p = point_power_w(json::object(), typed(t), "x");
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->watts, 400.0);
}

TEST(Power, NoReadingOfTheExperimentGivesNoFigure) {
  EXPECT_FALSE(point_power_w(json::object(), run_telemetry(), "scaling").has_value());
  EXPECT_FALSE(point_power_w(json::object(), {}, "peak_copy").has_value());
}

TEST(Power, TelemetryNamesExperimentsOnlyInRunsThatTaggedIt) {
  EXPECT_TRUE(telemetry_names_experiments(run_telemetry()));
  const json untagged = json::array({{{"t_s", 0.25}, {"power_w", 500.0}}});
  EXPECT_FALSE(telemetry_names_experiments(typed(untagged)))
      << "a run recorded before readings named the experiment";
  EXPECT_FALSE(telemetry_names_experiments({}));
}
