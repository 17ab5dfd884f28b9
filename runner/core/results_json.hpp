// Reading and checking apod-results documents (docs/results-format.md), and writing files so
// that a failure never leaves a half-written one behind.
#pragma once

#include "core/run_record.hpp"

#include <string>
#include <vector>

namespace apod {

/// 2 added rsd, quartiles, the median's CI, sample_excluded, dropped, stop_reason, noisy,
/// comparability_key and the run's telemetry; a version-1 document still imports.
constexpr int results_schema_version = 2;

/// The runs of an apod-results document, each read by run_from_json (run_record.hpp), which is
/// also the validation. Throws InputError naming the first offending field (e.g.
/// "runs[0].measurements[3].samples[2]: not a finite number").
std::vector<RunRecord> runs_from_document(const json& doc);

/// Checks that `doc` is an apod-results document this apod can import (runs_from_document).
void validate_results(const json& doc);

/// The apod-results document holding `runs`, in that order.
json results_document(const std::vector<RunRecord>& runs);

/// Deepest nesting of arrays and objects a results document may have (real ones have about 8).
/// Deeper input is refused before anything recursive (copy, dump, compare) could meet it.
constexpr int max_results_depth = 64;

/// Parses and validates the text of a results document; `source` names it in messages. Besides
/// what validate_results refuses: bad JSON, nesting deeper than max_results_depth, and a key
/// repeated in one object (which JSON parsers resolve differently). Throws InputError.
json parse_results(const std::string& text, const std::string& source);

/// Reads a results file and checks it with parse_results. Throws InputError on unreadable
/// files, bad JSON or a document that fails validate_results.
json read_results_file(const std::string& path);

/// Writes `content` to `path` through a temporary file in the same directory and a rename, so
/// readers see the old file or the new one, never a torn one. Throws InputError on failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace apod
