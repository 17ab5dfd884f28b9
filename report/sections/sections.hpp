// The sections of the page, in page order, one file each in report/sections/ and one partial each
// in templates/sections/, all with one signature. A section that has nothing to say for these
// runs returns false and is left out, of the page and of its table of contents.
#pragma once

#include "context.hpp"

namespace apod::report {

/// At a glance (first screen): per device model, each headline figure as % of its limit with its
/// run-to-run spread; the newest run against the pinned baseline; which model is better for what.
mustache::data first_screen_section(const PageContext& context); // first_screen.cpp
/// Every headline figure in one compact table (BabelStream's summary, % of limit and of peak).
mustache::data summary_section(const PageContext& context); // summary.cpp
/// History as a timeline: a sparkline row per figure per device model, full charts on demand.
mustache::data history_section(const PageContext& context); // history.cpp
/// The buyer's comparison of device models: matched points only.
mustache::data comparison_section(const PageContext& context); // comparison.cpp
/// One section per experiment: charts, values, failures, published figures.
mustache::data experiments_section(const PageContext& context); // experiments.cpp
/// The runs and one card per GPU.
mustache::data runs_section(const PageContext& context); // runs.cpp
/// What differs between the runs' environments, where the time went, telemetry, each run's
/// environment.
mustache::data environment_section(const PageContext& context); // environment.cpp

} // namespace apod::report
