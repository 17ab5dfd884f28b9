// roofline's declaration: achieved FLOP/s against arithmetic intensity in FP32 and FP64 beside
// the achievable roofline, the machine balance of each precision marked.
#include "declaration.hpp"

#include "core/theory.hpp"
#include "model.hpp"

namespace apod::roofline {

std::vector<int> counts_for(const DeviceInfo& d, int element_bytes, bool quick) {
  const auto lanes = fma_lanes_per_sm(d.cc_major, d.cc_minor);
  std::optional<double> balance;
  if (lanes)
    balance = machine_balance(
        peak_gflops(d.sm_count, element_bytes == 4 ? lanes->fp32 : lanes->fp64, d.sm_clock_khz),
        d.theoretical_bandwidth_gbs());
  return fma_counts(balance, element_bytes, quick);
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const auto& [name, bytes] : {std::pair{"fp32", 4}, std::pair{"fp64", 8}}) {
    for (const int k : counts_for(in.device, bytes, in.quick))
      points.push_back(
          {{{precision.key, name}, {fma.key, k}, {intensity.key, flops_per_byte(k, bytes)}},
           {flop_rate.name}});
    points.push_back({{{precision.key, name}}, {peak_flop_rate.name}});
  }
  return points;
}

Chart roofline_chart() {
  Chart c = Chart::sweep_of(flop_rate)
                .along(intensity, true)
                .colour(precision)
                .model(keys::model, "achievable roofline");
  c.log_y = true;
  c.y_title = "achieved GFLOP/s (log scale)";
  c.rules.push_back({.from = RuleSpec::From::extra,
                     .vertical = true,
                     .metric = peak_flop_rate.name,
                     .extra = machine_balance_key,
                     .label = "balance",
                     .unit = "FLOP/B",
                     .per_series = true});
  c.rules.push_back({.from = RuleSpec::From::published,
                     .metric = peak_flop_rate.name,
                     .label = "peak",
                     .kind = "published"});
  c.says(
      "Achieved FLOP/s against arithmetic intensity, FP32 and FP64",
      {"Dashed, in each precision's colour: the achievable roofline min(peak FLOP/s, intensity x "
       "the run's achievable bandwidth); vertical lines: the machine balance, peak FLOP/s over "
       "theoretical DRAM bandwidth."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Roofline: FLOP/s against arithmetic intensity (FP32, FP64)",
    .description =
        "Achieved FLOP/s against arithmetic intensity (FLOPs per byte of DRAM traffic). A kernel "
        "reads an array of at least 4x the L2, runs k fused multiply-adds on each element (4 "
        "independent chains per thread) and writes it back: 2k FLOPs per element over 8 bytes "
        "(FP32) or 16 bytes (FP64); k doubles from 1 to the first count whose intensity is 8x the "
        "machine balance. Each point carries the theoretical roofline min(peak, intensity x DRAM "
        "bandwidth) as extra.limit and the achievable one (the run's peak_copy bandwidth) as "
        "extra.model. Peak FLOP/s = SM clock x SMs x FP32/FP64 lanes per SM x 2 (lanes from the "
        "Programming Guide's throughput table); the peak_flop_rate point (the best median per "
        "precision) carries it with the machine balance. Every output is compared exactly with "
        "the host's FMA chain for its input value (on the device, and the first and last 16 Ki "
        "elements again on the host).",
    .citation = "Notes on CUDA (seed 002): peak FLOPS, FLOPs per byte, GMAC; CUDA C++ Programming "
                "Guide, Arithmetic Instructions (throughput table)",
    .version = 1,
    .order = 9,
    .chapter = Chapter::compute,
    .params = {precision, fma, intensity},
    .metrics = {flop_rate, peak_flop_rate},
    .extras = {{"flops", "FLOPs per sample"},
               {"elements", "elements of the array"},
               {"model_bandwidth_gbs", "the bandwidth of the achievable roofline"},
               {"model_bandwidth_source", "where that bandwidth came from"},
               {"peak_gflops", "the precision's theoretical peak"},
               {"elements_wrong", "outputs wrong, on the device"},
               {"host_elements_wrong", "outputs wrong, on the host"},
               {"host_elements_checked", "outputs checked on the host"},
               {"kernel", "the launch's kernel facts"},
               {"lanes_per_sm", "FMA lanes per SM of the precision"},
               {machine_balance_key, "peak FLOP/s over theoretical DRAM bandwidth"},
               {"machine_balance_achievable", "peak FLOP/s over the achievable bandwidth"},
               {"winner", "the params of the point whose samples the peak carries"},
               {"sm_clock_khz", "the SM clock the peak is computed at"}},
    .headline = flop_rate.name,
    .charts = {roofline_chart()},
    .plan = plan,
});

} // namespace apod::roofline
