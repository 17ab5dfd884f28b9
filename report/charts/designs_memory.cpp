// Device memory: the peaks per access type and their launch shapes, the guide's misaligned and
// strided copies beside their saturating variants and the Little's-law bound of each launch, the
// pointer-chase latency, Little's law itself and Stich's latency hiding.
#include "charts/designs.hpp"
#include "charts/heatmap.hpp"
#include "charts/littles_bound.hpp"

#include "format.hpp"

#include <fmt/format.h>

namespace apod::report::charts {

namespace {

ChartBlock access_peaks_chart(const DesignInput& in, const MetricView& peaks) {
  Sweep sweep;
  sweep.metric = &peaks;
  sweep.x = keys::access_type;
  sweep.x_title = "access type";
  sweep.mark = "bar";
  sweep.y_title = "achievable bandwidth (GB/s)";
  sweep.published = published_for(in.published, in.experiment, keys::access_peak);
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  // cudaMemcpyAsync is a copy: a marked point on the copy bar, in the series' place.
  if (const MetricView* all = drawable_metric(in.experiment, "effective_bandwidth"))
    for (const Plotted& p : plotted_as(*all, param_is("method", "memcpy"), plan))
      sweep.notes.push_back({access::copy, p.y, "memcpy", p.series, p.facet,
                             "cudaMemcpyAsync device to device: " + format_with_unit(p.y, "GB/s")});
  if (const MetricView* best = drawable_metric(in.experiment, keys::achievable_peak))
    for (const Plotted& p : plotted_as(*best, nullptr, plan)) {
      const std::string type = string_at(p.points.front()->measurement->extra, keys::access_type);
      if (!type.empty())
        sweep.notes.push_back(
            {type, p.y, "peak", p.series, p.facet,
             "the run's achievable peak (" + type + "): " + format_with_unit(p.y, "GB/s")});
    }
  return sweep_block(
      in, sweep, "Each access type's achievable peak: its best verified launch shape",
      {"Squares: \"peak\", the run's achievable peak (the best type), which DRAM figures are read "
       "against where no figure of their own access type exists; \"memcpy\", cudaMemcpyAsync "
       "device to device, a copy."});
}

// The guide's kernel beside the saturating one, with the Little's-law bound of each launch.
ChartBlock copy_with_bounds(const DesignInput& in, Sweep sweep, const std::string& what) {
  const BoundsDrawn bounds = littles_law_rules(in.page, sweep, sweep_plan(in.page, sweep));
  sweep.rules.insert(sweep.rules.end(), bounds.rules.begin(), bounds.rules.end());
  return sweep_block(in, sweep, what, {bounds.sentence});
}

} // namespace

std::vector<ChartBlock> peak_copy_charts(const DesignInput& in) {
  std::vector<ChartBlock> blocks;
  const MetricView* peaks = drawable_metric(in.experiment, keys::access_peak);
  if (peaks && has_params(*peaks, {keys::access_type}))
    blocks.push_back(access_peaks_chart(in, *peaks));
  if (const MetricView* all = drawable_metric(in.experiment, "effective_bandwidth"))
    if (auto heatmap = launch_heatmap(*all))
      blocks.push_back(std::move(*heatmap));
  return blocks;
}

std::vector<ChartBlock> offset_copy_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "effective_bandwidth", {"offset"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "offset (words)";
  sweep.colour_title = "kernel, word size";
  return {copy_with_bounds(in, sweep,
                           "Effective bandwidth of the misaligned copy against the "
                           "offset, the guide's kernel beside the saturating one")};
}

std::vector<ChartBlock> stride_copy_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "effective_bandwidth", {"stride"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "stride (words)";
  sweep.model_metric = drawable_metric(in.experiment, "sector_model_bandwidth");
  sweep.model_label = "32-byte-sector model";
  std::string what = "Effective bandwidth (useful bytes) of the strided copy against the stride";
  if (sweep.model_metric)
    what += "; dashed, in each kernel's colour: the 32-byte-sector model from the same kernel's "
            "stride 1";
  return {copy_with_bounds(in, sweep, what)};
}

std::vector<ChartBlock> memory_latency_charts(const DesignInput& in) {
  std::vector<ChartBlock> blocks;
  for (const char* name : {latency_names::ns_metric, latency_names::cycles_metric}) {
    const MetricView* metric = drawable_metric(in.experiment, name);
    if (!metric || !has_params(*metric, {latency_names::level_key, "working_set_bytes"}))
      continue;
    Sweep sweep = catalog_sweep(in, *metric);
    sweep.keep = param_is(latency_names::level_key, "sweep");
    sweep.colour.clear();
    sweep.mark = "line";
    sweep.log_x = true;
    sweep.log_y = true;
    sweep.device_limits = false;
    sweep.y_title = std::string("dependent-load latency (") + metric->unit + ", log scale)";
    sweep.x_title = "working set (log scale)";
    const SeriesPlan plan = sweep_plan(in.page, sweep);
    const Keep level = [](const PointView& p) {
      const std::string value = string_at(p.measurement->params, latency_names::level_key);
      return !value.empty() && value != "sweep";
    };
    for (const Plotted& p : plotted_as(*metric, level, plan)) {
      std::string label = string_at(*p.params, latency_names::level_key);
      for (auto& c : label)
        c = char(std::toupper(static_cast<unsigned char>(c)));
      const std::string who = who_of(plan, p);
      sweep.notes.push_back(
          {axis_value(*p.params, "working_set_bytes"), p.y, label, p.series, p.facet,
           (who.empty() ? "" : who + ": ") + label + " " + format_with_unit(p.y, metric->unit)});
    }
    blocks.push_back(sweep_block(
        in, sweep,
        std::string("Pointer-chase latency per step (") + metric->unit +
            ") against the working set",
        {"Squares: the L1, L2 and DRAM level points (a quarter of the shared memory per SM, a "
         "quarter of the L2, 16x the L2)."}));
  }
  return blocks;
}

std::vector<ChartBlock> littles_law_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "effective_bandwidth", {"in_flight_bytes", "launch"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "bytes of loads in flight per SM (log scale)";
  sweep.colour_title = "launch";
  sweep.model_key = keys::model_gbs;
  sweep.model_label = "Little's law";
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  // The 90% point, measured and modelled, per device model (the median over its runs), as
  // vertical rules (KB = 1000 bytes, as stored).
  if (const MetricView* crossing = drawable_metric(in.experiment, "in_flight_per_sm")) {
    const auto points = kept_points(*crossing, nullptr);
    const SeriesPlan per_model = summarised_plan(points, "", plan.facet_by_model);
    for (const Plotted& p : plot_points(points, per_model)) {
      const std::string who = per_model.models_apart ? p.device_model + " " : "";
      sweep.rules.push_back({p.y * 1e3, who + "90%, measured: " + format_number(p.y) + " KB", true,
                             "", p.facet, "marker"});
      if (const auto model = extra_median(p, "model_in_flight_per_sm_kb"))
        sweep.rules.push_back({*model * 1e3,
                               who + "90%, Little's law: " + format_number(*model) + " KB", true,
                               "", p.facet, "marker"});
    }
  }
  return {sweep_block(
      in, sweep, "Effective bandwidth of a copy against the bytes of loads each SM keeps in flight",
      {"Dashed: Little's law, min(achievable peak, 2 x SMs x bytes in flight per SM / DRAM "
       "latency), from the same run's memory_latency and peak_copy; vertical "
       "lines: where the persistent launches reach 90% of the achievable peak, measured and by "
       "the model. The guide's offsetCopy launch is its own series."})};
}

std::vector<ChartBlock> latency_hiding_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "effective_bandwidth", {"threads_per_sm"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "resident threads per SM";
  sweep.colour_title = "block size (threads)";
  sweep.model_key = keys::model_gbs;
  sweep.model_label = "Little's law";
  sweep.published = published_for(in.published, in.experiment, "threads_per_sm");
  for (const json* figure : published_for(in.published, in.experiment, sweep.metric->metric))
    sweep.published.push_back(figure);
  return {sweep_block(
      in, sweep,
      "Effective bandwidth of Stich's read-increment-write kernel against the resident threads "
      "per SM",
      {"Dashed: Little's law for one 4-byte load in flight per resident thread, from the same "
       "run's DRAM latency and achievable peak; the occupancy of each point is "
       "in its table row."})};
}

} // namespace apod::report::charts
