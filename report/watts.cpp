#include "watts.hpp"

#include "analysis/power.hpp"

namespace apod::report {

std::optional<double> median_power_w(const RunView& run) {
  return run.median_power_w;
}

std::optional<double> point_watts(const PointView& point) {
  // The power drawn during the point's work (analysis/power.hpp: its energy counter, else the
  // readings during it or its experiment); runs recorded before telemetry named the experiment
  // in flight have only their median power.
  const std::vector<TelemetryReading>& telemetry = point.run->run->telemetry;
  if (const auto p =
          point_power_w(point.measurement->extra, telemetry, point.measurement->experiment))
    return p->watts;
  return telemetry_names_experiments(telemetry) ? std::nullopt : median_power_w(*point.run);
}

} // namespace apod::report
