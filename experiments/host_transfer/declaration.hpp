// host_transfer's declaration (declaration.cpp registers it): its params and metric as named
// constants, which host_transfer.cu records under.
#pragma once

#include "core/catalog.hpp"
#include "core/series.hpp"

#include <vector>

namespace apod::transfer {

inline constexpr const char* experiment = "host_transfer";

inline const Param direction{.key = "direction", .title = "direction"};
inline const Param memory{.key = "memory", .title = "host memory"};
inline const Param bytes{.key = "bytes", .title = "transfer size", .unit = "bytes"};
inline const Param transfers{.key = "transfers", .title = "transfers per sample"};
inline const Param series{.key = "series", .title = "direction and memory"};

/// Under this many bytes a transfer's time is dominated by its fixed per-transfer cost (driver,
/// doorbell, DMA setup: a 4 KiB transfer takes ~10 us on the H100 and the H200, so 3% of a
/// 16 MiB transfer at 55 GB/s), a host-side latency: such points scatter like host phases
/// (4-64% run to run on 8 back-to-back runs of each GPU) while bulk transfers repeat within 0.6%.
inline constexpr double bulk_transfer_bytes = 16.0 * 1024 * 1024;

/// extra: bytes that crossed the link per transfer (zero copy: both directions).
inline constexpr const char* bytes_per_transfer = "bytes_per_transfer";
/// extra: transfers timed in one sample (over 1: the batched series).
inline constexpr const char* transfers_per_sample = "transfers_per_sample";

/// Bytes over the host link, read against the PCIe line rate: DMA, except what the CPU copies
/// (pageable memory) and transfers too short for the link to matter.
inline const Metric bandwidth =
    metrics::effective_bandwidth.against(LimitKind::pcie)
        .of_class(MetricClass::host_link)
        .with_case({.key = memory.key,
                    .equals = "pageable",
                    .then = MetricClass::host_phase,
                    .why = "the CPU copies pageable memory through a staging buffer"})
        .with_case({.key = bytes_per_transfer,
                    .below = bulk_transfer_bytes,
                    .then = MetricClass::host_phase,
                    .why = "under 16 MiB a transfer's fixed cost, a host-side latency, dominates"});

/// The sizes swept: 4 KiB to 256 MiB in powers of 4 (--quick: 4 KiB, 64 KiB, 1 MiB).
std::vector<size_t> sizes(bool quick);

} // namespace apod::transfer
