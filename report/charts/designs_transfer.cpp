// Transfers: host-device bandwidth per memory kind and direction against its PCIe limits, and
// the guide's staged copy beside its model and the sequential baseline.
#include "charts/designs.hpp"

#include "format.hpp"

namespace apod::report::charts {

std::vector<ChartBlock> host_transfer_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "effective_bandwidth", {"bytes"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "transfer size (log scale)";
  sweep.colour_title = "direction and memory";
  // Short transfers are timed several to a sample (extra.transfers_per_sample): say which.
  sweep.shape_of = [](const PointView& p) {
    const json& extra = p.measurement->extra;
    return has_number(extra, "transfers_per_sample") &&
                   extra.at("transfers_per_sample").get<double>() > 1
               ? "batched: several transfers a sample"
               : "one transfer a sample";
  };
  sweep.shape_title = "timing";
  return {sweep_block(in, sweep,
                      "Effective bandwidth of host-device transfers against the transfer size: "
                      "pageable and pinned copies each way, and zero copy (bytes read plus "
                      "written over the link at once)")};
}

std::vector<ChartBlock> staged_copy_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "total_ms", {"n_streams", "mode"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.keep = param_is("mode", "staged");
  sweep.colour.clear();
  sweep.log_x = true;
  sweep.log_base = 2;
  sweep.x_title = "nStreams (log scale)";
  sweep.y_title = "time from the first copy to the last kernel (ms)";
  sweep.device_limits = false;
  sweep.model_metric = drawable_metric(in.experiment, "model_ms");
  sweep.model_label = "the guide's model";
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  for (const Plotted& p : plotted_as(*sweep.metric, param_is("mode", "sequential"), plan))
    sweep.rules.push_back({p.y,
                           "sequential (whole copy, then kernel): " + format_with_unit(p.y, "ms"),
                           false, p.series, p.facet, "baseline"});
  // tT and tE per device model (the median over its runs), for the caption.
  std::vector<std::string> alone;
  for (const char* name : {"transfer_ms", "kernel_ms"})
    if (const MetricView* metric = drawable_metric(in.experiment, name)) {
      const auto points = kept_points(*metric, nullptr);
      const SeriesPlan per_model = summarised_plan(points, "", false);
      for (const Plotted& p : plot_points(points, per_model)) {
        const std::string who = who_of(per_model, p);
        alone.push_back((who.empty() ? "" : who + ": ") +
                        (name[0] == 't' ? "tT (copy alone) " : "tE (kernel alone) ") +
                        format_with_unit(p.y, "ms"));
      }
    }
  std::string alone_text;
  for (std::size_t i = 0; i < alone.size(); ++i)
    alone_text += (i ? "; " : "") + alone[i];
  return {sweep_block(
      in, sweep, "The staged copy's time from the first copy to the last kernel against nStreams",
      {"Dashed: the guide's model, tE + tT / nStreams when the kernel is the longer, else tT + "
       "tE / nStreams (Best Practices Guide 9.1.2); dotted: the sequential version, the whole "
       "copy then the kernel, measured.",
       alone_text.empty() ? "" : alone_text + "."})};
}

} // namespace apod::report::charts
