// The words experiments, runner and report share: which limit a figure is read against, the
// keys of Measurement::extra and the metric names that are contracts between them, the headline
// metric of an experiment, percent of a limit, and how an interval is written. One owner each;
// nothing else spells these strings.
#pragma once

#include "core/device.hpp"
#include "core/measurement.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apod {

/// The limit a figure is read against (an experiment's ChartSpec::limit; a point may carry its
/// own in extra[keys::limit_gbs], which then wins).
enum class LimitKind {
  none, ///< no bandwidth limit applies (times, ratios, fractions)
  dram, ///< the device's theoretical DRAM bandwidth (Best Practices Guide 8.2.1)
  pcie, ///< the PCIe link's line rate in one direction
};

/// The short name in the catalog and documents: "none", "dram", "pcie".
const char* limit_name(LimitKind kind);
/// The words a reader sees: "no limit", "theoretical DRAM bandwidth", "PCIe line rate per
/// direction".
const char* limit_phrase(LimitKind kind);
/// The word in a label: "DRAM", "PCIe", "" for none ("% of theoretical DRAM").
const char* limit_word(LimitKind kind);
/// From limit_name(); nothing for any other word.
std::optional<LimitKind> find_limit(const std::string& name);
/// From limit_name(); throws InputError for any other word.
LimitKind limit_from_name(const std::string& name);
/// The words for a point's own limit (extra[keys::limit_gbs]) when it carries no
/// extra[keys::limit_label] of its own.
inline constexpr const char* own_limit_phrase = "the point's own limit";
/// The words for a point whose own limit is the PCIe line rate of both directions added (zero
/// copy reads and writes host memory at once over a full-duplex link).
inline constexpr const char* pcie_both_directions_phrase = "PCIe line rate, both directions";

/// Keys of Measurement::extra and metric names that experiments, runner and report agree on.
namespace keys {
/// extra: this point's own limit in GB/s, overriding the experiment's (zero copy: both
/// directions of a full-duplex link).
inline constexpr const char* limit_gbs = "limit_gbs";
/// extra: the words for limit_gbs, e.g. "PCIe line rate, both directions".
inline constexpr const char* limit_label = "limit_label";
/// extra: bytes read plus written per sample, as the experiment counts them.
inline constexpr const char* bytes_moved = "bytes_moved";
/// metric: the best verified device-memory bandwidth of a run, read against by other DRAM figures.
/// Its extra[access_type] names the access type that reached it.
inline constexpr const char* achievable_peak = "achievable_peak";
/// extra: the bandwidth a point's model predicts for it in GB/s (littles_law, latency_hiding:
/// Little's law from the same run's DRAM latency and achievable peak), drawn beside the figure.
inline constexpr const char* model_gbs = "model_gbs";

/// extra: the point's theoretical limit in the point's own unit, for figures not in GB/s (peak
/// FLOP/s, 128 bytes per clock per SM); its words in limit_label.
inline constexpr const char* limit = "limit";
/// extra: what the experiment's model predicts for this point, in the point's own unit (the
/// roofline min(peak, intensity x achievable bandwidth), a conflict's throughput / degree), so
/// the report can draw the model beside the measurement.
inline constexpr const char* model = "model";

/// param or extra: how a device-memory figure uses memory, one of the access:: names.
inline constexpr const char* access_type = "access_type";
/// metric: the best verified bandwidth of one access type in a run (params[access_type]); a DRAM
/// figure of the same access type is read against it rather than against achievable_peak.
inline constexpr const char* access_peak = "achievable_peak_by_access";
/// extra: the PCIe protocol limit in GB/s this point can reach (theory.hpp, pcie_attainable_gbs):
/// the line rate less TLP framing, headers, LCRC, DLLPs and SKP ordered sets at the link's
/// Max_Payload_Size; limit_gbs stays the line rate.
inline constexpr const char* attainable_gbs = "attainable_gbs";
/// extra: the words for attainable_gbs, e.g. "PCIe protocol limit, host to device, MPS 256 B".
inline constexpr const char* attainable_label = "attainable_label";
/// extra: the SM clock in MHz over each sample's timed region, measured on the device (clock64
/// against %globaltimer, timing.cuh); aligned with the samples, null where it was not measured.
inline constexpr const char* sm_clock_mhz = "sm_clock_mhz";
/// extra: when the point was sampled, on the run clock of the telemetry's t_s (in_flight.hpp):
/// {start_s, end_s, busy_s, energy_j}, so per-watt figures use the power drawn during the work.
inline constexpr const char* sampling_window = "sampling_window";
/// extra: true on the point an experiment names as its headline (memory_latency: the DRAM
/// level). The run summary and the report show it rather than the best median of the headline
/// metric, which for a latency sweep would be the L1's.
inline constexpr const char* headline = "headline";
/// extra: the launch of the point's kernel (kernel_facts.cuh): block_size, grid_size,
/// registers_per_thread, max_active_blocks_per_sm, theoretical_occupancy, ...
inline constexpr const char* launch = "launch";
/// extra: output words that did not match, counted on the device (device_check.cuh).
inline constexpr const char* words_wrong = "words_wrong";
/// extra: output words checked again on the host, and the ones of them that did not match.
inline constexpr const char* host_words_checked = "host_words_checked";
inline constexpr const char* host_words_wrong = "host_words_wrong";
/// extra: the seed of the input's pseudo-random values.
inline constexpr const char* seed = "seed";
} // namespace keys

