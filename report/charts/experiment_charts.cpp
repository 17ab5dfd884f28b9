// Which charts an experiment's section shows: each chart its declaration names, drawn by its
// shape; where none can be drawn from the stored points (another version, an experiment the
// catalog lacks), one generic chart per metric.
#include "charts/experiment_charts.hpp"

#include "charts/bars.hpp"
#include "charts/heatmap.hpp"
#include "charts/series.hpp"
#include "charts/sweep.hpp"
#include "charts/sweep_of.hpp"
#include "charts/tooltips.hpp"
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
  ModelMiss miss;
  const auto spec = residual_spec(in.page, in.experiment, *sweep, &miss);
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
  const std::string missed = model_miss_sentence(miss, chart.model_bound, chart.model_label);
  sentences.push_back(missed);
  return ChartBlock{*spec,
                    caption("Residual of the " + chart.model_label + ": " + chart.caption, in.page,
                            sweep_plan(in.page, *sweep), sentences),
                    missed};
}

// The sweep again as % of each device's own limit, beside the published figures as % of the
// limit their sources state for their devices (issue 25): where a source published figures of
// an older GPU, their absolute values lie on the axis of a chart scaled to today's, and the
// shape they were published to show (the drop when misaligned) is invisible.
std::optional<ChartBlock> share_block(const DesignInput& in, const Chart& chart) {
  if (chart.shape != ChartShape::sweep)
    return std::nullopt;
  auto sweep = declared_sweep(in, chart);
  if (!sweep)
    return std::nullopt;
  const LimitKind kind = declared_limit(in.experiment, chart.metric);
  std::vector<const json*> with_limit, without;
  for (const json* figure : sweep->published)
    (published_pct_of_limit(*figure, kind) ? with_limit : without).push_back(figure);
  const PointView* limited = nullptr;
  for (const auto& p : sweep->metric->points)
    if (!limited && p.ok && p.limit_gbs)
      limited = &p;
  if (with_limit.empty() || !limited)
    return std::nullopt;
  Sweep share = *sweep;
  share.as_pct_of_limit = true;
  share.limit_kind = kind;
  share.published = with_limit;
  share.model_key.clear();
  share.model_metric = nullptr;
  share.ideal = nullptr;
  share.notes.clear();
  share.device_limits = false;
  share.log_y = false;
  share.rules = {{100, "each device's theoretical limit", false, "", "", "limit"}};
  share.y_title = "% of its own device's limit";
  const char* field =
      kind == LimitKind::pcie ? "theoretical_pcie_gbs" : "theoretical_bandwidth_gbs";
  std::vector<std::string> devices, left_off;
  for (const json* figure : with_limit)
    add_unique(devices, string_at(*figure, "device") + " " +
                            format_with_unit(figure->at(field).get<double>(), "GB/s"));
  for (const json* figure : without)
    add_unique(left_off, string_at(*figure, "device"));
  const auto joined = [](const std::vector<std::string>& names, const char* between) {
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
      text += (i ? between : "") + names[i];
    return text;
  };
  std::vector<std::string> sentences = {
      "Each measured point is a percentage of its own device's limit (" +
      limit_words_of(in.experiment, *limited) +
      "); each published figure a percentage of the limit its source states for its device (" +
      joined(devices, "; ") +
      "), so the shapes compare across GPU generations, not the absolute rates."};
  if (!left_off.empty())
    sentences.push_back(
        "Left off, their sources stating no limit for the device: " + joined(left_off, ", ") + ".");
  return sweep_block(in, share, "The same as a share of each device's limit: " + chart.caption,
                     sentences);
}

} // namespace charts

std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment,
                                          const std::vector<const json*>& published) {
  const charts::DesignInput in{page, experiment, published};
  std::vector<ChartBlock> blocks;
  for (const Chart& chart : experiment.declaration->charts)
    if (auto block = charts::chart_block(in, chart)) {
      blocks.push_back(std::move(*block));
      if (auto share = charts::share_block(in, chart))
        blocks.push_back(std::move(*share));
      const std::size_t main = blocks.size() - 1;
      if (auto residual = charts::residual_block(in, chart)) {
        // The model's miss is said under the chart that draws the model too.
        if (!residual->miss.empty())
          blocks[main].caption += " " + residual->miss;
        blocks.push_back(std::move(*residual));
      }
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
