// constant_memory's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which constant_memory.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::constant_memory {

inline constexpr const char* experiment = "constant_memory";

inline constexpr const char* constant_source = "constant";
inline constexpr const char* register_source = "register";
inline constexpr const char* global_source = "global";
inline constexpr const char* ldg_source = "ldg";

/// Where a read's operand comes from: the same index arithmetic and the same values every time.
inline const Param source{.key = "source",
                          .title = "operand source",
                          .labels = {{constant_source, "__constant__ array (constant cache)"},
                                     {register_source, "register (the value computed, no load)"},
                                     {global_source, "global load (ld.global, L1 hit)"},
                                     {ldg_source, "__ldg read-only load (L1 hit)"}}};
inline const Param distinct{.key = "distinct_addresses", .title = "unique addresses per warp read"};

inline const Metric reads_per_clock{.name = "warp_reads_per_clock",
                                    .unit = "warp reads/clk/SM",
                                    .direction = Direction::higher,
                                    .metric_class = MetricClass::on_chip,
                                    .title = "warp-wide reads per clock per SM"};
inline const Metric latency{.name = "latency_cycles",
                            .unit = "cycles",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::on_chip,
                            .title = "dependent-read latency"};
inline const Metric cost_ratio_metric{.name = "cost_vs_one_address",
                                      .unit = "1",
                                      .direction = Direction::lower,
                                      .metric_class = MetricClass::derived,
                                      .title = "time per read over the one-address time"};

/// The sources in the order measured.
const std::vector<const char*>& sources();
/// The unique addresses per warp swept: 1, 2, 4, ..., 32.
const std::vector<int>& distinct_counts();

} // namespace apod::constant_memory
