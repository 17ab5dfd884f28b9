// The size bounds of limits.hpp applied to one run, however it arrives: validate()
// (run_record.hpp) calls check_run_limits, so import, merge and the store's read-out refuse the
// same runs, and every run a database holds exports into a document that imports again.
#pragma once

#include "core/run_record.hpp"

#include <string>

namespace apod {

/// Refuses (InputError naming `where` and the field) a run over the bounds of limits.hpp: its
/// label, its counts of measurements, samples per measurement and telemetry readings, the keys
/// of a point's params, an experiment version outside 0..1000000, and any string, object or
/// nesting in its texts and JSON fields (params, extra, environment, device, telemetry) beyond
/// what an apod-results document may hold. JSON is walked without recursion.
void check_run_limits(const RunRecord& r, const std::string& where);

} // namespace apod
