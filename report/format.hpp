// How the report writes numbers: every figure carries its unit, sizes in binary units.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace apod::report {

using json = nlohmann::ordered_json;

/// A measured value at a precision a reader can compare: 4010.2, 12.35, 0.0123.
std::string format_number(double value);

/// `value` followed by its unit ("4010.2 GB/s"); a unit of "bytes" or "B" is written in
/// binary multiples ("64 MiB"). An empty unit, or "1" (dimensionless), gives the bare number.
std::string format_with_unit(double value, const std::string& unit);

/// A range with its unit once: "3550.6 – 4540.6 GB/s" (sizes and percentages keep theirs on
/// both ends: "4 KiB – 1 MiB").
std::string format_range(double low, double high, const std::string& unit);

/// A byte count in binary multiples: "512 B", "60 MiB", "139.8 GiB".
std::string format_bytes(double bytes);

/// A count with its unit, in binary multiples where it is a whole number of them:
/// "16 Ki floats", "4 Mi floats", "300 floats".
std::string format_count(double count, const std::string& unit);

/// A percentage with one decimal: "83.3 %".
std::string format_percent(double percent);

/// One parameter's value; parameters named `*_bytes` are written as sizes.
std::string format_param_value(const std::string& key, const json& value);

/// A metric or parameter name as prose: "effective_bandwidth" -> "effective bandwidth".
std::string display_name(const std::string& identifier);

/// A metric's title with its unit: "effective bandwidth (GB/s)"; a dimensionless metric (unit
/// "" or "1") gets none: "parallel fraction".
std::string metric_title(const std::string& metric, const std::string& unit);

/// A point's parameters as "word_bytes=4 B, offset=3", in their stored order.
std::string format_params(const json& params);

/// An ISO 8601 UTC timestamp ("2026-11-22T06:01:02.345Z") as "2026-11-22 06:01:02 UTC";
/// anything else is returned as it is, and null or missing as "—".
std::string format_timestamp(const json& iso);

/// An ISO 8601 UTC timestamp as apod writes it ("2026-11-22T06:01:02.345Z", fraction optional)
/// as seconds since 1970, or nothing for any other text.
std::optional<double> seconds_since_epoch(const std::string& iso);

/// The date of such a timestamp ("2026-11-22"), or the text as it is.
std::string format_date(const std::string& iso);

/// `value` rounded to `digits` significant digits: chart data need no more than a chart can show,
/// and every digit is page weight (a history of 1000 runs carries hundreds of thousands).
double round_significant(double value, int digits = 6);

/// A ratio as the page writes it: "1.52×".
std::string format_ratio(double ratio);

/// A relative change with its sign: "+3.1 %", "−0.4 %".
std::string format_change(double fraction);

/// An experiment's title up to its first ": " or " (": "Misaligned copy (offsetCopy)" ->
/// "Misaligned copy", for places where the whole title would wrap.
std::string short_title(const std::string& title);

/// A CUDA version number as the toolkit writes it: 12040 -> "12.4".
std::string format_cuda_version(const json& version);

/// The string at `key` of `object`, or `fallback` when absent, null or not a string.
std::string string_at(const json& object, const char* key, const std::string& fallback = "");

/// `object[key]`, or a null when `object` is not an object or lacks `key` (never throws, unlike
/// a const operator[] on a missing key).
const json& member(const json& object, const char* key);

/// True when `object[key]` exists and is a number.
bool has_number(const json& object, const char* key);

} // namespace apod::report
