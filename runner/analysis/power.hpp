// The GPU's power during one point's work, for per-watt figures (docs/method.md, "Power"). The
// whole run's median power mixes idle gaps, host-side experiments and warm-up with the work; a
// point's own window (extra.sampling_window) and the telemetry readings tagged with the
// experiment in flight give the power drawn while that work ran.
#pragma once

#include "core/measurement.hpp"
#include "core/telemetry.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod {

/// A point's power and what it was measured over.
struct PointPower {
  double watts = 0;
  std::string basis; ///< one of the power_basis_* texts below
};

inline constexpr const char* power_basis_point_energy = "energy counter over the point's sampling";
inline constexpr const char* power_basis_point_readings = "telemetry readings during the point";
inline constexpr const char* power_basis_experiment = "telemetry readings during the experiment";

/// Below this many seconds of sampling the energy counter's increase is not trusted on its own:
/// NVML does not document how often the counter updates.
inline constexpr double min_energy_window_s = 0.1;

/// The mean power of a point of `experiment` whose extra is `extra`, from the run's `telemetry`
/// (docs/results-format.md): the energy counter's increase over the point's busy time when the
/// point sampled for at least min_energy_window_s; else the readings taken inside its window
/// while the experiment was in flight; else the readings tagged with the experiment. Over a set
/// of readings, the energy counter's increase between the first and the last over the time
/// between them, else the mean of their power_w. Nothing when no reading fits: then no power
/// was measured during that work.
std::optional<PointPower> point_power_w(const json& extra,
                                        const std::vector<TelemetryReading>& telemetry,
                                        const std::string& experiment);

/// True when the readings name the experiment in flight (runs recorded since apod did): then a
/// point without a power of its own has none, rather than the run's median.
bool telemetry_names_experiments(const std::vector<TelemetryReading>& telemetry);

} // namespace apod
