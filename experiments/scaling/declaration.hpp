// scaling's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which scaling.cu and record.cpp record under (Best Practices Guide 3.1.3).
#pragma once

#include "core/catalog.hpp"

namespace apod::scaling {

inline constexpr const char* experiment = "scaling";

namespace param {
inline const Param curve{.key = "curve", .title = "workload"};
inline const Param sm_count{.key = "sm_count", .title = "SMs (green-context partition)"};
inline const Param law{.key = "law", .title = "law"};
inline const Param phase{.key = "phase", .title = "phase"};
} // namespace param

namespace metric {
/// A GPU phase's time on a partition: a compute rate, except the memory and latency curves'.
inline const Metric kernel_ms =
    Metric{.name = "kernel_ms",
           .unit = "ms",
           .direction = Direction::lower,
           .metric_class = MetricClass::on_chip}
        .with_case({.key = "curve",
                    .equals = "memory",
                    .then = MetricClass::device_memory,
                    .why = "the memory curve streams DRAM"})
        .with_case({.key = "curve",
                    .equals = "latency",
                    .then = MetricClass::device_memory,
                    .why = "the latency curve chases pointers through DRAM"});
/// The grown (weak-scaling) problem timed on the base partition: Gustafson's numerator.
inline const Metric base_partition_ms{.name = "base_partition_ms",
                                      .unit = "ms",
                                      .direction = Direction::lower,
                                      .metric_class = MetricClass::on_chip};
inline const Metric serial_ms{.name = "serial_ms",
                              .unit = "ms",
                              .direction = Direction::lower,
                              .metric_class = MetricClass::host_phase};
inline const Metric speedup{.name = "speedup",
                            .unit = "x",
                            .direction = Direction::higher,
                            .metric_class = MetricClass::derived};
inline const Metric efficiency{.name = "efficiency",
                               .unit = "1",
                               .direction = Direction::higher,
                               .metric_class = MetricClass::derived};
inline const Metric amdahl_parallel_fraction{.name = "amdahl_parallel_fraction",
                                             .unit = "1",
                                             .direction = Direction::higher,
                                             .metric_class = MetricClass::derived,
                                             .title = "Amdahl P"};
inline const Metric gustafson_parallel_fraction{.name = "gustafson_parallel_fraction",
                                                .unit = "1",
                                                .direction = Direction::higher,
                                                .metric_class = MetricClass::derived,
                                                .title = "Gustafson P"};
inline const Metric amdahl_limit{.name = "amdahl_limit",
                                 .unit = "x",
                                 .direction = Direction::higher,
                                 .metric_class = MetricClass::derived};
/// Fewer SMs to saturate DRAM means each SM moves more.
inline const Metric predicted_knee{.name = "predicted_knee_sm_count",
                                   .unit = "SMs",
                                   .direction = Direction::lower,
                                   .metric_class = MetricClass::derived};
} // namespace metric

} // namespace apod::scaling
