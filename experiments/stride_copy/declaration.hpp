// stride_copy's declaration (declaration.cpp registers it): its params, metrics and strides.
#pragma once

#include "core/catalog.hpp"

namespace apod::stride_copy {

inline constexpr const char* experiment = "stride_copy";

inline const Param kernel{.key = "kernel", .title = "kernel"};
inline const Param stride{.key = "stride", .title = "stride (words)"};

inline constexpr const char* guide = "guide";
inline constexpr const char* saturating = "saturating";
/// Every stride up to 8, where the model changes shape (1/stride of the traffic is useful), then
/// every fourth up to 32, where it is flat: the guide's Figure 7 range at half the points.
inline constexpr int strides[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 28, 32};

/// What the 32-byte-sector model expects from the same kernel's stride-1 figure.
inline const Metric sector_model_bandwidth{.name = "sector_model_bandwidth",
                                           .unit = "GB/s",
                                           .direction = Direction::higher,
                                           .metric_class = MetricClass::derived};

} // namespace apod::stride_copy
