// Reading and checking apod-results documents (docs/results-format.md), and writing files so
// that a failure never leaves a half-written one behind.
#pragma once

#include "measurement.hpp"

#include <string>

namespace apod {

/// 2 added rsd, quartiles, the median's CI, sample_excluded, dropped, stop_reason, noisy,
/// comparability_key and the run's telemetry; a version-1 document still imports.
constexpr int results_schema_version = 2;

/// Checks that `doc` is an apod-results document this apod can import. Throws InputError naming
/// the first offending field (e.g. "runs[0].measurements[3].samples[2]: not a finite number").
void validate_results(const json& doc);

/// Parses and validates a results file. Throws InputError on unreadable files, bad JSON or a
/// document that fails validate_results.
json read_results_file(const std::string& path);

/// Writes `content` to `path` through a temporary file in the same directory and a rename, so
/// readers see the old file or the new one, never a torn one. Throws InputError on failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace apod
