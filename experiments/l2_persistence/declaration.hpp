// l2_persistence's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which l2_persistence.cu records under.
#pragma once

#include "core/catalog.hpp"

namespace apod::persistence {

inline constexpr const char* experiment = "l2_persistence";

inline const Param window{.key = "window", .title = "access window"};
inline const Param region{.key = "persistent_bytes", .title = "persistent region", .unit = "bytes"};
inline const Param ratio{.key = "region_over_set_aside",
                         .title = "persistent region / persisting set-aside"};

inline const Metric speedup{.name = "speedup_vs_no_window",
                            .unit = "1",
                            .direction = Direction::higher,
                            .metric_class = MetricClass::derived,
                            .title = "speed-up over no access window"};

inline constexpr const char* set_aside_key = "set_aside_bytes";

} // namespace apod::persistence
