// Which charts an experiment's section shows: each chart its declaration names, drawn by its
// shape; where none can be drawn from the stored points (another version, an experiment the
// catalog lacks), one generic chart per metric.
#include "charts/experiment_charts.hpp"

#include "charts/bars.hpp"
#include "charts/heatmap.hpp"
#include "charts/series.hpp"
#include "charts/sweep.hpp"
#include "charts/sweep_of.hpp"
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace charts {

std::optional<ChartBlock> chart_block(const DesignInput& in, const Chart& chart) {
  switch (chart.shape) {
  case ChartShape::heatmap:
    return heatmap_chart(in, chart);
  case ChartShape::bars:
    return bars_chart(in, chart);
  case ChartShape::sweep:
    break;
  }
  const auto sweep = declared_sweep(in, chart);
  if (!sweep)
    return std::nullopt;
  return sweep_block(in, *sweep, chart.caption, sweep->sentences);
}

std::optional<ChartBlock> residual_block(const DesignInput& in, const Chart& chart) {
  if (chart.shape != ChartShape::sweep || (chart.model_extra.empty() && chart.model_metric.empty()))
    return std::nullopt;
  const auto sweep = declared_sweep(in, chart);
  if (!sweep)
    return std::nullopt;
  const auto spec = residual_spec(in.page, in.experiment, *sweep);
  if (!spec)
    return std::nullopt;
  // A model beside a measurement is a claim: its miss is drawn, not left to the eye.
  std::vector<std::string> sentences = {"Zero is the model met; each point is the measured median "
                                        "over the model's figure, less one."};
  if (chart.model_bound > 0)
    sentences.push_back(fmt::format(
        "Grey dashed: the bound the model states, ±{:g}%, which the committed runs of both GPU "
        "models are tested against (docs/method.md)",
        chart.model_bound * 100));
  else
    sentences.push_back("The model states no bound (docs/method.md says where it misses)");
  return ChartBlock{*spec, caption("Residual of the " + chart.model_label + ": " + chart.caption,
                                   in.page, sweep_plan(in.page, *sweep), sentences)};
}

} // namespace charts

std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published) {
  const charts::DesignInput in{page, experiment, published};
  std::vector<ChartBlock> blocks;
  for (const Chart& chart : experiment.declaration->charts)
    if (auto block = charts::chart_block(in, chart)) {
      blocks.push_back(std::move(*block));
      if (auto residual = charts::residual_block(in, chart))
        blocks.push_back(std::move(*residual));
    }
  if (!blocks.empty())
    return blocks;
  // The metrics its charts draw (every metric of an experiment that declares no chart).
  std::vector<std::string> charted;
  for (const Chart& chart : experiment.declaration->charts)
    charts::add_unique(charted, chart.metric);
  for (const auto& metric : experiment.metrics) {
    if (metric.ok_count() == 0) // nothing verified to draw (the table says why)
      continue;
    if (!charted.empty() &&
        std::find(charted.begin(), charted.end(), metric.metric) == charted.end())
      continue;
    const charts::Sweep sweep = charts::generic_sweep(in, metric);
    blocks.push_back(charts::sweep_block(
        in, sweep, metric_title(metric.title(), metric.unit) + " against " + sweep.x_title));
  }
  return blocks;
}

json build_chart_spec(const PageModel& page, const ExperimentView& experiment,
                      const MetricView& metric) {
  const std::vector<const json*> none;
  const charts::DesignInput in{page, experiment, none};
  return charts::sweep_spec(page, experiment, charts::generic_sweep(in, metric));
}

} // namespace apod::report
