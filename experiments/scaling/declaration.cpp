// scaling's declaration: each workload's speed-up against the SMs of its partition beside its
// model and ideal scaling, the memory-bound knee marked, the fitted laws in the caption.
#include "declaration.hpp"

#include "core/series.hpp"
#include "model.hpp"
#include "record.hpp"

namespace apod::scaling {

namespace {

// The partitions the plan expects: the driver's smallest (8 SMs on Hopper, estimated 2 before)
// and its multiples below the total, at most 16 of them (2 with --quick), then every SM. The run
// asks the driver (green_context.cu).
std::vector<int> partitions(const DeviceInfo& d, bool quick) {
  const int total = d.sm_count, min_size = d.cc_major >= 9 ? 8 : 2;
  const int step = quick ? min_size : partition_step(total, min_size, 16);
  std::vector<int> sizes;
  for (int want = step; want < total && (!quick || sizes.size() < 2); want += step)
    sizes.push_back(want);
  sizes.push_back(total);
  return sizes;
}

std::vector<PlannedPoint> plan(const PlanInput& in) {
  using namespace metric;
  std::vector<PlannedPoint> points = {{{{param::phase.key, "host"}}, {serial_ms.name}},
                                      {{{param::phase.key, "host_x0.1"}}, {serial_ms.name}},
                                      {{{param::phase.key, "host_x10"}}, {serial_ms.name}}};
  const auto at = [](const char* curve, int sms) {
    return json{{param::curve.key, curve}, {param::sm_count.key, sms}};
  };
  const std::vector<int> sizes = partitions(in.device, in.quick);
  for (const char* curve : {"compute", "memory", "latency"}) {
    for (const int sms : sizes) {
      PlannedPoint p{at(curve, sms), {kernel_ms.name, speedup.name, efficiency.name}};
      if (std::string(curve) == "memory")
        p.metrics.push_back(metrics::effective_bandwidth.name);
      points.push_back(std::move(p));
    }
    if (std::string(curve) == "memory")
      points.push_back({{{param::curve.key, "memory"}}, {predicted_knee.name}});
  }
  for (const double scale : {0.1, 1.0, 10.0})
    for (const int sms : sizes)
      points.push_back({json{{param::curve.key, amdahl_curve(scale)}, {param::sm_count.key, sms}},
                        {speedup.name, efficiency.name}});
  points.push_back(
      {{{param::law.key, "amdahl"}}, {amdahl_parallel_fraction.name, amdahl_limit.name}});
  for (const int sms : sizes)
    points.push_back({at("gustafson", sms),
                      {speedup.name, efficiency.name, kernel_ms.name, base_partition_ms.name}});
  points.push_back({{{param::law.key, "gustafson"}}, {gustafson_parallel_fraction.name}});
  return points;
}

Chart speedup_chart() {
  Chart c = Chart::sweep_of(metric::speedup)
                .along(param::sm_count)
                .colour(param::curve)
                .model("model_speedup", "model");
  c.y_title = "speed-up over the smallest partition (×)";
  c.ideal_extra = "n";
  c.ideal_label = "ideal (linear) scaling: S = N";
  c.rules.push_back({.from = RuleSpec::From::metric,
                     .vertical = true,
                     .metric = metric::predicted_knee.name,
                     .label = "memory-bound knee (model)"});
  c.caption_figures = {{metric::amdahl_parallel_fraction.name, "Amdahl P ="},
                       {metric::gustafson_parallel_fraction.name, "Gustafson P ="}};
  c.figures_lead = "Fitted parallel fractions (Best Practices Guide 3.1.3)";
  c.says("Speed-up of each workload's GPU phase (and of Amdahl's and Gustafson's workloads) "
         "against the SMs of its green-context partition",
         {"Red dashed: ideal scaling S = N; dashed in each workload's colour: its model (linear, "
          "the memory-bound min(SMs x per-SM bandwidth, DRAM limit), flat, and the fitted laws)."});
  return c;
}

std::vector<Extra> extras() {
  return {{"n", "SMs over the base partition's SMs"},
          {"model_speedup", "the workload's model at this partition"},
          {"model_efficiency", "the model over N"},
          {"elements", "elements of the problem"},
          {"iterations", "dependent FMAs per element"},
          {"chains", "pointer chases"},
          {"links_per_chain", "links each chase follows"},
          {"table_bytes", "bytes of the chase's table"},
          {"ns_per_link_median", "median time per link"},
          {"bytes_each", "bytes the stream reads and writes"},
          {"base_sm_count", "the base partition's SMs"},
          {"per_sm_gbs", "bandwidth per SM at the base partition"},
          {"model_limit_gbs", "the DRAM limit of the memory-bound model"},
          {"model_limit_source", "where that limit came from"},
          {"predicted_knee_sm_count", "where the memory-bound model meets its limit"},
          {"measured_knee_sm_count", "the first partition whose median reaches the limit"},
          {"measured_knee_is", "how the measured knee is found"},
          {"held_fixed_ms", "the serial phase's median, held fixed"},
          {"timed", "how the serial phase was timed"},
          {"serial_ms", "the serial phase's time"},
          {"base_parallel_ms", "the parallel phase on the base partition"},
          {"parallel_ms", "the parallel phase on this partition"},
          {"parallel_share", "the parallel phase's share of the total"},
          {"residual", "measured minus fitted speed-up"},
          {"ran_on_sm_count", "the partition the point ran on"},
          {"ci95", "the fit's 95% interval"},
          {"ci95_is", "what the interval is"},
          {"degrees_of_freedom", "the fit's degrees of freedom"},
          {"fit_of_medians", "the fit of the medians"},
          {"fits_without_limit", "repetitions whose fit gave P = 1"},
          {"min_sm_partition", "the driver's smallest partition"},
          {"partition_step", "the SMs between partitions"},
          {"sm_total", "the device's SMs"},
          {"sm_coscheduled_alignment", "the driver's co-scheduling alignment"},
          {"resident_blocks_per_sm", "resident blocks per SM of the compute kernel"},
          {"p_from_parts", "P from the base point's serial and parallel times"},
          {"p_from_parts_is", "what that P is"},
          {"residuals", "per partition: measured, fitted, residual"},
          {"residual_trend", "a runs test of the residuals' signs"},
          {"rms_residual", "the fit's root-mean-square residual"},
          {"samples_are", "what each sample of a fitted figure is"},
          {"serial_elements", "elements of the serial phase"},
          {"standard_error", "the fit's standard error (amdahl_limit: P's, times 1 / (1 - P)^2)"},
          {"serial_ratio", "this curve's serial time over the reference's (measured)"},
          {"serial_scale", "the serial work over the reference's (nominal)"},
          {"serial_levels", "per serial level: its time, ratio, fitted P and P from its parts"},
          {"identity_check", "whether the fit is an identity of its inputs (fit.hpp)"},
          {"lanes_per_warp", "chains per warp of the latency curve"}};
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Scaling with SM count: three workload classes, Amdahl and Gustafson",
    .description =
        "GPU phases confined to N SMs with green contexts (partitions of 8, 16, ... SMs on Hopper "
        "and all SMs; N = sm_count / the smallest partition's). Curves (param curve): compute "
        "(dependent FMA chains, 16 full waves of the whole GPU), memory (a 512 MiB to 512 MiB "
        "stream) and latency (16 one-thread blocks per base SM, one lane per warp, each a "
        "dependent pointer chase through a 256 MiB table) give the GPU "
        "phase's speedup over the smallest partition and efficiency = speedup / N beside each "
        "class's model in extra.model_speedup: N, min(SMs x per-SM bandwidth, DRAM limit) with "
        "its knee (predicted_knee_sm_count), and 1. amdahl: a host reduction timed alone and "
        "held fixed, then the compute phase: S = (serial + base) / (serial + on N SMs), with the "
        "host work at 0.1x, 1x and 10x (curves amdahl_serial_x0.1, amdahl, amdahl_serial_x10; "
        "phases host_x0.1, host, host_x10); one P fitted over all three with N the SM ratio. "
        "gustafson: the compute problem grown N-fold, timed on N x the SMs and on the smallest "
        "partition (base_partition_ms, the measured numerator). amdahl_parallel_fraction and "
        "gustafson_parallel_fraction: one least-squares fit per repetition; extra holds the fit "
        "of the medians, its standard error and 95% interval, the residuals, a runs test for "
        "a trend and an identity check (failed when the fit restates its inputs); amdahl_limit = "
        "1 / (1 - P). Outputs checked: FMA results bit for bit against "
        "std::fmaf, every stream word on the device, every chase's end on the host.",
    .citation = "CUDA C++ Best Practices Guide 3.1.3 (Amdahl's law, Gustafson's law), 8.2 "
                "(bandwidth); CUDA Driver API, Green Contexts",
    .version = 3,
    .order = 80,
    .chapter = Chapter::scaling,
    .params = {param::curve, param::sm_count, param::law, param::phase},
    .metrics = {metric::serial_ms, metric::kernel_ms, metric::speedup, metric::efficiency,
                metrics::effective_bandwidth, metric::predicted_knee,
                metric::amdahl_parallel_fraction, metric::amdahl_limit, metric::base_partition_ms,
                metric::gustafson_parallel_fraction},
    .extras = extras(),
    .headline = metric::speedup.name,
    .charts = {speedup_chart()},
    .plan = plan,
});

} // namespace apod::scaling
