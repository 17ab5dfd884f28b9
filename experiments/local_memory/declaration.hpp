// local_memory's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which local_memory.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::local_memory {

inline constexpr const char* experiment = "local_memory";

inline constexpr const char* indexed_array = "indexed_array";
inline constexpr const char* register_pressure = "register_pressure";
inline constexpr const char* in_registers = "registers";
inline constexpr const char* in_local = "local";

/// What puts the words in local memory: an array indexed at run time, or more live values than
/// the register cap allows (a spill).
inline const Param cause{
    .key = "case",
    .title = "what puts words in local memory",
    .labels = {{indexed_array, "per-thread array, run-time index against compile-time indices"},
               {register_pressure, "64 live values, capped at 32 registers against uncapped"}}};
inline const Param placement{
    .key = "placement",
    .title = "where the words live",
    .labels = {{in_registers, "registers (compile-time indices; no register cap)"},
               {in_local, "local memory (run-time index; __maxnreg__ spill)"}}};
inline const Param words{.key = "words_per_thread", .title = "words per thread (array or live)"};

inline const Metric update_rate{.name = "word_update_rate",
                                .unit = "Gupdate/s",
                                .direction = Direction::higher,
                                .metric_class = MetricClass::on_chip,
                                .title = "word updates per second (each thread's, summed)"};
inline const Metric cost{.name = "cost_vs_registers",
                         .unit = "1",
                         .direction = Direction::lower,
                         .metric_class = MetricClass::derived,
                         .title = "time in local memory over the time in registers"};

/// The array sizes of the indexed case (16 words fit a full SM's threads in its L1; 64 do not).
const std::vector<int>& array_words();
/// Live values of the register-pressure kernel and the register cap of its spilled version.
inline constexpr int pressure_live = 64;
inline constexpr int pressure_register_cap = 32;

/// The names of the extern "C" kernels, so cuobjdump -fun finds them (test_local_memory_gpu).
inline constexpr const char* spilled_kernel_name = "apod_local_pressure_capped";
inline constexpr const char* unspilled_kernel_name = "apod_local_pressure_uncapped";
inline constexpr const char* indexed_kernel_name = "apod_local_array_indexed_16";
inline constexpr const char* unrolled_kernel_name = "apod_local_array_unrolled_16";

/// How the spill was established, stored with the register-pressure points.
inline constexpr const char* spill_sentence =
    "local_bytes_per_thread is cudaFuncGetAttributes' localSizeBytes (ptxas' stack frame, where "
    "spills and indexed arrays live); the gpu test test_local_memory_gpu counts the STL and LDL "
    "(local stores and loads) in each kernel's SASS with cuobjdump and requires none in the "
    "register versions.";

} // namespace apod::local_memory
