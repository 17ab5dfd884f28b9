// The charts an experiment declares (core/catalog.hpp's Chart), drawn by the shape they name:
// a sweep (sweep_of.hpp, sweep.hpp), a heatmap (heatmap.hpp) or grouped bars (bars.hpp), with the
// rules, notes, models, bounds and caption figures the declaration asks for. Nothing here knows an
// experiment: every name comes from the declaration. A chart whose stored points lack what it
// names (another version of the experiment) is not drawn, and the experiment then gets one
// generic chart per metric.
#pragma once

#include "charts/chart.hpp"
#include "charts/declared.hpp"

#include <optional>
#include <vector>

namespace apod::report {

namespace charts {

/// A declared chart drawn by its shape, or nothing when its experiment's stored points lack what
/// it names.
std::optional<ChartBlock> chart_block(const DesignInput& in, const Chart& chart);

/// The residual panel drawn under a declared sweep with a model (measured / model - 1 per point
/// and the model's stated bound), or nothing where the chart has no model or no point has one.
std::optional<ChartBlock> residual_block(const DesignInput& in, const Chart& chart);

} // namespace charts

/// Every chart of one experiment's section, in order: the charts its declaration names (each
/// with a model followed by its residual), else one
/// generic chart per metric. `published` are the source documents' figures (all of them; each
/// chart draws those of its experiment and metric).
std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published = {});

/// The generic chart of one metric: its first param across, the first other param that splits
/// a point's series by colour, one series per run (or per device model past the series limit),
/// whiskers or a band, limits named in words, a model its points store beside it.
json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric);

} // namespace apod::report
