// What the shapes of a declared chart (core/catalog.hpp's Chart) share: what every shape reads,
// the points a declaration names, the chart of a sweep with its caption, and the generic sweep of
// a metric that no declared chart draws. Nothing here knows an experiment: every name comes from
// the declaration.
#pragma once

#include "charts/chart.hpp"
#include "charts/plot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report::charts {

/// What every shape reads.
struct DesignInput {
  const PageModel& page;
  const ExperimentView& experiment;
  const std::vector<const json*>& published;
};

/// The metric of that name with at least one ok point, or nullptr.
const MetricView* drawable_metric(const ExperimentView& experiment, const std::string& name);

/// Whether every ok point of `metric` has all of `params`.
bool has_params(const MetricView& metric, const std::vector<std::string>& params);

/// Points whose parameter `key` equals `value` (any point when `key` is empty).
Keep param_is(const std::string& key, const json& value);

/// A generic sweep of `metric`: its first param across, the first other param that splits a
/// point's series by colour, a model its points store beside it.
Sweep generic_sweep(const DesignInput& in, const MetricView& metric);

/// A caption: what is drawn, then how runs are combined, then each further sentence.
std::string caption(const std::string& what, const PageModel& page, const SeriesPlan& plan,
                    const std::vector<std::string>& more = {});

/// "Black marks and dotted lines: ..." when the sweep draws published figures, else "".
std::string published_sentence(const Sweep& sweep);

/// The chart of a sweep with its caption.
ChartBlock sweep_block(const DesignInput& in, const Sweep& sweep, const std::string& what,
                       const std::vector<std::string>& more = {});

/// The rule at each device's or point's limit in words, for a caption ("" when none is drawn).
std::string limits_sentence(const ExperimentView& experiment, const MetricView& metric);

} // namespace apod::report::charts
