// constant_memory's declaration: warp reads per clock and dependent-read latency of __constant__
// reads as a warp's lanes ask for 1 to 32 unique addresses, beside a register operand and global
// loads of the same data, with the Best Practices Guide's linear law fitted.
#include "declaration.hpp"

namespace apod::constant_memory {

const std::vector<const char*>& sources() {
  static const std::vector<const char*> all = {constant_source, register_source, global_source,
                                               ldg_source};
  return all;
}

const std::vector<int>& distinct_counts() {
  static const std::vector<int> all = {1, 2, 4, 8, 16, 32};
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const char* s : sources())
    for (const int k : distinct_counts())
      points.push_back({{{source.key, s}, {distinct.key, k}},
                        {reads_per_clock.name, cost_ratio_metric.name, latency.name}});
  return points;
}

Chart throughput_chart() {
  Chart c = Chart::sweep_of(reads_per_clock)
                .along(distinct, true, 2)
                .colour(source)
                .model(keys::model, "the fitted law: 1 / (a + b x unique addresses), per source");
  // No bound yet: the first H200 run put every point within 0.2% of its source's fit, but
  // test_declared_models holds a bound on the committed H100 and H200 batches, which do not hold
  // this experiment yet (the notes of issue 23 propose 0.05 here and on the ratio, 0.10 on the
  // latency fit, once they do).
  c.log_y = true;
  c.y_title = "warp-wide reads per clock per SM (log scale)";
  c.says("Reads per clock per SM as a warp's lanes ask for 1 to 32 unique addresses",
         {"Every SM full of 256-thread blocks, each thread 8 reads per loop trip (one per row of "
          "a 1 KB table) at an index that changes every trip; a group of lanes per address. The "
          "Best Practices Guide (9.2.6): constant reads to different addresses are serialised, "
          "the cost linear in the unique addresses; the model is the least-squares line "
          "cost = a + b x k of the clocks per warp read, per source (intercept and slope stored "
          "with each point). Stich's slides "
          "give 32 bits per warp per clock per SM on GT200 (one warp read per clock)."});
  return c;
}

Chart ratio_chart() {
  Chart c = Chart::sweep_of(cost_ratio_metric)
                .along(distinct, true, 2)
                .colour(source)
                .model(keys::model, "the guide's law without a fixed cost: k (constant only)");
  c.log_y = true;
  c.y_title = "time per warp read over the one-address time (log scale)";
  c.says("The law's residual: time(k) / time(1) against the unique addresses k",
         {"A constant read whose cost scales linearly with the unique addresses and has no fixed "
          "part takes k times the one-address time (the model, drawn for the constant source "
          "only); a fixed cost per read (the loop's arithmetic) bends it below k. A register "
          "operand and a global load of the same words (one 128-byte line per read) stay near "
          "1."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(latency)
                .along(distinct, true, 2)
                .colour(source)
                .model(keys::model, "the fitted line a + b x unique addresses, per source");
  c.log_y = true;
  c.y_title = "dependent-read latency (cycles, log scale)";
  c.says("Latency of a dependent chain of reads as a warp's lanes follow 1 to 32 chains",
         {"One warp; each lane follows a chain through a 1 KB table (each value the next byte "
          "offset); k chains, so every step reads k unique addresses. The register source is the "
          "same step computed (a multiply-add and an AND), the global ones add a 64-bit address "
          "add to each step."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Constant memory: unique addresses per warp",
    .description =
        "Reads of a __constant__ array (the constant cache) as a warp's lanes ask for k = 1, 2, "
        "4, ..., 32 unique addresses (lane l reads with group l mod k), against the same "
        "arithmetic with the operand computed in a register (the value's formula, no load) and "
        "against global loads of the same 1 KB table (plain ld.global and __ldg, L1 hits). "
        "Throughput: every SM full of 256-thread blocks, each thread 8 reads per loop trip at "
        "an index that changes every trip, the figure the warp-wide reads per clock per SM from "
        "each SM's cycle counter (clock64). Latency: one warp follows k chains through the table "
        "(each value the next byte offset), cycles per dependent step. The Best Practices "
        "Guide's law (9.2.6: the cost scales linearly with the unique addresses; one address "
        "can be as fast as a register) is fitted per source as cost(k) = a + b k (clocks per "
        "warp read, extra.fit_intercept and fit_slope; the model rate 1 / cost(k)); "
        "cost_vs_one_address is time(k) / time(1), k under the law with no fixed cost. Every "
        "thread's sum and every lane's end of chain are checked on the host.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 9.2.6 Constant Memory; Stich, "
                "Advanced CUDA Programming (seed 001): Constant Memory (32 bits per warp per "
                "clock per multiprocessor)",
    .version = 1,
    .order = 58,
    .chapter = Chapter::caches_on_chip,
    .params = {source, distinct},
    .metrics = {reads_per_clock, cost_ratio_metric, latency},
    .extras = {{"elements_wrong", "threads (or chains) whose result differed from the host's"},
               {"trips_per_thread", "loop trips per thread (8 reads each)"},
               {"steps", "dependent steps timed per lane"},
               {"blocks_per_sm", "resident blocks per SM"},
               {"fit_intercept", "the fitted law's a (clocks per warp read, or cycles)"},
               {"fit_slope", "the fitted law's b per unique address"},
               {"fit_r2", "the fit's coefficient of determination"},
               {"law_ratio", "k: the guide's law without a fixed cost"},
               {"kernel", "the launch's kernel facts"}},
    .charts = {throughput_chart(), ratio_chart(), latency_chart()},
    .plan = plan,
});

} // namespace apod::constant_memory
