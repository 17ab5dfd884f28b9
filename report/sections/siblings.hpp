// One section of the page, drawn by its partial templates/sections/siblings.mustache. report.cpp
// puts the sections in page order; one with nothing to say for these runs returns false and is
// left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// A node's GPUs side by side: each GPU of a model against its siblings on the same host.
mustache::data siblings_section(const PageContext& context);

} // namespace apod::report