/// The fields of extra[keys::launch] that readers other than the experiment use (the report's
/// Little's-law bound of a launch).
namespace launch_keys {
inline constexpr const char* block_size = "block_size";
inline constexpr const char* grid_size = "grid_size";
inline constexpr const char* max_active_blocks_per_sm = "max_active_blocks_per_sm";
} // namespace launch_keys

/// Whether a point's extra names it the headline (keys::headline).
inline bool is_marked_headline(const json& extra) {
  return extra.is_object() && extra.contains(keys::headline) &&
         extra[keys::headline].is_boolean() && extra[keys::headline].get<bool>();
}

/// Names of the store's settings (Store::setting) that more than one command reads.
namespace settings {
/// The run `apod compare` and `apod report` judge later runs against (`apod baseline set RUN`).
inline constexpr const char* baseline_run = "baseline_run";
} // namespace settings

/// The access types of device-memory figures (keys::access_type), as BabelStream names its
/// kernels' shapes: read-only (a dot product), write-only (a fill), copy (one read, one write;
/// cudaMemcpy device to device is one), triad (two reads, one write).
namespace access {
inline constexpr const char* read = "read";
inline constexpr const char* write = "write";
inline constexpr const char* copy = "copy";
inline constexpr const char* triad = "triad";
} // namespace access

/// The bits of Measurement::excluded: why a sample is kept but left out of the statistics.
namespace sample_flag {
/// The SM clock was under the threshold (NVML after the sample, or measured over its region).
inline constexpr uint8_t low_clock = 1;
/// NVML reported an active clocks-event (throttle) reason other than idle or application clocks.
inline constexpr uint8_t throttled = 2;
/// The clock monitor did not answer for this sample (NVML stopped answering mid-run): nothing
/// vouches for the conditions it was taken under, so it is left out (fail closed).
inline constexpr uint8_t monitor_failed = 4;
} // namespace sample_flag

/// The limit in GB/s a figure of `unit` is read against: the point's own extra[limit_gbs] if it
/// has one, else the experiment's kind on this device; none for figures not in GB/s.
std::optional<double> limit_gbs(LimitKind kind, const DeviceInfo& device, const std::string& unit,
                                const json& extra);
/// The words for that limit (the point's own label, own_limit_phrase, or limit_phrase(kind)).
std::string limit_words(LimitKind kind, const json& extra);

/// 100 x value / limit, or nothing without a positive limit.
std::optional<double> percent_of(double value, std::optional<double> limit);

/// What a stored interval is: "95% CI of the median" when n >= 6 (order statistics), else
/// "range (min – max; too few samples for a 95% CI)".
std::string ci_label(int n);

} // namespace apod
