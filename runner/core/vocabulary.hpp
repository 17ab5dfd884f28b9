// The words experiments, runner and report share: which limit a figure is read against, the
// keys of Measurement::extra and the metric names that are contracts between them, the headline
// metric of an experiment, percent of a limit, and how an interval is written. One owner each;
// nothing else spells these strings.
#pragma once

#include "core/device.hpp"
#include "core/measurement.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apod {

/// The limit a figure is read against (an experiment's ChartSpec::limit; a point may carry its
/// own in extra[keys::limit_gbs], which then wins).
enum class LimitKind {
  none,  ///< no bandwidth limit applies (times, ratios, fractions)
  dram,  ///< the device's theoretical DRAM bandwidth (Best Practices Guide 8.2.1)
  pcie,  ///< the PCIe link's line rate in one direction
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
inline constexpr const char* achievable_peak = "achievable_peak";
}  // namespace keys

/// The limit in GB/s a figure of `unit` is read against: the point's own extra[limit_gbs] if it
/// has one, else the experiment's kind on this device; none for figures not in GB/s.
std::optional<double> limit_gbs(LimitKind kind, const DeviceInfo& device, const std::string& unit,
                                const json& extra);
/// The words for that limit (the point's own label, own_limit_phrase, or limit_phrase(kind)).
std::string limit_words(LimitKind kind, const json& extra);

/// 100 x value / limit, or nothing without a positive limit.
std::optional<double> percent_of(double value, std::optional<double> limit);

/// The metric that stands for an experiment in summaries: the one it charts, else its first in
/// GB/s, else its first. `seen` lists (metric, unit) in recording order.
std::string headline_metric(const std::string& chart_metric,
                            const std::vector<std::pair<std::string, std::string>>& seen);

/// What a stored interval is: "95% CI of the median" when n >= 6 (order statistics), else
/// "range (min – max; too few samples for a 95% CI)".
std::string ci_label(int n);

}  // namespace apod
