// bank_conflicts' declaration (declaration.cpp registers it): its params, metric and access
// patterns as named constants, which bank_conflicts.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::banks {

inline constexpr const char* experiment = "bank_conflicts";

inline const Param access{.key = "access", .title = "access pattern (conflict degree)"};
inline const Param stride{.key = "stride_words", .title = "stride (words)"};
inline const Param degree{.key = "conflict_degree", .title = "conflict degree"};

inline const Metric shared_throughput{.name = "shared_bytes_per_clock",
                                      .unit = "B/clk/SM",
                                      .direction = Direction::higher,
                                      .metric_class = MetricClass::on_chip};

/// A warp's access pattern: the stride in words (0: every lane reads one word) and its words.
struct Pattern {
  int stride;
  std::string access;
};
/// The patterns measured, in order.
const std::vector<Pattern>& patterns();

} // namespace apod::banks
