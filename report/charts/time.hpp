// Where the time went: each run's wall time stacked by experiment, for the environment section.
#pragma once

#include "context.hpp"
#include "model.hpp"

#include <cstddef>

namespace apod::report {

/// A stacked bar per run of its experiments' wall time for the newest `max_runs` runs, or false
/// when no run stored any. Past max_series experiments, those that took the least time in all are
/// one "other" segment, so that every colour names one thing (time.cpp).
mustache::data time_chart(const PageModel& page, std::size_t max_runs, ChartIds& chart_ids);

} // namespace apod::report
