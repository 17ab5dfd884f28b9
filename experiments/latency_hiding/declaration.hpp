// latency_hiding's declaration (declaration.cpp registers it): its params as named constants.
#pragma once

#include "core/catalog.hpp"

namespace apod::hiding {

inline constexpr const char* experiment = "latency_hiding";

inline const Param block_size{.key = "block_size", .title = "block size (threads)"};
inline const Param threads_per_sm{.key = "threads_per_sm", .title = "resident threads per SM"};

} // namespace apod::hiding
