// cache_bandwidth's declaration: read bandwidth against the working set from 16 KiB to 4x the
// L2 (each block rereading the whole set for the L1, the whole GPU sharing one set for the L2 and
// DRAM), write bandwidth at L2-resident and DRAM sets, and the levels read off the curves (their
// plateau bandwidths and sizes, beside memory_latency's ladder).
#include "declaration.hpp"

namespace apod::cache_bw {
namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const char* p : patterns)
    for (const size_t bytes :
         working_sets(p, shared_bytes_of(in.device), l2_bytes_of(in.device), in.quick, in.full))
      points.push_back({{{pattern.key, p}, {working_set.key, bytes}}, {bandwidth.name}});
  if (in.quick) // two sets a curve cannot show a plateau
    return points;
  const std::string split = "when the whole-GPU read curve steps between the L2's near and far "
                            "partitions (two L2 plateaus)";
  for (const char* l : {"l1", "l2", dram_level})
    points.push_back({{{level.key, l}}, {level_bandwidth.name}});
  points.push_back({{{level.key, "l2_far"}}, {level_bandwidth.name}, split});
  points.push_back({{{level.key, dram_level}}, {fraction_of_theoretical.name}});
  points.push_back({{{level.key, "l2"}}, {far_near_ratio.name}});
  for (const char* l : {"l1", "l2"})
    points.push_back({{{level.key, l}}, {detected_size.name}});
  points.push_back({{{level.key, "l2_near"}}, {detected_size.name}, split});
  return points;
}

Chart curve() {
  Chart c = Chart::sweep_of(bandwidth).along(working_set, true).colour(pattern);
  c.log_y = true;
  c.limits = false;
  c.y_title = "bandwidth (GB/s, log scale)";
  c.notes.push_back({.metric = level_bandwidth.name,
                     .x_extra = "extent_bytes",
                     .label_param = level.key,
                     .tip = "plateau"});
  c.rules.push_back({.from = RuleSpec::From::extra,
                     .metric = level_bandwidth.name,
                     .extra = keys::limit_gbs,
                     .only = {level.key, dram_level},
                     .label = "theoretical DRAM"});
  c.says("Bandwidth (GB/s) against the working set: reads by every block of the whole set "
         "(per-SM L1), reads and writes by the whole GPU of one shared set (L2, DRAM)",
         {"Squares: the plateaus read off the curves (least-squares segmentation, memory_latency's "
          "rule), each at the largest set on it: L1 from the per-SM curve, L2 (near and far "
          "partitions where the curve steps between them) and DRAM from the whole-GPU curve. "
          "The line: the theoretical DRAM bandwidth. A set larger than the L2 is a DRAM "
          "figure."});
  return c;
}

std::vector<Extra> extras() {
  return {{"load", "the PTX instruction of every access (cache operator included)"},
          {"elements", "16-byte elements in the set"},
          {"passes", "per_sm_read: times each block reads the whole set per sample"},
          {"laps", "gpu patterns: times the grid reads or writes every element per sample"},
          {over_l2_key, "whether the set is larger than the L2"},
          {"carveout_percent", "the preferred shared-memory carve-out of the kernel (0: most L1)"},
          {"blocks_per_sm", "per_sm_read: resident blocks per SM, each starting its passes "
                            "1/blocks_per_sm of the set after the previous"},
          {"sum_expected", "the 32-bit sum of the set's words times the reads of each, per block "
                           "(per_sm_read) or for the grid (gpu_read)"},
          {"sums_wrong", "blocks (or grids) whose sum of every loaded word differed"},
          {"extent_bytes", "the largest set on the level's plateau"},
          {"first_bytes", "the smallest set on the level's plateau"},
          {"points", "the sweep points on the plateau"},
          {"curve", "the curve the level was read from: per_sm_read or gpu_read"},
          {"plateaus", "the plateaus of each curve of medians: GB/s and extents"},
          {"of_medians", "the sizes detected from the curves of medians"},
          {"device_l2_bytes", "the L2 size the driver reports"},
          {"detected_as", "what a detected size is"},
          {"theoretical_gbs", "the device's theoretical DRAM bandwidth"},
          {"near_gbs", "median bandwidth of the sets from 1/8 to 3/8 of the L2"},
          {"far_gbs", "median bandwidth of the sets from 5/8 to 7/8 of the L2"}};
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Cache bandwidth by level (L1, L2, DRAM)",
    .description =
        "Read bandwidth against the working set from 16 KiB to 4x the L2, and write bandwidth "
        "at L2-resident and DRAM sets, with 16-byte vector accesses by a full resident grid "
        "(256-thread blocks, every SM). per_sm_read: every block reads the whole set (the same "
        "set on every SM) with ld.global.ca, carve-out preferring L1, the blocks of one SM "
        "starting 1/blocks_per_sm of the set apart (%smid), so each SM's L1 holds the set while "
        "it fits and a line comes back only after the SM read the whole set; up to 1 MiB. "
        "gpu_read: the grid reads the set once per lap, "
        "element j of the lap by thread j mod the grid, with ld.global.cg (the L1 bypassed), so "
        "every byte is reread a whole set later: from the L2 while the set fits it, from DRAM "
        "past it; 1 MiB to 4x the L2. gpu_write: the same with 16-byte stores of index-derived "
        "words. A sample reads or writes at least 4 GiB (per_sm) or 2 GiB (gpu) in whole passes "
        "or laps; 3 warm-up launches, then a fixed count of samples, no L2 flush (the set is "
        "meant to stay cached). Every load's value is summed; each block's (per_sm) or the "
        "grid's (gpu) 32-bit sum is checked against the host's sum of the set; every written "
        "word is checked. The levels: the plateaus of the two read curves (memory_latency's "
        "least-squares segmentation on ns per byte) give the L1 size and bandwidth (per_sm "
        "curve), the L2's (near and far partitions when it steps) and DRAM's (gpu curve), one "
        "detection per repetition; the DRAM plateau over the theoretical bandwidth; and the "
        "L2's far half (5/8-7/8) over its near half (1/8-3/8).",
    .citation = "Ernst et al., gpu-benches (gpu-cache, gpu-l2-cache); Chips and Cheese, Nvidia's "
                "H100 (2023), cache bandwidth; Luo et al., Benchmarking and Dissecting the Nvidia "
                "Hopper GPU Architecture (2024); CUDA C++ Best Practices Guide 8.2.1 "
                "(theoretical bandwidth), 9.2 (device memory spaces)",
    .version = 2,
    .order = 57,
    .chapter = Chapter::caches_on_chip,
    .params = {pattern, working_set, level},
    .metrics = {bandwidth, level_bandwidth, fraction_of_theoretical, far_near_ratio, detected_size},
    .extras = extras(),
    .headline = bandwidth.name,
    .charts = {curve()},
    .plan = plan,
});

} // namespace apod::cache_bw
