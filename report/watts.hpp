// The watts a figure per watt is divided by (matched points, the buyer's comparison): the power
// drawn during a point's work, from its run's telemetry (analysis/power.hpp).
#pragma once

#include "model.hpp"

#include <optional>

namespace apod::report {

/// The median power_w of the run's telemetry: the watts of the per-watt figures.
std::optional<double> median_power_w(const RunView& run);

/// The power drawn during `point`'s work, for its per-watt figure: the one place the report
/// decides which watts a figure is divided by.
std::optional<double> point_watts(const PointView& point);

} // namespace apod::report
