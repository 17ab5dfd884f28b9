// peak_copy's launch shapes as a heatmap (issue 14: "parameter sweeps with several axes as
// heatmaps or small multiples"): one panel per access type (and device model), elements per
// thread across, the grid shape and vector width down, each cell coloured by its share of that
// access type's achievable peak and labelled with its bandwidth.
#pragma once

#include "charts/plot.hpp"

#include <optional>

namespace apod::report::charts {

/// The heatmap of the kernel points of `bandwidth` (params access_type, elements_per_thread,
/// grid); nothing when the stored points lack those parameters (an older peak_copy).
std::optional<ChartBlock> launch_heatmap(const MetricView& bandwidth);

} // namespace apod::report::charts
