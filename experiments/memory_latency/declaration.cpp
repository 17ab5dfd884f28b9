// memory_latency's declaration: the pointer chase's working sets, its two latency metrics, and
// the latency ladder (the sweep on log-log axes, the L1, L2 and DRAM level points labelled).
#include "declaration.hpp"
#include "chain.hpp"

namespace apod::latency {

std::vector<Extra> chase_extras() {
  return {{"nodes", "nodes of the chain: one per 128-byte line of the working set"},
          {"line_bytes", "bytes per node"},
          {"timed_steps", "dependent loads timed per sample"},
          {"warm_steps", "untimed steps before the clocks start"},
          {"warm_l2", "whether the set was read into the L2 before each sample"},
          {"resumes_each_sample", "whether each sample continues from the previous one's node"},
          {"start_node", "the node the chase starts from"},
          {"expected_node", "the node the host's walk ends on"},
          {"samples_wrong", "samples whose final node differed from the host's walk"},
          {"sm_clock_ghz", "the SM clock over the samples, from clock64 against %globaltimer"}};
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const int64_t shared = in.device.shared_bytes_per_sm > 0 ? in.device.shared_bytes_per_sm
                                                           : nominal_device().shared_bytes_per_sm;
  const LatencyProbes probes = latency_probes(shared, in.device.l2_bytes, in.quick);
  std::vector<PlannedPoint> points;
  for (const size_t bytes : working_sets(probes, in.quick)) {
    points.push_back(
        {{{level.key, sweep_level}, {working_set.key, bytes}}, {ns.name, cycles.name}});
    if (const std::string named = level_of(probes, bytes); !named.empty())
      points.push_back({{{level.key, named}, {working_set.key, bytes}}, {ns.name, cycles.name}});
  }
  return points;
}

Chart ladder(const Metric& metric) {
  Chart c = Chart::sweep_of(metric).along(working_set, true).only_where(level, sweep_level);
  c.log_y = true;
  c.limits = false;
  c.y_title = "dependent-load latency (" + metric.unit + ", log scale)";
  c.notes.push_back({.metric = metric.name,
                     .except = {level.key, sweep_level},
                     .x_param = working_set.key,
                     .label_param = level.key});
  c.says("Pointer-chase latency per step (" + metric.unit + ") against the working set",
         {"Squares: the L1, L2 and DRAM level points (a quarter of the shared memory per SM, a "
          "quarter of the L2, 16x the L2)."});
  return c;
}

std::vector<Extra> extras() {
  std::vector<Extra> all = chase_extras();
  all.push_back({"experiment_seed", "the seed each working set's chain is drawn from (XOR size)"});
  all.push_back({"plateau_step_from_smaller", "the level's step from the next-smaller set"});
  all.push_back({"plateau_flat", "whether that step is within 10%"});
  return all;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Memory latency (pointer chase)",
    .description =
        "Dependent-load latency in ns (%globaltimer) and SM cycles (clock64) per step of one "
        "thread chasing a random cyclic chain (one node per 128-byte line, in a pseudo-random "
        "order from the seed in extra) through working sets from 4 KiB to 16x the L2, loads cached "
        "in L1 (ld.global.ca, carve-out preferring L1). Sets within the L2 are read into it before "
        "each sample and walked one lap untimed first. The level points (l1, l2, dram) are the "
        "sets a quarter of the shared memory per SM, a quarter of the L2 and 16x the L2; extra "
        "says whether the curve is flat there (within 10% of the next-smaller set). Every "
        "sample's final node is checked against the host's walk of the same chain.",
    .citation = "T. Stich, Advanced CUDA Programming ('Launch Configuration': GMEM latency "
                "400-800 cycles); Notes on CUDA (Little's-law table: 800 cycles)",
    .version = 1,
    .order = 6,
    .chapter = Chapter::caches_on_chip,
    .params = {level, working_set},
    .metrics = {ns, cycles},
    .extras = extras(),
    .headline = ns.name,
    .charts = {ladder(ns), ladder(cycles)},
    .plan = plan,
});

} // namespace apod::latency
