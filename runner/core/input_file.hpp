// Reading input files from anywhere: a cap on the bytes read (checked before reading where the
// size is known, so `/dev/zero` or a 10 GB file is refused at once), gzip files decompressed
// with the same cap (a decompression bomb is refused), and JSON parsed under the bounds of
// limits.hpp: nesting, values, object members, string length, repeated keys.
#pragma once

#include "core/limits.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace apod {

/// The bytes of the file at `path` ("-" reads standard input), decompressed when they start
/// with the gzip magic number. Throws InputError (exit 2) when the file cannot be read, holds
/// more than `limits.max_bytes` (before or after decompression), is a damaged gzip stream, or
/// holds a NUL byte in its first 64 KiB (binary data, not JSON).
std::string read_input_file(const std::string& path, const limits::JsonLimits& limits);

/// Parses `text` as JSON under `limits`, refusing a key repeated in one object (which JSON
/// parsers resolve differently). `source` names the input in messages. Throws InputError.
nlohmann::ordered_json parse_bounded_json(const std::string& text, const std::string& source,
                                          const limits::JsonLimits& limits);

/// read_input_file, then parse_bounded_json.
nlohmann::ordered_json read_json_file(const std::string& path, const limits::JsonLimits& limits);

/// True when `bytes` start with the gzip magic number (RFC 1952, 2.3.1).
bool is_gzip(const std::string& bytes);

/// Decompresses a gzip stream (one or more members), refusing more than `max_bytes` of output
/// as soon as it is reached. Throws InputError naming `source`.
std::string gunzip(const std::string& bytes, std::size_t max_bytes, const std::string& source);

} // namespace apod
