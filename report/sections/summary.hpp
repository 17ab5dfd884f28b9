// One section of the page, drawn by its partial templates/sections/summary.mustache. report.cpp
// puts the sections in page order; one with nothing to say for these runs returns false and is
// left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// Every headline figure in one compact table (BabelStream's summary, % of limit and of peak).
mustache::data summary_section(const PageContext& context);

} // namespace apod::report
