// instruction_throughput's declaration (declaration.cpp registers it): its params and metrics as
// named constants, which instruction_throughput.cu records under, and the sweep it runs.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::throughput {

inline constexpr const char* experiment = "instruction_throughput";

inline const Param op_class{.key = "op_class", .title = "operation class"};
inline const Param ilp{.key = "ilp", .title = "independent chains per thread (ILP)"};
inline const Param warps{.key = "warps_per_sm", .title = "warps per SM (TLP)"};

/// One sweep point's throughput: results per clock per SM from the SMs' own cycle counters.
inline const Metric results_per_clock{.name = "results_per_clock",
                                      .unit = "results/clk/SM",
                                      .direction = Direction::higher,
                                      .metric_class = MetricClass::on_chip};
/// Cycles per operation of one warp's dependent chain.
inline const Metric latency{.name = "latency_cycles",
                            .unit = "cycles",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::on_chip};
/// A class's best sweep point measured again for longer (its power known).
inline const Metric peak_results_per_clock{.name = "peak_results_per_clock",
                                           .unit = "results/clk/SM",
                                           .direction = Direction::higher,
                                           .metric_class = MetricClass::on_chip};
/// The same point as results per second over the whole GPU (CUDA events).
inline const Metric peak_op_rate{.name = "peak_op_rate",
                                 .unit = "Gop/s",
                                 .direction = Direction::higher,
                                 .metric_class = MetricClass::on_chip};
/// The fraction of the best throughput at which the peak point states the results in flight the
/// sweep needed (extra in_flight_at_90pct), beside latency x throughput.
inline constexpr double in_flight_fraction = 0.9;

/// The chains per thread and warps per SM the sweep crosses (warps up to one 1024-thread block
/// per SM).
std::vector<int> ilp_values(bool quick);
std::vector<int> warp_values(bool quick);

} // namespace apod::throughput
