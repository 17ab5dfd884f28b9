// One section of the page, drawn by its partial templates/sections/history.mustache. report.cpp
// puts the sections in page order; one with nothing to say for these runs returns false and is
// left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// History as a timeline: a sparkline row per figure per device model, full charts on demand.
mustache::data history_section(const PageContext& context);

} // namespace apod::report
