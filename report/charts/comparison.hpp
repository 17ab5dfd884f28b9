// The buyer's comparison as charts: first the absolute figures, one chart per unit, with the run
// spread as whiskers; then one chart per family of limit (DRAM, PCIe, each other unit) of % of
// each device's own limit, per $ and per W, so that figures of different scales never share an
// axis, with every device model in the colour its name hashes to (palette.hpp).
#pragma once

#include "matched.hpp"

#include <string>
#include <vector>

namespace apod::report {

/// Which figure of a matched point a chart draws.
enum class Measure { pct_of_limit, per_kusd, per_w };

/// Horizontal bars, a group per figure of `family` and a bar per model, of `measure`; null when
/// fewer than two models have a value for any figure (a comparison needs two). `models` and
/// `colours` fix the colour of each model.
json matched_chart(const std::vector<MatchedFigure>& figures, const std::string& family,
                   Measure measure, const std::vector<std::string>& models,
                   const std::vector<std::string>& colours);

/// The value a chart or table shows of `figure` for `measure`.
std::optional<double> measure_of(const ModelFigure& figure, Measure measure);

/// Absolute figures first (issue 25): horizontal bars of each model's median of run medians for
/// the headline figures in `unit`, with whiskers over the range of the run medians (min to max);
/// the axis says whether more or less is better. Null when no figure is in `unit`.
json absolute_chart(const std::vector<MatchedFigure>& figures, const std::string& unit,
                    const std::vector<std::string>& models,
                    const std::vector<std::string>& colours);

/// The axis title: "% of the device's own DRAM limit", "GB/s per $1000", "GFLOP/s per W".
std::string measure_title(Measure measure, const std::string& family, const std::string& unit);

} // namespace apod::report
