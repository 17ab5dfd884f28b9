// Compute and on-chip memory: the roofline, shared-memory bank conflicts, the L2 persisting
// window and scaling with SM count, each beside its model.
#include "charts/designs.hpp"

#include "format.hpp"

#include <fmt/format.h>

namespace apod::report::charts {

namespace {

// "amdahl 0.934 [0.931, 0.937]": a fitted figure with the interval its extra stores.
std::string fitted_text(const Plotted& p, const std::string& unit) {
  std::string text = format_with_unit(p.y, unit);
  const json& ci = member(p.points.front()->measurement->extra, "ci95");
  if (p.points.size() == 1 && ci.is_array() && ci.size() == 2 && ci[0].is_number() &&
      ci[1].is_number())
    text += " (95% interval " + format_number(ci[0].get<double>()) + " – " +
            format_number(ci[1].get<double>()) + ")";
  return text;
}

} // namespace

std::vector<ChartBlock> roofline_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "flop_rate", {"flops_per_byte", "precision"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "arithmetic intensity (FLOP per byte of DRAM traffic, log scale)";
  sweep.y_title = "achieved GFLOP/s (log scale)";
  sweep.log_y = true;
  sweep.colour_title = "precision";
  sweep.model_key = keys::model;
  sweep.model_label = "achievable roofline";
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  // Machine balance: where the theoretical roofline turns from memory- to compute-bound.
  if (const MetricView* peak = drawable_metric(in.experiment, "peak_flop_rate"))
    for (const Plotted& p : plotted_as(*peak, nullptr, plan))
      if (const auto balance = extra_median(p, "machine_balance"))
        sweep.rules.push_back({*balance,
                               "balance " + string_at(*p.params, "precision") + ": " +
                                   format_number(*balance) + " FLOP/B",
                               true, p.series, p.facet, "marker"});
  for (const json* figure : published_for(in.published, in.experiment, "peak_flop_rate"))
    sweep.rules.push_back(
        {figure->at("value").get<double>(),
         string_at(*figure, "device") + " peak " +
             string_at(member(*figure, "params"), "precision") +
             " (published): " + format_with_unit(figure->at("value").get<double>(), "GFLOP/s"),
         false, "", "", "published"});
  return {sweep_block(
      in, sweep, "Achieved FLOP/s against arithmetic intensity, FP32 and FP64",
      {"Dashed, in each precision's colour: the achievable roofline min(peak FLOP/s, intensity x "
       "the run's achievable bandwidth); vertical lines: the machine balance, peak FLOP/s over "
       "theoretical DRAM bandwidth."})};
}

std::vector<ChartBlock> bank_conflicts_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "shared_bytes_per_clock", {"access"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.x_title = "access pattern (conflict degree)";
  sweep.y_title = "shared-memory throughput (bytes per clock per SM)";
  sweep.model_key = keys::model;
  sweep.model_label = "conflict-free figure / degree";
  return {sweep_block(in, sweep,
                      "Shared-memory throughput of a warp's 4-byte reads as the stride makes them "
                      "conflict",
                      {"Ticks: the model, the conflict-free figure divided by the conflict "
                       "degree."})};
}

std::vector<ChartBlock> l2_persistence_charts(const DesignInput& in) {
  std::vector<ChartBlock> blocks;
  if (const MetricView* speedup = drawable_metric(in.experiment, "speedup_vs_no_window");
      speedup && has_params(*speedup, {"region_over_set_aside", "window"})) {
    Sweep sweep = catalog_sweep(in, *speedup);
    sweep.x = "region_over_set_aside";
    sweep.x_title = "persistent region / persisting set-aside";
    sweep.log_x = false;
    sweep.y_title = "speed-up over no access window (×)";
    sweep.colour_title = "access window";
    sweep.rules.push_back({1.0, "region = set-aside", true, "", "", "marker"});
    sweep.rules.push_back({1.0, "no gain", false, "", "", "marker"});
    blocks.push_back(sweep_block(
        in, sweep,
        "Speed-up of the sliding-window kernel over the same kernel with no access window, "
        "against the persistent region's size over the set-aside",
        {"hit_ratio_1 marks the whole region persisting; tuned sets hitRatio = set-aside / "
         "region (Best Practices Guide 9.2.2.2)."}));
  }
  if (const MetricView* bandwidth = drawable_metric(in.experiment, "effective_bandwidth");
      bandwidth && has_params(*bandwidth, {"persistent_bytes", "window"})) {
    Sweep sweep = catalog_sweep(in, *bandwidth);
    sweep.log_x = true;
    sweep.x_title = "persistent region (log scale)";
    sweep.colour_title = "access window";
    const SeriesPlan plan = sweep_plan(in.page, sweep);
    std::vector<double> drawn;
    for (const Plotted& p : plotted_as(*bandwidth, nullptr, plan))
      if (const auto set_aside = extra_median(p, "set_aside_bytes");
          set_aside && std::find(drawn.begin(), drawn.end(), *set_aside) == drawn.end()) {
        drawn.push_back(*set_aside);
        sweep.rules.push_back(
            {*set_aside, "set-aside " + format_bytes(*set_aside), true, "", p.facet, "marker"});
      }
    blocks.push_back(sweep_block(in, sweep,
                                 "Effective bandwidth of the sliding-window kernel against the "
                                 "persistent region, per access window"));
  }
  return blocks;
}

std::vector<ChartBlock> scaling_charts(const DesignInput& in) {
  auto designed = designed_sweep(in, "speedup", {"curve", "sm_count"});
  if (!designed)
    return {};
  Sweep& sweep = *designed;
  sweep.y_title = "speed-up over the smallest partition (×)";
  sweep.colour_title = "workload";
  sweep.model_key = "model_speedup";
  sweep.model_label = "model";
  sweep.ideal = [](const Plotted& p) { return extra_median(p, "n"); };
  sweep.ideal_label = "ideal (linear) scaling: S = N";
  const SeriesPlan plan = sweep_plan(in.page, sweep);
  if (const MetricView* knee = drawable_metric(in.experiment, "predicted_knee_sm_count"))
    for (const Plotted& p : plotted_as(*knee, nullptr, plan))
      sweep.rules.push_back({p.y, "memory-bound knee (model): " + format_number(p.y) + " SMs", true,
                             "", p.facet, "marker"});
  std::vector<std::string> fits;
  for (const char* name : {"amdahl_parallel_fraction", "gustafson_parallel_fraction"})
    if (const MetricView* fraction = drawable_metric(in.experiment, name))
      for (const Plotted& p : plotted_as(*fraction, nullptr, plan))
        fits.push_back(
            fmt::format("{}{} P = {}", who_of(plan, p).empty() ? "" : who_of(plan, p) + ": ",
                        name[0] == 'a' ? "Amdahl" : "Gustafson", fitted_text(p, fraction->unit)));
  std::string fitted;
  for (std::size_t i = 0; i < fits.size(); ++i)
    fitted += (i ? "; " : "Fitted parallel fractions (Best Practices Guide 3.1.3): ") + fits[i];
  return {sweep_block(
      in, sweep,
      "Speed-up of each workload's GPU phase (and of Amdahl's and Gustafson's workloads) against "
      "the SMs of its green-context partition",
      {"Red dashed: ideal scaling S = N; dashed in each workload's colour: its model (linear, "
       "the memory-bound min(SMs x per-SM bandwidth, DRAM limit), flat, and the fitted laws).",
       fitted.empty() ? "" : fitted + "."})};
}

} // namespace apod::report::charts
