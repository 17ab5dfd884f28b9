// A sweep's data: one list of rows for every layer, each row tagged with the layer it feeds
// ("kind"), its series and its panel, so a chart in panels needs no data of its own per layer.
#pragma once

#include "charts/plot.hpp"

#include <set>
#include <string>
#include <vector>

namespace apod::report::charts {

/// Row kinds, one layer each.
namespace kind {
inline constexpr const char* measured = "measured";
inline constexpr const char* model = "model";
inline constexpr const char* limit_rule = "limit_rule";           ///< a constant limit, horizontal
inline constexpr const char* limit_line = "limit_line";           ///< a limit that varies with x
inline constexpr const char* rule = "rule";                       ///< a design's horizontal rule
inline constexpr const char* rule_series = "rule_series";         ///< one in a series' colour
inline constexpr const char* vertical = "vertical";               ///< a design's vertical rule
inline constexpr const char* vertical_series = "vertical_series"; ///< one in a series' colour
inline constexpr const char* published = "published";             ///< a published figure at its x
inline constexpr const char* published_rule = "published_rule";   ///< one with no x of its own
inline constexpr const char* note = "note";
} // namespace kind

struct SweepData {
  SeriesPlan plan;
  std::vector<Plotted> plotted;
  json rows = json::array();
  std::vector<std::string> series; ///< colour domain, in order
  std::vector<std::string> facets; ///< panels, in order (empty: one view)
  bool numeric_x = true;
  json x_order = json::array(); ///< an ordinal axis' values in measured order
  std::set<std::string> kinds;  ///< the kinds present
  bool with_model = false;
  bool with_residual = false; ///< some measured row has residual_pct: measured / model - 1, in %
  bool positive_y = true;     ///< every drawn y > 0 (a log y axis can place them)
};

/// The points a sweep draws: its keep, and only points that have its x parameter.
Keep sweep_keep(const Sweep& sweep);

/// A plotted point's x: its x parameter, or, for an experiment without one, its run (or device
/// model when summarised).
json x_of(const Sweep& sweep, const Plotted& plotted);

/// Everything a sweep draws, as rows.
SweepData sweep_data(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep);

/// The rule colour: limits and the lines a design adds that follow no series.
inline constexpr const char* limit_colour = "#b3261e";
inline constexpr const char* published_colour = "#222222";

} // namespace apod::report::charts
