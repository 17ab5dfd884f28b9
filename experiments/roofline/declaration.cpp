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
    const std::vector<int> counts = counts_for(in.device, bytes, in.quick);
    for (const int k : counts)
      points.push_back(
          {{{precision.key, name}, {fma.key, k}, {intensity.key, flops_per_byte(k, bytes)}},
           {flop_rate.name}});
    for (int k = 2 * counts.back(); k <= max_fma_per_element; k *= 2)
      points.push_back(
          {{{precision.key, name}, {fma.key, k}, {intensity.key, flops_per_byte(k, bytes)}},
           {flop_rate.name},
           "while the last two points still differ by more than 1.5% (the curve not yet flat)"});
    points.push_back({{{precision.key, name}}, {peak_flop_rate.name}});
  }
  return points;
}

Chart roofline_chart() {
  Chart c = Chart::sweep_of(flop_rate)
                .along(intensity, true)
                .colour(precision)
                .model(keys::model, "soft-knee roofline")
                .within(soft_knee_bound);
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
  c.says("Achieved FLOP/s against arithmetic intensity, FP32 and FP64",
         {"Dashed, in each precision's colour: the soft-knee roofline: per FLOP, t = max(tm, tc) "
          "+ s x min(tm, tc), tm = 1 / (intensity x the run's copy bandwidth), tc = 1 / peak, "
          "where s is the share of the resident warps that must wait on loads at once to keep "
          "DRAM busy (Little's law: bandwidth x DRAM latency over the bytes all resident warps "
          "hold in flight), the part of the shorter phase nothing hides. s is computed from the "
          "device, the kernel's occupancy and memory_latency's figure, not fitted. The sweep "
          "doubles k until the last two points agree within 1.5%. Vertical lines: the machine "
          "balance, peak FLOP/s over theoretical DRAM bandwidth."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Roofline: FLOP/s against arithmetic intensity (FP32, FP64)",
    .description =
        "Achieved FLOP/s against arithmetic intensity (FLOPs per byte of DRAM traffic). A kernel "
        "reads an array of at least 1 GiB (and 4x the L2), runs k fused multiply-adds on each "
        "element (4 independent chains per thread) and writes it back: 2k FLOPs per element over "
        "8 bytes (FP32) or 16 bytes (FP64); each sample times two launches, so the first's "
        "write-back falls inside the events. k doubles from 1 to the first count whose intensity "
        "is 8x the machine balance, then on while the last two points differ by more than 1.5%. "
        "Each point carries the theoretical roofline min(peak, intensity x DRAM bandwidth) as "
        "extra.limit, the achievable one (the run's peak_copy bandwidth) as "
        "extra.achievable_roofline_gflops and the soft-knee model as extra.model: per FLOP "
        "max(tm, tc) + s x min(tm, tc), s = min(1, bandwidth x DRAM latency / (SMs x resident "
        "warps x bytes each warp loads at once)). Peak FLOP/s = SM clock x SMs x FP32/FP64 lanes "
        "per SM x 2 (lanes from the "
        "Programming Guide's throughput table); the peak_flop_rate point (the best median per "
        "precision) carries it with the machine balance. Every output is compared exactly with "
        "the host's FMA chain for its input value (on the device, and the first and last 16 Ki "
        "elements again on the host).",
    .citation = "Notes on CUDA (seed 002): peak FLOPS, FLOPs per byte, GMAC; CUDA C++ Programming "
                "Guide, Arithmetic Instructions (throughput table)",
    .version = 2,
    .order = 9,
    .chapter = Chapter::compute,
    .params = {precision, fma, intensity},
    .metrics = {flop_rate, peak_flop_rate},
    .extras = {{"flops", "FLOPs per sample"},
               {"elements", "elements of the array"},
               {"model_bandwidth_gbs", "the bandwidth of the achievable roofline"},
               {"achievable_roofline_gflops", "min(peak, intensity x model_bandwidth_gbs)"},
               {"waiting_share", "the soft-knee model's share s of warps waiting on loads"},
               {"dram_latency_ns", "the DRAM latency the model takes"},
               {"dram_latency_source", "where that latency came from"},
               {"warps_per_sm", "resident warps per SM of the kernel"},
               {"launches_per_sample", "kernel launches inside one timed sample"},
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
