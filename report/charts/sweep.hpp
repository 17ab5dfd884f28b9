// The sweep: a metric against one parameter, as lines, points or bars, with its whiskers or
// band, the model beside it, limits named in words, the published figures and the rules of its
// design, as a Vega-Lite spec.
#pragma once

#include "charts/plot.hpp"

#include <optional>

namespace apod::report::charts {

/// The Vega-Lite spec of a sweep.
json sweep_spec(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep);

/// How far a model misses its measured points: over the drawn points with a model, the median of
/// |measured / model - 1| (in %) and the median of measured / model.
struct ModelMiss {
  std::size_t points = 0;
  double median_abs_pct = 0;
  double median_ratio = 1;
};

/// The residual panel under a sweep with a model: measured / model - 1 per point, in percent,
/// against zero and the model's stated bound; nullopt where no point has a model. `miss`, when
/// given, receives the model's miss over the same points.
std::optional<json> residual_spec(const PageModel& page, const ExperimentView& experiment,
                                  const Sweep& sweep, ModelMiss* miss = nullptr);

/// The sentence under a model that misses by more than its stated bound (a fraction; 0: none
/// stated, and then the miss is always said): "The model (sector model) misses by 14.5% (median
/// over 12 points; its bound is 10%)." Empty where the model keeps within its bound.
std::string model_miss_sentence(const ModelMiss& miss, double bound, const std::string& label);

/// The plan a sweep's points get (for captions and rules that follow its series).
SeriesPlan sweep_plan(const PageModel& page, const Sweep& sweep);

} // namespace apod::report::charts
