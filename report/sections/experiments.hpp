// One section of the page, drawn by its partial templates/sections/experiments.mustache. report.cpp
// puts the sections in page order; one with nothing to say for these runs returns false and is
// left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// One section per experiment: charts, values, failures, published figures.
mustache::data experiments_section(const PageContext& context);

} // namespace apod::report
