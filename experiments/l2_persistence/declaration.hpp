// l2_persistence's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which l2_persistence.cu records under.
#pragma once

#include "core/catalog.hpp"

namespace apod::persistence {

inline constexpr const char* experiment = "l2_persistence";

inline const Param window{.key = "window", .title = "access window"};
inline const Param set_aside{
    .key = "set_aside_bytes", .title = "persisting set-aside (asked for)", .unit = "bytes"};
inline const Param region{.key = "persistent_bytes", .title = "persistent region", .unit = "bytes"};

/// Every speed-up is read against the same kernel with no set-aside and no access window: what a
/// program gets from the L2 when it does nothing.
inline const Metric speedup{.name = "speedup_vs_no_set_aside",
                            .unit = "1",
                            .direction = Direction::higher,
                            .metric_class = MetricClass::derived,
                            .title = "speed-up over no set-aside and no window"};
/// A plain 1 GiB copy that uses no window, at a set-aside over the same copy with none.
inline const Metric copy_ratio{.name = "copy_vs_no_set_aside",
                               .unit = "1",
                               .direction = Direction::higher,
                               .metric_class = MetricClass::derived,
                               .title = "plain copy's rate over no set-aside"};
/// copy_vs_no_set_aside at the largest set-aside (the guide's choice), one point per run.
inline const Metric copy_at_max{.name = "copy_at_max_set_aside",
                                .unit = "1",
                                .direction = Direction::higher,
                                .metric_class = MetricClass::derived,
                                .title = "plain copy at the largest set-aside"};
/// The best windowed speed-up over no set-aside and no window, one point per run.
inline const Metric best_gain{.name = "best_net_gain",
                              .unit = "1",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::derived,
                              .title = "best net gain of a set-aside and window"};

/// The metric name under which the Best Practices Guide's A100 figures are transcribed
/// (data/reference/best_practices_guide.json): drawn beside the speed-ups as a reference.
inline constexpr const char* guide_metric = "speedup_vs_no_window";

inline constexpr const char* granted_key = "set_aside_granted_bytes";

} // namespace apod::persistence
