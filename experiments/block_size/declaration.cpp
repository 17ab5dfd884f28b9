// block_size's declaration: a memory-bound copy and a compute-bound FMA kernel swept over threads
// per block (32 to 1024) and grid size (one block per SM, one wave, many waves), beside the Best
// Practices Guide's heuristics (10.3) and Stich's threads-per-SM advice.
#include "declaration.hpp"

#include "core/series.hpp"

namespace apod::block_size {

std::vector<Shape> shapes(bool quick, bool full) {
  const std::vector<int> blocks =
      quick  ? std::vector<int>{32, 256, 1024}
      : full ? std::vector<int>{32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}
             : std::vector<int>{32, 64, 128, 192, 256, 512, 1024};
  const std::vector<const char*> grids =
      quick ? std::vector<const char*>{one_block_per_sm, many_waves}
            : std::vector<const char*>{one_block_per_sm, one_wave, many_waves};
  std::vector<Shape> out;
  for (const char* k : {copy_kernel, fma_kernel})
    for (const char* g : grids)
      for (int b : blocks)
        out.push_back({k, b, g});
  return out;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const Shape& s : shapes(in.quick, in.full))
    points.push_back(
        {{{kernel.key, s.kernel}, {threads.key, s.block_size}, {grid.key, s.grid}},
         {s.kernel == copy_kernel ? metrics::effective_bandwidth.name : flop_rate.name}});
  return points;
}

/// The guide's 10.3 rules of thumb as vertical lines at their block sizes.
void guide_rules(Chart& c) {
  c.rules.push_back(
      {.vertical = true, .value = 64, .label = "guide 10.3: at least 64", .kind = "published"});
  c.rules.push_back({.vertical = true,
                     .value = 128,
                     .label = "guide 10.3: 128-256 to start",
                     .kind = "published"});
  c.rules.push_back({.vertical = true, .value = 256, .label = "", .kind = "published"});
}

Chart copy_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(threads, true, 2)
                .colour(grid)
                .only_where(kernel, copy_kernel);
  guide_rules(c);
  c.rules.push_back({.vertical = true,
                     .value = 512,
                     .label = "Stich: 512 threads per SM often enough (one block per SM)",
                     .kind = "published"});
  c.says("Copy bandwidth against threads per block, for three grid sizes",
         {"A grid-stride float4 copy of 64 MiB each way (bytes read plus written; Best Practices "
          "Guide 8.2.2), verified word by word. One block per SM: the threads per SM are the "
          "block size, where Stich's slides advise 512 or more for memory ('for GT200, 50% "
          "occupancy (512 threads per SM) is often sufficient'). One wave: SMs x the resident "
          "blocks the occupancy API allows (threads per SM, waves and occupancy in each row); "
          "8 waves: the guide's 'many more blocks than SMs' (10.3). Each point reads against "
          "the run's achievable copy peak (its fraction in each row)."});
  return c;
}

Chart fma_chart() {
  Chart c = Chart::sweep_of(flop_rate)
                .along(threads, true, 2)
                .colour(grid)
                .only_where(kernel, fma_kernel);
  guide_rules(c);
  c.rules.push_back(
      {.vertical = true,
       .value = 192,
       .label = "Stich: at least 192 threads per SM for arithmetic (one block per SM)",
       .kind = "published"});
  c.says("FP32 FMA rate against threads per block, for three grid sizes",
         {"Each thread runs 4 independent FMA chains; every launch does the same 2^30 FMAs "
          "(steps per thread = total / (threads x 4)), so the grid decides how the work is "
          "split. Stich: 'fewer than 192 threads per SM will not hide arithmetic latency' "
          "(GT200); the guide (10.2): arithmetic latency is about 4 cycles on 7.0, hidden by "
          "other warps. Limit: FP32 lanes per SM x SMs x SM clock x 2 (Programming Guide "
          "throughput table). Every output is compared exactly with the host's chains."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Block size and grid size: the guide's heuristics measured",
    .description =
        "Threads per block from 32 to 1024 (32, 64, 128, 192, 256, 512, 1024; --full adds 96, "
        "384 and 768) and three grid sizes: one block per SM (threads per SM = block size), "
        "one wave (SMs x the resident blocks per SM the occupancy API gives) and 8 waves, for "
        "a memory-bound kernel (a grid-stride float4 copy of 64 MiB each way, effective "
        "bandwidth read against the run's copy peak, every word checked on the device and the "
        "first and last 64 Ki on the host) and a compute-bound one (4 independent FP32 FMA "
        "chains per thread, the same 2^30 FMAs per launch whatever its shape, GFLOP/s against "
        "the FP32 limit; every thread's output compared exactly with the host's chains). Each "
        "point records its resident threads per SM, waves and theoretical occupancy. Beside "
        "them the Best Practices Guide's 10.3 heuristics (a multiple of 32, at least 64, 128 "
        "to 256 to start, many more blocks than SMs) and Stich's slides (at least 192 threads "
        "per SM to hide arithmetic latency, 512 often enough for memory).",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 10.3 Thread and Block Heuristics, "
                "10.1 Occupancy, 10.2 Hiding Register Dependencies; T. Stich, Advanced CUDA "
                "Programming (seed 001): 'Hiding Latency', 'Launch Configuration: Summary'",
    .version = 1,
    .order = 112,
    .chapter = Chapter::concurrency_launch,
    .params = {kernel, threads, grid},
    .metrics = {metrics::effective_bandwidth, flop_rate},
    .extras = {{"elements_wrong", "outputs that differed from the host's chains"},
               {"grid_size", "blocks of the launch"},
               {"blocks_per_sm", "resident blocks per SM (occupancy API)"},
               {"threads_per_sm", "threads per SM resident while the grid runs"},
               {"waves", "blocks over (resident blocks per SM x SMs)"},
               {"theoretical_occupancy", "resident threads per SM over the maximum"},
               {"fraction_of_achievable_peak", "bandwidth over the run's copy peak"},
               {"fraction_of_limit", "FLOP rate over the FP32 limit"},
               {"steps_per_thread", "FMA steps of each chain"},
               {"fmas_per_launch", "FMAs of one launch"},
               {"kernel", "the launch's kernel facts"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {copy_chart(), fma_chart()},
    .plan = plan,
});

} // namespace apod::block_size
