// Every bound apod puts on what it reads and writes, in one place (docs/reliability.md lists
// them with the figures that set them). Inputs come from other machines, scripts and people: a
// document, database, prices file or config larger or deeper than these is refused with exit
// code 2 and one sentence, before it can exhaust memory, the stack or time.
//
// Real figures these leave room for (data/runs, 2026-11-22): the largest document is 10.5 MB
// (8 runs, 371,168 JSON values, nesting 9 deep); a run holds at most 541 measurements of at most
// 1,000 samples, 110 telemetry readings, 27 keys in one object and no string over 48 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace apod::limits {

inline constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;

/// Bounds on one JSON input, checked while it is parsed (input_file.hpp), before the whole tree
/// exists: the bytes (read with a cap, a gzip file's bytes after decompression), the nesting
/// (nothing later recurses deeper), the number of values (memory is about linear in it), the
/// members of one object and the length of one string or key.
struct JsonLimits {
  std::size_t max_bytes;
  int max_depth;
  std::size_t max_values;
  std::size_t max_members;
  std::size_t max_string_bytes;
  const char* what; ///< names the kind of input in messages ("an apod-results document")
};

/// An apod-results document (`apod import`). 256 MiB is 24 times the largest real one and 16M
/// values 43 times its count (a night of 8 GPUs at 1,000 samples a point is about 4.3M); the
/// parsed tree takes about 16 bytes a value, so a document at both bounds needs about 0.8 GB.
inline constexpr JsonLimits results_document{256 * MiB, 64,       16'000'000,
                                             4096,      64 * KiB, "an apod-results document"};
/// `apod report --prices`: a flat object of device model -> price.
inline constexpr JsonLimits prices{1 * MiB, 4, 100'000, 10'000, 1 * KiB, "a prices file"};
/// `apod compare --config`: thresholds per experiment.
inline constexpr JsonLimits compare_config{1 * MiB, 8,       100'000,
                                           10'000,  4 * KiB, "a compare config"};

// One run, however it arrives (import, merge, the store's read-out: validate() in
// run_record.hpp), so that every run a database holds can be exported and imported again.
inline constexpr std::size_t max_label_bytes = 4 * KiB;          ///< `--label` and stored labels
inline constexpr std::size_t max_measurements_per_run = 100'000; ///< real: 541
inline constexpr std::size_t max_samples_per_measurement = 1'000'000; ///< `--max-samples` at most
inline constexpr std::size_t max_telemetry_per_run = 1'000'000; ///< NVML every 0.1 s for a day
inline constexpr std::size_t max_params_keys = 64;              ///< real: 6
/// A sample's magnitude at most: so that every statistic of a point (the spread and the
/// interquartile range reach twice the largest sample) is a finite number. Real: below 1e13.
inline constexpr double max_sample_magnitude = 1e300;

/// A text or JSON value read back from a database (SQLITE_LIMIT_LENGTH): larger values are
/// refused by SQLite itself before they reach memory. Real stored values are under 2 KiB.
inline constexpr int max_stored_value_bytes = 16 * MiB;
/// A JSON value read back from a database (environment, device facts, params, extra, a telemetry
/// reading): parsed under the document's bounds, within the stored value's size.
inline constexpr JsonLimits stored_json{16 * MiB, 64,       4'000'000,
                                        4096,     64 * KiB, "a JSON value apod stores"};
/// SQLite's own heap (page cache, sorting), process-wide (sqlite3_hard_heap_limit64).
inline constexpr int64_t max_sqlite_heap_bytes = int64_t(1024) * MiB;
/// One step of one SQL statement (the progress handler interrupts it). apod's statements read
/// one row a step; a step this slow means a file built to stall its reader.
inline constexpr int max_statement_step_ms = 60'000;

/// The HTML report: a page over this is refused (choose fewer runs with --run). The report of
/// all 19 committed runs is 1.6 MB; a label at its limit adds 0.36 MB a run (it appears 89
/// times on the page of one 82-point run).
inline constexpr std::size_t max_report_bytes = 256 * MiB;

} // namespace apod::limits
