// instruction_throughput's declaration: latency and throughput per arithmetic operation class,
// the throughput swept over independent chains per thread x warps per SM, beside the Programming
// Guide's table and Little's law for the arithmetic units.
#include "declaration.hpp"

#include "model.hpp"

namespace apod::throughput {

std::vector<int> ilp_values(bool quick) {
  if (quick)
    return {1, 4};
  return {1, 2, 4, 8};
}

std::vector<int> warp_values(bool quick) {
  if (quick)
    return {1, 8, 32};
  return {1, 2, 4, 8, 16, 32};
}

namespace {

Param labelled_op_class() {
  Param p = op_class;
  for (const OpInfo& i : op_classes())
    p.labels.push_back({i.name, i.label});
  return p;
}

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const OpInfo& op : op_classes()) {
    points.push_back({{{op_class.key, op.name}}, {latency.name}});
    for (const int w : warp_values(in.quick))
      for (const int i : ilp_values(in.quick))
        points.push_back(
            {{{op_class.key, op.name}, {ilp.key, i}, {warps.key, w}}, {results_per_clock.name}});
    points.push_back({{{op_class.key, op.name}}, {peak_results_per_clock.name, peak_op_rate.name}});
  }
  return points;
}

Chart heatmap_chart() {
  Chart c = Chart::heatmap_of(results_per_clock).along(ilp);
  c.y = warps.key;
  c.panels = {op_class.key};
  c.says("Results per clock per SM of each operation class over independent chains per thread "
         "(ILP, across) and warps per SM (TLP, down)",
         {"Each cell is one launch shape's median; one panel per class."});
  return c;
}

Chart class_chart(const OpInfo& op) {
  Chart c = Chart::sweep_of(results_per_clock)
                .along(warps, true, 2)
                .colour(ilp)
                .only_where(op_class, op.name)
                .model(keys::model, "Little's law per scheduler");
  c.y_title = "results per clock per SM";
  c.says(std::string(op.label) + ": throughput against warps per SM, one line per ILP",
         {"Dashed: Little's law for the unit, per warp scheduler (4 per SM): min(peak / 4, "
          "warps on the scheduler x ILP x 32 lanes x results per lane / latency), summed, with "
          "this run's measured latency and best throughput; no bound is claimed, the residual is "
          "drawn for reading. The rule is the Programming Guide's throughput where its table "
          "gives the class one."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(latency).along(op_class);
  c.mark = "bar";
  c.y_title = "latency (cycles per dependent operation)";
  c.says("Latency of each operation class: one warp's dependent chain, cycles per operation",
         {"The Best Practices Guide (10.2): most arithmetic instructions take about 4 cycles on "
          "compute capability 7.0."});
  return c;
}

Chart peak_chart() {
  Chart c = Chart::sweep_of(peak_results_per_clock).along(op_class);
  c.mark = "bar";
  c.y_title = "results per clock per SM";
  c.says("Each class's best sweep point, measured again for at least 0.12 s, against the "
         "Programming Guide's throughput table",
         {"A half2 FMA counts 2 results, __dp4a 4 (its four 8-bit multiply-adds); the table "
          "has no __dp4a row. Each bar's point also states the results in flight the sweep "
          "needed for 90% of its best beside Little's law, latency x throughput (the Notes on "
          "CUDA: 20 cycles x 32 (Fermi) or 192 (Kepler) operations per cycle = 640 or 3840)."});
  return c;
}

std::vector<Chart> charts() {
  std::vector<Chart> all = {heatmap_chart()};
  for (const OpInfo& op : op_classes())
    all.push_back(class_chart(op));
  all.push_back(latency_chart());
  all.push_back(peak_chart());
  return all;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Arithmetic latency and throughput per operation class",
    .description =
        "Latency and throughput of six arithmetic operation classes, one SASS instruction per "
        "step of a chain: FP32 FMA (__fmaf_rn: FFMA), FP64 FMA (__fma_rn: DFMA), FP16 half2 FMA "
        "(fma.rn.f16x2: HFMA2, 2 results), INT32 multiply-add (unsigned a * b + c: IMAD), INT8 "
        "dot product (__dp4a: IDP.4A, 4 results, its four multiply-adds) and the "
        "special-function unit (rsqrt.approx.ftz.f32: MUFU.RSQ). Latency: one warp runs a "
        "dependent chain; the cycles between clock64 readings over the steps. Throughput: one "
        "block per SM of 1 to 32 warps (each block reserves over half the SM's shared memory, so "
        "no two share an SM), each thread running 1 to 8 independent chains (ILP); "
        "the results all lanes produced over each SM's own cycles (clock64, each warp's start "
        "reading an input of its chains and its end reading waiting on their results; per SM "
        "the earliest start to the latest end, mean over SMs), against the CUDA C++ Programming "
        "Guide's table of results per clock per SM where "
        "it gives the class one (extra.limit). extra.model is Little's law per warp scheduler "
        "(min(peak / 4, warps there x ILP x 32 x results per lane / latency), summed over 4) "
        "with the measured latency and best throughput. Each class's best point is measured "
        "again with 32x the steps for at least 0.12 s: its results per clock, its rate over the "
        "GPU (CUDA events) "
        "and, where the energy counter answers, its operations per joule; beside them the "
        "results in flight the sweep needed for 90% of that best against latency x throughput. "
        "Inputs come from memory, every chain's result is stored and checked on the host: "
        "bit for bit against the same arithmetic on the host (fma, a correctly rounded half "
        "FMA, integer arithmetic), the rsqrt chains within 1e-5 relative.",
    .citation =
        "CUDA C++ Best Practices Guide 10.2 (register dependencies, ~4 cycles); Notes on "
        "CUDA (seed 002): ALU latency x throughput (Little's law); Tuning CUDA Applications "
        "for Pascal 1.4.2 (half2, __dp4a); CUDA C++ Programming Guide, Arithmetic "
        "Instructions (throughput table)",
    .version = 1,
    .order = 10,
    .chapter = Chapter::compute,
    .params = {labelled_op_class(), ilp, warps},
    .metrics = {results_per_clock, latency, peak_results_per_clock, peak_op_rate},
    .extras = {{"elements_wrong", "chain results that differed from the host's"},
               {"elements_checked", "chain results compared with the host's"},
               {"steps", "dependent steps per chain"},
               {"instruction", "the SASS instruction each step compiles to"},
               {"results_per_lane_op", "results one lane's instruction counts (2 half2, 4 dp4a)"},
               {"results_in_flight", "warps x ILP x 32 x results per lane, per SM"},
               {"model_theoretical", "Little's law with the table's throughput"},
               {"model_latency_cycles", "the latency the model takes (this run's)"},
               {"model_peak", "the peak the model takes (this run's best sweep point)"},
               {"op_rate_gops", "results per second over the GPU, median, from CUDA events"},
               {"blocks", "blocks launched (one per SM asked)"},
               {"max_blocks_on_one_sm", "most blocks that ran on one SM"},
               {"fraction_of_theoretical", "the measured figure over the table's"},
               {"winner", "the sweep point the peak was measured at"},
               {"in_flight_at_90pct",
                "results in flight per SM of the sweep's smallest point at 90% of its best"},
               {"littles_law_in_flight", "measured latency x measured peak, results per SM"},
               {"ops_per_watt", "operations per joule over the point's sampling window"},
               {"watts", "mean GPU power over the point's sampling window"},
               {"sm_clock_khz", "the SM clock the theoretical rate is computed at"}},
    .headline = peak_op_rate.name,
    .charts = charts(),
    .plan = plan,
});

} // namespace apod::throughput
