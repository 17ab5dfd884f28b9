// The Little's-law bound of a copy kernel's launch shape, which a declared chart asks for
// (Chart::littles_law_latency): min(achievable peak, 2 x SMs x bytes in flight per SM / DRAM
// latency), theory.hpp's littles_law_bandwidth_gbs, with the same run's DRAM latency (the figure
// the declaration names) and achievable peak.
#pragma once

#include <unordered_map>

#include "charts/plot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report::charts {

struct LaunchBound {
  double gbs = 0;                    ///< the bound, capped at the peak
  double in_flight_bytes_per_sm = 0; ///< resident threads x bytes each loads before storing
  double latency_ns = 0;             ///< the declared latency figure, same run
  double peak_gbs = 0;               ///< the run's achievable peak
  int sm_count = 0;
  bool capped = false; ///< the peak is below the latency bound
};

/// Each run's figure `ref` names (an experiment, metric and params), where measured and
/// verified: one pass over the figure's points, so a page of 1000 runs does not look each run's
/// figure up again for every point that needs it.
using RunFigures = std::unordered_map<const RunView*, double>;
RunFigures run_figures(const PageModel& page, const FigureRef& ref);

/// The bound of the launch that measured `point`, from its extra (launch: block_size,
/// grid_size, max_active_blocks_per_sm; bytes_moved; access_type copy or read), its device's SM
/// count and its run's latency (in ns, from `latencies`: run_figures) and peak; nothing when any
/// of these is missing.
std::optional<LaunchBound> littles_law_bound(const PointView& point, const RunFigures& latencies);

/// One rule per series and panel of a sweep (the median of its points' bounds) where the bound
/// is below the peak, and the caption's sentence for every bound, capped or not.
struct BoundsDrawn {
  std::vector<Rule> rules;
  std::string sentence;
};
BoundsDrawn littles_law_rules(const PageModel& page, const Sweep& sweep, const SeriesPlan& plan,
                              const FigureRef& latency);

} // namespace apod::report::charts
