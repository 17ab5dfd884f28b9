// memory_latency's declaration: the pointer chase's working sets, its two latency metrics, and
// the latency ladder (the sweep on log-log axes, the L1, L2 and DRAM level points labelled).
#include "declaration.hpp"
#include "chain.hpp"
#include "ladder.hpp"

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
  const std::vector<LadderProbe> probes = ladder_probes(shared, in.device.l2_bytes);
  std::vector<PlannedPoint> points;
  for (const size_t bytes : ladder_working_sets(shared, in.device.l2_bytes, in.quick)) {
    points.push_back(
        {{{level.key, sweep_level}, {working_set.key, bytes}}, {ns.name, cycles.name}});
    for (const LadderProbe& probe : probes)
      if (probe.bytes == bytes)
        points.push_back(
            {{{level.key, probe.level}, {working_set.key, bytes}}, {ns.name, cycles.name}});
  }
  if (!in.quick) // five sets cannot show a plateau
    for (const char* detected : {"l1", "l2_near", "l2"})
      points.push_back({{{level.key, detected}}, {detected_size.name}});
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
  c.says("Pointer-chase latency per step (" + metric.unit +
             ") against the working set, every "
             "sample a full lap of the set on one SM",
         {"Squares: the level points (l1: a quarter of the shared memory per SM; l2: a quarter of "
          "the L2, its near partition; l2_far: 7/8 of the L2; dram: twice the L2). The plateaus "
          "and the level sizes detected from them are in detected_size_bytes."});
  return c;
}

std::vector<Extra> extras() {
  std::vector<Extra> all = chase_extras();
  all.push_back({"experiment_seed", "the seed each working set's chain is drawn from (XOR size)"});
  all.push_back({"laps_per_sample", "timed steps over the set's lines: at least one lap"});
  all.push_back({"sm", "the SM every launch of the ladder ran on (%smid)"});
  all.push_back({"plateaus", "the plateaus of the curve of medians: latency and extent"});
  all.push_back({"plateaus_found", "how many plateaus the detection found"});
  all.push_back({"dram_found", "whether the last plateau lies past 1.5x the L2"});
  all.push_back({"of_medians", "the sizes detected from the curve of medians"});
  all.push_back({"device_l2_bytes", "the L2 size the driver reports"});
  all.push_back({"detected_as", "what a detected size is"});
  return all;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Memory latency (pointer chase)",
    .description =
        "Dependent-load latency in ns (%globaltimer) and SM cycles (clock64) per step of one "
        "thread chasing a random cyclic chain (one node per 128-byte line, in a pseudo-random "
        "order from the seed in extra) through working sets from 1/16 of the shared memory per SM "
        "to twice the L2, loads cached in L1 (ld.global.ca, carve-out preferring L1). The chase is "
        "pinned to one SM (extra.sm: many one-thread blocks, the one on that SM runs it). Each "
        "set is walked one full lap untimed, then 3 timed samples of at least one full lap each "
        "(every line once per lap, each last touched a lap earlier), each resuming where the last "
        "stopped; sets up to 1 MiB walk one more untimed lap in the same launch first, as the L1 "
        "is emptied between launches. Level points: l1 (a quarter of the shared memory per SM), l2 "
        "(a quarter of the "
        "L2: its near partition), l2_far (7/8 of the L2), dram (twice the L2). "
        "detected_size_bytes: the plateaus of the curve (least-squares segmentation of log "
        "latency) give the L1, the near L2 partition and the whole L2 as the largest set on each, "
        "one detection per repetition. Every sample's final node is checked against the host's "
        "position in the same chain.",
    .citation = "Jia et al., Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking "
                "(2018), fine-grained pointer chase; gpu-benches gpu-latency (H100 far L2 ~475 "
                "cycles past ~25 MB); T. Stich, Advanced CUDA Programming (GMEM latency 400-800 "
                "cycles)",
    .version = 2,
    .order = 6,
    .chapter = Chapter::caches_on_chip,
    .params = {level, working_set},
    .metrics = {ns, cycles, detected_size},
    .extras = extras(),
    .headline = ns.name,
    .charts = {ladder(ns), ladder(cycles)},
    .plan = plan,
});

} // namespace apod::latency
