// The charts each experiment gets (issue 14: "charts designed for their data"), by family:
// device memory (designs_memory.cpp), compute and caches (designs_compute.cpp), transfers and
// overlap (designs_transfer.cpp). A design returns no chart when the stored results lack what it
// needs (another experiment version); the experiment then gets the generic chart of its catalog
// settings.
#pragma once

#include "charts/plot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report::charts {

/// What every design reads.
struct DesignInput {
  const PageModel& page;
  const ExperimentView& experiment;
  const std::vector<const json*>& published;
};

using Design = std::vector<ChartBlock> (*)(const DesignInput&);

std::vector<ChartBlock> peak_copy_charts(const DesignInput& in);
std::vector<ChartBlock> offset_copy_charts(const DesignInput& in);
std::vector<ChartBlock> stride_copy_charts(const DesignInput& in);
std::vector<ChartBlock> memory_latency_charts(const DesignInput& in);
std::vector<ChartBlock> littles_law_charts(const DesignInput& in);
std::vector<ChartBlock> latency_hiding_charts(const DesignInput& in);
std::vector<ChartBlock> roofline_charts(const DesignInput& in);
std::vector<ChartBlock> bank_conflicts_charts(const DesignInput& in);
std::vector<ChartBlock> l2_persistence_charts(const DesignInput& in);
std::vector<ChartBlock> scaling_charts(const DesignInput& in);
std::vector<ChartBlock> host_transfer_charts(const DesignInput& in);
std::vector<ChartBlock> staged_copy_charts(const DesignInput& in);
std::vector<ChartBlock> overlap_matrix_charts(const DesignInput& in);

/// The metric of that name with at least one ok point, or nullptr.
const MetricView* drawable_metric(const ExperimentView& experiment, const std::string& name);

/// Whether every ok point of `metric` has all of `params`.
bool has_params(const MetricView& metric, const std::vector<std::string>& params);

/// Points whose parameter `key` has the string value `value`.
Keep param_is(const std::string& key, const std::string& value);

/// A sweep of `metric` from the catalog's settings (x, colour, mark, log x) and the published
/// figures of its metric; a design then changes what it needs.
Sweep catalog_sweep(const DesignInput& in, const MetricView& metric);

/// catalog_sweep of `metric` where it has ok points and every one of them has all of `params`;
/// nothing otherwise (another version of the experiment: the generic chart takes over).
std::optional<Sweep> designed_sweep(const DesignInput& in, const std::string& metric,
                                    const std::vector<std::string>& params);

/// A caption: what is drawn, then how runs are combined, then each further sentence.
std::string caption(const std::string& what, const PageModel& page, const SeriesPlan& plan,
                    const std::vector<std::string>& more = {});

/// "; diamonds: published figures (…)" when the sweep draws any, else "".
std::string published_sentence(const Sweep& sweep);

/// The chart of a sweep with its caption.
ChartBlock sweep_block(const DesignInput& in, const Sweep& sweep, const std::string& what,
                       const std::vector<std::string>& more = {});

/// The rule at each device's or point's limit in words, for a caption ("" when none is drawn).
std::string limits_sentence(const ExperimentView& experiment, const MetricView& metric);

} // namespace apod::report::charts
