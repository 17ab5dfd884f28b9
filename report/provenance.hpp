// Where each number came from: every run's environment (host, OS, build, GPU state from NVML,
// sampling settings, --repeat batch), what differs between the runs' environments, and where each
// run's time went (wall time, noisy points and dropped samples per experiment).
#pragma once

#include "context.hpp"
#include "model.hpp"
#include "tables.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace apod::report {

/// `value` flattened to (dotted key, display text) pairs, in stored order: nested objects give
/// "gpu_state.power_limit_w", lists of named objects their names ("offset_copy v1, ..."),
/// booleans "yes"/"no", null "—".
std::vector<std::pair<std::string, std::string>> flatten(const json& value,
                                                         const std::string& prefix = "");

/// The newest `max_runs` runs (by started_at, then document order), oldest first.
std::vector<const RunView*> newest_runs(const PageModel& page, std::size_t max_runs);

/// One collapsible panel per run, for the newest `max_runs` runs: its environment in groups, and
/// its experiments' wall time, points, noisy points and dropped samples.
mustache::data environment_panels(const PageModel& page, std::size_t max_runs);

/// With two or more runs: one row per environment or device setting whose value differs between
/// the runs, each value with the runs that had it (`settings`; `any` is false when none differ,
/// and `note` says so). False with one run.
mustache::data environment_differences(const PageModel& page);

/// Each experiment's points of a run: verified, failed, noisy, and samples dropped.
struct ExperimentTally {
  int ok = 0, failed = 0, noisy = 0;
  long long dropped = 0;
};
std::map<std::string, ExperimentTally> tally(const RunView& run);

} // namespace apod::report
