// Grouped bars (Chart shape bars): a bar per value of the colour param at each x, one panel per
// combination of the panel params.
#pragma once

#include "charts/declared.hpp"

#include <optional>

namespace apod::report::charts {

/// The grouped bars of a declared bars chart, or nothing (bars.cpp).
std::optional<ChartBlock> bars_chart(const DesignInput& in, const Chart& chart);

} // namespace apod::report::charts
