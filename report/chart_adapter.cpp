#include "chart_adapter.hpp"

#include "charts.hpp"
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment) {
  std::vector<ChartBlock> charts;
  for (const auto& metric : experiment.metrics) {
    // Nothing verified to draw (the table says why), or not the metric the experiment charts.
    if (metric.ok_count() == 0 || !experiment.charts_metric(metric))
      continue;
    std::string caption = metric_title(metric.metric, metric.unit);
    if (experiment.chart.vega_lite.is_object()) {
      caption += ": drawn with the experiment's own Vega-Lite spec";
    } else if (page.summarise_runs()) {
      caption += fmt::format(": {} runs summarised per device model: the median of the runs' "
                             "medians; whiskers span the lowest to the highest run median",
                             page.runs.size());
    } else {
      caption += ": median of each point's samples; whiskers span min to max";
    }
    if (!experiment.chart.vega_lite.is_object() &&
        std::any_of(metric.points.begin(), metric.points.end(),
                    [](const PointView& p) { return p.ok && p.limit_gbs; }))
      caption += "; dashed line: the device's " + std::string(limit_phrase(experiment.chart.limit));
    charts.push_back({build_chart_spec(page, experiment, metric), caption});
  }
  return charts;
}

} // namespace apod::report
