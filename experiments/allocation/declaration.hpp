// allocation's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which allocation.cu records under.
#pragma once

#include "core/catalog.hpp"

namespace apod::alloc {

inline constexpr const char* experiment = "allocation";

inline const Param api{.key = "api",
                       .title = "allocator",
                       .labels = {{"host_alloc", "cudaHostAlloc + cudaFreeHost"},
                                  {"host_register", "cudaHostRegister + Unregister (malloc'ed)"},
                                  {"malloc", "cudaMalloc + cudaFree"},
                                  {"pool_warm", "cudaMallocAsync + cudaFreeAsync, warm pool"},
                                  {"pool_cold", "cudaMallocAsync + cudaFreeAsync, trimmed pool"}}};
inline const Param bytes{.key = "bytes", .title = "allocation size", .unit = "bytes"};

/// The allocating call's time on the host (steady_clock): host_phase, the driver's work.
inline const Metric alloc_time{.name = "alloc_time_us",
                               .unit = "us",
                               .direction = Direction::lower,
                               .metric_class = MetricClass::host_phase,
                               .title = "allocating call's time"};
/// The freeing call's time on the host (steady_clock).
inline const Metric free_time{.name = "free_time_us",
                              .unit = "us",
                              .direction = Direction::lower,
                              .metric_class = MetricClass::host_phase,
                              .title = "freeing call's time"};
/// An allocate-and-free pair's time per GiB, where the cost grows with the size.
inline const Metric time_per_gib{.name = "time_per_gib_ms",
                                 .unit = "ms/GiB",
                                 .direction = Direction::lower,
                                 .metric_class = MetricClass::host_phase,
                                 .title = "allocate + free time per GiB"};

} // namespace apod::alloc
