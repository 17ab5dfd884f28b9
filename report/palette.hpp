// Colours that mean the same thing in every report: a device model is always drawn in the colour
// its name hashes to, so an H200 is the same blue in tonight's page and in last month's.
#pragma once

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

/// The neutral colour of context (published figures, model-level lines, the baseline).
inline constexpr const char* context_colour = "#79706e";
/// The colour of a regression, a change point and a limit line.
inline constexpr const char* alarm_colour = "#b3261e";
/// The colour of an improvement.
inline constexpr const char* good_colour = "#1e6b35";

} // namespace apod::report
