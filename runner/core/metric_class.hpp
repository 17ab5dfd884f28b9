// The kinds of figure a verdict treats alike. An experiment declares the class of each metric
// (core/catalog.hpp); the runner stores it with every point and compare reads it from there
// (analysis/metric_class.hpp: how much a figure of each class moves from run to run).
#pragma once

#include <optional>
#include <string>

namespace apod {

enum class MetricClass {
  device_memory, ///< device-memory and cache figures: bandwidths, latencies
  on_chip,       ///< on-chip and compute rates: FLOP/s, shared memory, instruction throughput
  host_link,     ///< DMA over the host link: pinned, mapped and staged bulk transfers
  gpu_link,      ///< transfers between GPUs (NVLink, PCIe peer to peer)
  host_phase,    ///< timings that carry a host phase: launches, small and pageable transfers
  derived,       ///< figures computed from others: models, fractions, ratios, fits (never gate)
};

inline constexpr MetricClass metric_classes[] = {MetricClass::device_memory, MetricClass::on_chip,
                                                 MetricClass::host_link,     MetricClass::gpu_link,
                                                 MetricClass::host_phase,    MetricClass::derived};

/// "device_memory", "on_chip", "host_link", "gpu_link", "host_phase", "derived" (json, store).
const char* class_name(MetricClass c);
/// The words a reader sees: "device memory", "host/PCIe transfers", ...
const char* class_phrase(MetricClass c);
/// From class_name(); nothing for any other word.
std::optional<MetricClass> find_class(const std::string& name);

} // namespace apod
