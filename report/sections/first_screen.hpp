// One section of the page, drawn by its partial templates/sections/first_screen.mustache.
// report.cpp puts the sections in page order; one with nothing to say for these runs returns false
// and is left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// At a glance (first screen): per device model, each headline figure as % of its limit with its
/// run-to-run spread; the newest run against the pinned baseline; which model is better for what.
mustache::data first_screen_section(const PageContext& context);

} // namespace apod::report
