// overlap_matrix's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which overlap_matrix.cu records under.
#pragma once

#include "core/catalog.hpp"
#include "schedule.hpp"

namespace apod::overlap {

inline constexpr const char* experiment = "overlap_matrix";

inline const Param variant{.key = "variant", .title = "variant"};
inline const Param n{.key = "n", .title = "elements", .unit = "floats"};
inline const Param kernel{.key = "kernel", .title = "kernel"};
inline const Param pinned{.key = "pinned", .title = "pinned"};
inline const Param mapped{.key = "mapped", .title = "mapped"};
inline const Param new_stream{.key = "new_stream", .title = "new stream"};
inline const Param config{.key = "config", .title = "host memory / stream"};
/// Whether the H2D copy reads a host buffer the CPU has just written ("just_written", the gist's
/// and the corrected rows) or one written once before the rounds and untouched since ("cold").
inline const Param host_buffer{.key = "host_buffer", .title = "host buffer"};

inline constexpr size_t gist_n = 16 * 1024; ///< the gist's N
inline constexpr size_t large_n = size_t(4) << 20, quick_large_n = size_t(256) << 10;

/// A timing of a host-orchestrated trial: host phases in every row.
Metric timing(const char* name, const char* title = "");
/// A copy's or zero copy's rate over the link: DMA, except from pageable memory and under
/// 16 MiB, where the CPU or a transfer's fixed cost dominates.
Metric link_rate(const char* name);

inline const Metric overall_ms = timing("overall_ms", "overall time");
inline const Metric kernel_ms = timing("kernel_ms");
inline const Metric overhead_ms = timing("overhead_ms");
inline const Metric h2d_ms = timing("h2d_ms");
inline const Metric d2h_ms = timing("d2h_ms");
inline const Metric ratio_to_first_row{.name = "ratio_to_first_row",
                                       .unit = "x",
                                       .direction = Direction::lower,
                                       .metric_class = MetricClass::derived};
inline const Metric h2d_bandwidth = link_rate("h2d_bandwidth");
inline const Metric d2h_bandwidth = link_rate("d2h_bandwidth");
inline const Metric mapped_pcie_bandwidth = link_rate("mapped_pcie_bandwidth");

/// The rows of a group: the gist's 18, and for the corrected variant at the large size their
/// cold-buffer copy rows too (with_cold_rows).
std::vector<Row> rows_of(const std::string& variant_name, size_t elements, bool quick);

/// A row's params at a variant and size.
json row_params(const char* variant_name, size_t elements, const Row& row);

} // namespace apod::overlap
