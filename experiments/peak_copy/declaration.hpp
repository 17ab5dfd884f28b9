// peak_copy's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which peak_copy.cu and peaks.cpp record under.
#pragma once

#include "core/catalog.hpp"
#include "core/series.hpp"

namespace apod::peak {

inline constexpr const char* experiment = "peak_copy";

inline const Param access_type{.key = keys::access_type, .title = "access type"};
inline const Param method{.key = "method", .title = "method"};
inline const Param elements{.key = "elements_per_thread", .title = "elements per thread"};
inline const Param grid{.key = "grid",
                        .title = "grid",
                        .labels = {{"wave", "one resident wave"}, {"full", "one block a tile"}}};
inline const Param config{.key = "config", .title = "configuration"};

inline constexpr const char* kernel_method = "kernel";
inline constexpr const char* memcpy_method = "memcpy";
inline constexpr const char* best_method = "best";

/// Each access type's achievable peak: its best verified point, with that point's samples.
inline const Metric access_peak{.name = keys::access_peak,
                                .unit = "GB/s",
                                .direction = Direction::higher,
                                .metric_class = MetricClass::device_memory,
                                .limit = LimitKind::dram,
                                .title = "achievable bandwidth"};
/// The run's achievable peak: the best access type's.
inline const Metric achievable_peak{.name = keys::achievable_peak,
                                    .unit = "GB/s",
                                    .direction = Direction::higher,
                                    .metric_class = MetricClass::device_memory,
                                    .limit = LimitKind::dram};

/// One launch shape: elements per thread, and one block per tile or one resident wave.
struct Shape {
  int elements = 1;
  bool persistent = false;
};
/// The candidates, for every access type (docs/method.md says how they were chosen); --quick
/// keeps the two ends.
inline constexpr Shape shapes[] = {{1, false}, {2, false}, {4, false}, {4, true}};
inline constexpr Shape quick_shapes[] = {{1, false}, {4, true}};
/// The access types in the order they are measured.
inline constexpr const char* access_types[] = {access::copy, access::triad, access::write,
                                               access::read};

/// A kernel point's params: {access_type, method kernel, elements, grid, config}.
json kernel_params(const std::string& type, Shape shape);
/// The cudaMemcpyAsync point's params.
json memcpy_params();

} // namespace apod::peak
