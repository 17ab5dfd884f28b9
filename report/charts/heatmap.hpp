// A metric over two parameters as a heatmap (Chart shape heatmap).
#pragma once

#include "charts/declared.hpp"

#include <optional>

namespace apod::report::charts {

/// The heatmap of a declared heatmap chart, or nothing (heatmap.cpp).
std::optional<ChartBlock> heatmap_chart(const DesignInput& in, const Chart& chart);

} // namespace apod::report::charts
