// The sweep: a metric against one parameter, as lines, points or bars, with its whiskers or
// band, the model beside it, limits named in words, the published figures and the rules of its
// design, as a Vega-Lite spec.
#pragma once

#include "charts/plot.hpp"

#include <optional>

namespace apod::report::charts {

/// The Vega-Lite spec of a sweep.
json sweep_spec(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep);

/// The residual panel under a sweep with a model: measured / model - 1 per point, in percent,
/// against zero and the model's stated bound; nullopt where no point has a model.
std::optional<json> residual_spec(const PageModel& page, const ExperimentView& experiment,
                                  const Sweep& sweep);

/// The plan a sweep's points get (for captions and rules that follow its series).
SeriesPlan sweep_plan(const PageModel& page, const Sweep& sweep);

} // namespace apod::report::charts
