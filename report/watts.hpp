// The watts a figure per watt is divided by (matched points, the buyer's comparison): the power
// drawn during a point's work, from its run's telemetry (analysis/power.hpp), or why there is
// none. Never the whole run's median power (idle gaps and host phases included), and never a
// board power from the prices file.
#pragma once

#include "model.hpp"

#include <optional>
#include <string>

namespace apod::report {

/// The median power_w of the run's telemetry: shown as the run's power, never divided by.
std::optional<double> median_power_w(const RunView& run);

/// The power drawn during a point's work, or the reason it is not known.
struct PointWatts {
  std::optional<double> watts;
  std::string basis;   ///< what it was measured over (analysis/power.hpp's power_basis_*)
  std::string missing; ///< without watts: why, in words ("power not measured during ...")
};

/// The power drawn during `point`'s work, for its per-watt figure: the one place the report
/// decides which watts a figure is divided by.
PointWatts point_watts(const PointView& point);

} // namespace apod::report
