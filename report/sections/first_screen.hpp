// One section of the page, drawn by its partial templates/sections/first_screen.mustache.
// report.cpp puts the sections in page order; one with nothing to say for these runs returns false
// and is left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// At a glance (first screen), the answer first: the newest run's verdict against the pinned
/// baseline or the previous run of its machine (its first words are compare's outcome word); per
/// device model each headline figure of the newest run, against the baseline where the verdict
/// judged that model, with trust tags; which model is better for what.
mustache::data first_screen_section(const PageContext& context);

} // namespace apod::report
