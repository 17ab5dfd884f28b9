// Colours that mean the same thing in every report: a device model is always drawn in the colour
// its name hashes to, so an H200 is the same blue in tonight's page and in last month's.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace apod::report {

/// The fixed palette (Tableau 10, minus its grey, which the page uses for context).
const std::vector<std::string>& palette();

/// The palette index a name hashes to (FNV-1a, 32 bits): the same for every report.
std::size_t palette_slot(const std::string& name);

/// Colours for `names` (distinct, in order): each takes the colour its name hashes to; a name
/// whose colour an earlier one already took gets the next free one, so that no two series of one
/// chart share a colour. Past the palette's size colours repeat.
std::vector<std::string> stable_colours(const std::vector<std::string>& names);

/// The colour of every series name of one page (issue 25: the same series or GPU changed colour
/// between charts). A device model takes its stable_colours() colour among the page's models, as
/// the first screen and the history draw it; any other name (a precision, a kernel, a run) takes
/// the colour its name hashes to, or the next one no name of the page holds yet, on first use, and
/// keeps it in every later chart. Within one chart two names never share a colour: a later name
/// whose colour an earlier one of the same chart holds is drawn in the next free one there.
class SeriesColours {
public:
  explicit SeriesColours(const std::vector<std::string>& device_models = {});
  /// The colours of one chart's series, in order.
  std::vector<std::string> colours_of(const std::vector<std::string>& names);

private:
  std::map<std::string, std::size_t> slot_of_;
  std::vector<bool> held_; ///< which palette slots a name of the page holds
};

/// The SeriesColours the charts being built draw with (null: none, each chart on its own).
SeriesColours* current_series_colours();

/// Makes `colours` current while it lives (report/sections/experiments.cpp: one per page).
class SeriesColoursScope {
public:
  explicit SeriesColoursScope(SeriesColours& colours);
  ~SeriesColoursScope();
  SeriesColoursScope(const SeriesColoursScope&) = delete;
  SeriesColoursScope& operator=(const SeriesColoursScope&) = delete;

private:
  SeriesColours* previous_;
};

/// The neutral colour of context (published figures, model-level lines, the baseline).
inline constexpr const char* context_colour = "#79706e";
/// The colour of a regression, a change point and a limit line.
inline constexpr const char* alarm_colour = "#b3261e";
/// The colour of an improvement.
inline constexpr const char* good_colour = "#1e6b35";

} // namespace apod::report
