// roofline's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which roofline.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::roofline {

inline constexpr const char* experiment = "roofline";

inline const Param precision{.key = "precision", .title = "precision"};
inline const Param fma{.key = "fma_per_element", .title = "FMAs per element"};
inline const Param intensity{.key = "flops_per_byte",
                             .title = "arithmetic intensity (FLOP per byte of DRAM traffic)"};

inline const Metric flop_rate{.name = "flop_rate",
                              .unit = "GFLOP/s",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::on_chip};
inline const Metric peak_flop_rate{.name = "peak_flop_rate",
                                   .unit = "GFLOP/s",
                                   .direction = Direction::higher,
                                   .metric_class = MetricClass::on_chip};

/// The soft-knee model's stated accuracy, relative, on every point of both GPU models
/// (test_committed.cpp and the declared-models test hold it). Set before the model met the
/// 2026-11-26 batches; on the 2026-11-23 ones it missed by at most 10.5%.
inline constexpr double soft_knee_bound = 0.15;

/// extra of the peak_flop_rate points: where the theoretical roofline turns compute-bound.
inline constexpr const char* machine_balance_key = "machine_balance";

/// The FMA counts a precision of `element_bytes` sweeps on `device` (model.hpp's fma_counts at
/// the device's machine balance).
std::vector<int> counts_for(const DeviceInfo& device, int element_bytes, bool quick);

} // namespace apod::roofline
