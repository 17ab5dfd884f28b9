// texture_loads' declaration (declaration.cpp registers it): its params and metrics as named
// constants, which texture_loads.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::texture {

inline constexpr const char* experiment = "texture_loads";

// The load paths (params path), in the order measured.
inline constexpr const char* plain = "plain";
inline constexpr const char* ldg = "ldg";
inline constexpr const char* ld_ca = "ld_ca";
inline constexpr const char* ld_cg = "ld_cg";
inline constexpr const char* tex1d_fetch = "tex1dfetch";
inline constexpr const char* tex2d_point = "tex2d_point";
inline constexpr const char* tex2d_linear = "tex2d_linear";

// The patterns (params pattern); dependent_chase is the latency points'.
inline constexpr const char* row_stream = "row_stream";
inline constexpr const char* column_walk = "column_walk";
inline constexpr const char* neighbourhood = "neighbourhood";
inline constexpr const char* dependent_chase = "dependent_chase";

inline const Param path{.key = "path",
                        .title = "load path",
                        .labels = {{plain, "plain load (ld.global)"},
                                   {ldg, "const __restrict__ / __ldg (ld.global.nc)"},
                                   {ld_ca, "__ldca (ld.global.ca: L1 and L2)"},
                                   {ld_cg, "__ldcg (ld.global.cg: L2 only)"},
                                   {tex1d_fetch, "tex1Dfetch, texture object over linear memory"},
                                   {tex2d_point, "tex2D on a cudaArray, point filtering"},
                                   {tex2d_linear, "tex2D on a cudaArray, linear filtering"}}};
inline const Param pattern{
    .key = "pattern",
    .title = "access pattern",
    .labels = {{row_stream, "row stream (each pixel once, a warp reads along a row)"},
               {column_walk, "column walk (each pixel once, a warp reads down a column)"},
               {neighbourhood, "3 x 3 neighbourhood (each pixel 9 times, 2-D tiles)"},
               {dependent_chase, "dependent chase over 16 KiB (one thread)"}}};

/// Bytes the loads return to the threads plus the output written, per second, where each pixel
/// is read once (row_stream, column_walk): every byte comes from DRAM (the L2 is overwritten before
/// each sample), so the figure is read against the DRAM limit.
inline const Metric load_bandwidth{.name = "load_bandwidth",
                                   .unit = "GB/s",
                                   .direction = Direction::higher,
                                   .metric_class = MetricClass::device_memory,
                                   .limit = LimitKind::dram,
                                   .title = "bytes loaded and written per second"};
/// The same count for the neighbourhood, whose 9 reads of a pixel come mostly from the
/// L1/texture cache: an on-chip rate, read against no DRAM limit (the first device run drew it
/// at 271% of DRAM's).
inline const Metric cached_load_bandwidth{
    .name = "cached_load_bandwidth",
    .unit = "GB/s",
    .direction = Direction::higher,
    .metric_class = MetricClass::on_chip,
    .title = "bytes loaded (mostly cache hits) and written per second"};
/// The metric of a bandwidth pattern's points.
const Metric& bandwidth_metric(const std::string& pattern);
/// The path's bandwidth over plain loads' in the same pattern.
inline const Metric over_plain{.name = "bandwidth_over_plain",
                               .unit = "1",
                               .direction = Direction::higher,
                               .metric_class = MetricClass::derived,
                               .title = "bandwidth over plain loads' (same pattern)"};
/// Cycles per step of a one-thread dependent chase over a set that the first lap leaves cached.
inline const Metric hit_latency{.name = "hit_latency",
                                .unit = "cycles",
                                .direction = Direction::lower,
                                .metric_class = MetricClass::on_chip,
                                .title = "cache-hit latency (dependent chase)"};
/// The path's hit latency over plain loads' (an L1 hit).
inline const Metric over_l1_hit{.name = "latency_over_l1_hit",
                                .unit = "1",
                                .direction = Direction::lower,
                                .metric_class = MetricClass::derived,
                                .title = "hit latency over a plain load's L1 hit"};

/// The bandwidth paths and patterns, in the order measured.
const std::vector<std::string>& bandwidth_paths();
const std::vector<std::string>& bandwidth_patterns();
/// The latency chase's paths: plain (an L1 hit), __ldg, tex1Dfetch, and ld.global.cg (an L2 hit,
/// the level the others are compared with).
const std::vector<std::string>& latency_paths();

} // namespace apod::texture
