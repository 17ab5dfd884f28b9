// A declared sweep (core/catalog.hpp's Chart with shape sweep) as the Sweep the sweep shape
// draws (sweep.hpp), with the rules, notes, model, bounds and caption figures it names.
#pragma once

#include "charts/declared.hpp"

#include <optional>

namespace apod::report::charts {

/// The sweep a declared sweep chart draws, or nothing when its points lack its params.
std::optional<Sweep> declared_sweep(const DesignInput& in, const Chart& chart);

} // namespace apod::report::charts
