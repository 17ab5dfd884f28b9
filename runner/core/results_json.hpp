// Reading and checking apod-results documents (docs/results-format.md), and writing them (JSON,
// one run at a time, or CSV, one row per point) into an output file.
#pragma once

#include "core/limits.hpp"
#include "core/output_file.hpp"
#include "core/run_record.hpp"

#include <functional>
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

/// Deepest nesting of arrays and objects a results document may have (limits.hpp).
constexpr int max_results_depth = limits::results_document.max_depth;

/// Parses and validates the text of a results document; `source` names it in messages. Besides
/// what validate_results refuses: bad JSON and whatever parse_bounded_json refuses under
/// limits::results_document (size, nesting, values, members, string length, a repeated key).
/// Throws InputError.
json parse_results(const std::string& text, const std::string& source);

/// Reads a results file ("-": standard input; gzip-compressed or not, read_input_file) and
/// checks it with parse_results. Throws InputError.
json read_results_file(const std::string& path);

/// Calls its argument with each run to write, in order (e.g. Store::for_each_run).
using RunSource = std::function<void(const std::function<void(const RunRecord&)>&)>;

/// Writes the apod-results document of the runs `source` gives, one run at a time, byte for
/// byte as results_document(runs).dump(2) followed by a newline. Returns the number of runs.
std::size_t write_results_json(OutputFile& out, const RunSource& source);

/// Writes one CSV row per point of the runs `source` gives, under a header row; the columns
/// are documented in docs/results-format.md ("CSV"). Returns the number of runs.
std::size_t write_results_csv(OutputFile& out, const RunSource& source);

} // namespace apod
