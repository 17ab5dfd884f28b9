// The summary at the top of the page: every experiment's headline figures, as % of the
// theoretical limit and of the run's achievable peak, and with several runs their run-to-run
// spread (min, median, max across runs and (max - min) / median).
#pragma once

#include "headlines.hpp"
#include "tables.hpp"

#include <string>
#include <vector>

namespace apod::report {

/// One row per headline series (a row per failed experiment), as table data for the partial.
TableData summary_table(const PageModel& page, const std::vector<HeadlineSeries>& headlines);

/// What the reader needs to read the table: what the columns mean, and which runs lack an
/// achievable peak.
std::vector<std::string> summary_notes(const PageModel& page,
                                       const std::vector<HeadlineSeries>& headlines);

/// "82.3 %" of the achievable peak, or why there is none for this figure.
std::string peak_text(const std::optional<double>& pct_of_peak, bool compares_with_peak,
                      bool run_has_peak);

} // namespace apod::report
