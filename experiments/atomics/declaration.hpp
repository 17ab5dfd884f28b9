// atomics' declaration (declaration.cpp registers it): its params and metric as named constants,
// the operations per memory and the contention levels, which atomics.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace apod::atomics {

inline constexpr const char* experiment = "atomics";

inline constexpr const char* global_memory = "global";
inline constexpr const char* shared_memory = "shared";
inline constexpr const char* system_memory = "system";

inline const Param memory{
    .key = "memory",
    .title = "memory the counters live in",
    .labels = {{global_memory, "device memory (atomicAdd, device scope)"},
               {shared_memory, "shared memory (per block)"},
               {system_memory, "mapped pinned host memory (atomicAdd_system)"}}};
inline const Param operation{.key = "operation",
                             .title = "operation",
                             .labels = {{"add_int32", "atomicAdd int"},
                                        {"add_uint64", "atomicAdd unsigned long long"},
                                        {"add_float", "atomicAdd float"},
                                        {"add_double", "atomicAdd double"},
                                        {"cas_double_add", "double add by an atomicCAS loop"}}};
inline const Param threads_per_address{.key = "threads_per_address",
                                       .title = "threads updating one address (contention)"};

/// System-scope atomics on mapped host memory cross the host link: each is a round trip over
/// PCIe (or NVLink-C2C) to the host's memory, so the figure moves with the link and the host, as
/// the host_link class's mapped transfers do, not with the SMs and the L2 as on_chip rates do.
inline const Metric atomic_rate{
    .name = "atomic_rate",
    .unit = "Gop/s",
    .direction = Direction::higher,
    .metric_class = MetricClass::on_chip,
    .title = "atomic operations per second",
    .cases = {{.key = memory.key,
               .equals = system_memory,
               .then = MetricClass::host_link,
               .why = "system-scope atomics on mapped host memory cross the host link"}}};

/// One operation a memory is measured with.
struct Operation {
  std::string key; ///< operation's value: "add_int32", ...
  int bytes = 4;   ///< the counter's size
  bool cas = false;
};
/// The operations measured in `memory`, in order.
const std::vector<Operation>& operations(const std::string& memory);

/// Threads per block of every kernel.
inline constexpr int block_size = 256;
/// Threads per SM of the system-scope grid (two warps): each of its atomics is a round trip to
/// host memory, so a small grid already keeps the link busy and a launch stays short.
inline constexpr int system_threads_per_sm = 64;

/// The contention levels of a memory for a grid of `threads` (shared: per block): 1 (distinct
/// addresses), 32 (a warp per address), 1024 (global, not --quick), and all the grid's (or the
/// block's) threads on one address. A CAS loop leaves out a global grid on one address: each
/// success costs an attempt of every contender, so a full grid takes seconds.
std::vector<int64_t> contention_levels(const std::string& memory, const Operation& op,
                                       int64_t threads, bool quick);

/// The threads of the global grid the plan expects on `device`: a full SM of 256-thread blocks
/// (2048 threads; 1024 on compute capability 7.5). The run uses the occupancy API's figure.
int64_t planned_global_threads(const DeviceInfo& device);

} // namespace apod::atomics
