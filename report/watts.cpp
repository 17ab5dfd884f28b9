#include "watts.hpp"

#include "analysis/power.hpp"

namespace apod::report {

std::optional<double> median_power_w(const RunView& run) {
  return run.median_power_w;
}

PointWatts point_watts(const PointView& point) {
  // The power drawn during the point's work (analysis/power.hpp: its energy counter, else the
  // readings during it or its experiment). Runs recorded before telemetry named the experiment
  // in flight have only their median power, which mixes idle gaps and host phases with the work
  // (issue 25 found it under "power drawn during the work"): no per-watt figure from it.
  const std::vector<TelemetryReading>& telemetry = point.run->run->telemetry;
  if (const auto p =
          point_power_w(point.measurement->extra, telemetry, point.measurement->experiment);
      p && p->watts > 0)
    return {p->watts, p->basis, ""};
  if (telemetry.empty())
    return {std::nullopt, "", "no power telemetry in these runs"};
  if (!telemetry_names_experiments(telemetry))
    return {std::nullopt, "", "power not measured during this experiment in these runs"};
  return {std::nullopt, "", "no power reading during this experiment"};
}

} // namespace apod::report
