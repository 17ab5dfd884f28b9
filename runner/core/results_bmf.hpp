// A run as Bencher Metric Format (BMF) JSON, the document Bencher's `json` adapter reads
// (https://bencher.dev/docs/reference/bencher-metric-format/): `apod export --format bmf`.
#pragma once

#include "core/run_record.hpp"

#include <string>

namespace apod {

/// The longest benchmark name and measure name Bencher accepts, in characters (the BMF page's
/// "Order of Precedence").
inline constexpr std::size_t bmf_max_benchmark_name = 1024;
inline constexpr std::size_t bmf_max_measure_name = 64;

/// "offset_copy offset=3 word_bytes=4": a point's benchmark name, its experiment and parameters
/// with the keys sorted (stable whatever order a run stored them in), cut to
/// bmf_max_benchmark_name bytes on a character boundary.
std::string bmf_benchmark_name(const std::string& experiment, const json& params);

/// "effective_bandwidth (GB/s)": a point's measure name, the metric with its unit (none for a
/// ratio, unit "1"), cut to bmf_max_measure_name bytes on a character boundary.
std::string bmf_measure_name(const std::string& metric, const std::string& unit);

/// The BMF document of `run`: {benchmark: {measure: {"value", "lower_value", "upper_value"}}},
/// one benchmark per experiment and parameter set, one measure per metric; the value is the
/// median of the point's used samples, lower and upper the 95% confidence interval of that
/// median (summarize(), the interval compare and the report show). Failed points carry no
/// figure and are left out. Where two points would share a benchmark and measure (parameters
/// that differ only in type, "4" and 4), the later one is named by its parameters' JSON.
json bmf_document(const RunRecord& run);

} // namespace apod
