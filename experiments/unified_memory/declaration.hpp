// unified_memory's declaration (declaration.cpp registers it): its params, metrics and states as
// named constants, which unified_memory.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::unified {

inline constexpr const char* experiment = "unified_memory";

// The states of a managed buffer, in the order measured (Pascal Tuning Guide 1.4.8).
inline constexpr const char* resident = "resident";
inline constexpr const char* first_touch = "first_touch";
inline constexpr const char* prefetch_to_device = "prefetch_to_device";
inline constexpr const char* prefetched = "prefetched";
inline constexpr const char* prefetch_to_host = "prefetch_to_host";
inline constexpr const char* preferred_device = "preferred_device";
inline constexpr const char* read_mostly = "read_mostly";
inline constexpr const char* read_mostly_copy = "read_mostly_copy";
inline constexpr const char* accessed_by = "accessed_by";
inline constexpr const char* host_touch = "host_touch";
inline constexpr const char* pageable_malloc = "pageable_malloc";

inline const Param state{
    .key = "state",
    .title = "managed memory state",
    .labels = {{resident, "resident: kernel read, pages on the device"},
               {first_touch, "first touch after a host write (device page faults)"},
               {prefetch_to_device, "cudaMemPrefetchAsync to the device"},
               {prefetched, "kernel read right after that prefetch"},
               {prefetch_to_host, "cudaMemPrefetchAsync back to the host"},
               {preferred_device, "first touch, SetPreferredLocation device"},
               {read_mostly, "first touch, SetReadMostly (read-only copies)"},
               {read_mostly_copy, "second read of the read-mostly copies"},
               {accessed_by, "SetPreferredLocation host + SetAccessedBy device"},
               {host_touch, "host threads read what a kernel wrote (host page faults)"},
               {pageable_malloc, "kernel read of plain malloc memory (pageable access)"}}};
inline const Param bytes{.key = "bytes", .title = "buffer size", .unit = "bytes"};

/// Which way a state's bytes cross the host link (h2d, d2h), "" for those on the device.
std::string link_direction(const std::string& state_name);
/// The states measured, in order (pageable_malloc only where the device has pageable access).
const std::vector<std::string>& states();

/// Bytes of the buffer over the state's timed region: a kernel reading it, a prefetch moving it,
/// host threads reading it. The states whose pages are on the device when timed are DRAM reads;
/// the others cross the host link.
inline const Metric bandwidth =
    Metric{.name = "managed_bandwidth",
           .unit = "GB/s",
           .direction = Direction::higher,
           .metric_class = MetricClass::host_link,
           .limit = LimitKind::pcie,
           .title = "managed memory bandwidth"}
        .with_case({.key = state.key,
                    .equals = resident,
                    .then = MetricClass::device_memory,
                    .why = "the pages are on the device: a DRAM read"})
        .with_case({.key = state.key,
                    .equals = prefetched,
                    .then = MetricClass::device_memory,
                    .why = "the prefetch put the pages on the device: a DRAM read"})
        .with_case({.key = state.key,
                    .equals = read_mostly_copy,
                    .then = MetricClass::device_memory,
                    .why = "the read-only copies are on the device: a DRAM read"});

/// The figure over its reference in the same run: DRAM reads over the achievable read peak, the
/// link's over host_transfer's pinned rate in the same direction.
inline const Metric ratio{.name = "ratio_to_reference",
                          .unit = "1",
                          .direction = Direction::higher,
                          .metric_class = MetricClass::derived,
                          .title = "managed bandwidth over its reference"};

/// extra keys
inline constexpr const char* reference_gbs = "reference_gbs";
inline constexpr const char* reference = "reference";

} // namespace apod::unified
