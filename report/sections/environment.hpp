// One section of the page, drawn by its partial templates/sections/environment.mustache. report.cpp
// puts the sections in page order; one with nothing to say for these runs returns false and is
// left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// What differs between the runs' environments, where the time went, telemetry, each run's
/// environment.
mustache::data environment_section(const PageContext& context);

} // namespace apod::report
