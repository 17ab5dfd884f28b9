// bank_conflicts' declaration: shared-memory throughput per access pattern beside the
// conflict-free figure over the degree.
#include "declaration.hpp"

#include "model.hpp"

namespace apod::banks {

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all = {
      {1, "stride 1 (no conflict)"}, {2, "stride 2 (2-way)"},    {4, "stride 4 (4-way)"},
      {8, "stride 8 (8-way)"},       {16, "stride 16 (16-way)"}, {32, "stride 32 (32-way)"},
      {0, "broadcast (one word)"}};
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const Pattern& p : patterns())
    points.push_back(
        {{{access.key, p.access}, {stride.key, p.stride}, {degree.key, conflict_degree(p.stride)}},
         {shared_throughput.name}});
  return points;
}

Chart throughput_chart() {
  Chart c = Chart::sweep_of(shared_throughput)
                .along(access)
                .model(keys::model, "conflict-free figure / degree");
  c.mark = "bar";
  c.y_title = "shared-memory throughput (bytes per clock per SM)";
  c.says("Shared-memory throughput of a warp's 4-byte reads as the stride makes them conflict",
         {"Ticks: the model, the conflict-free figure divided by the conflict degree."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Shared-memory bank conflicts",
    .description =
        "Shared-memory throughput in bytes per clock per SM as the access stride makes a warp's "
        "4-byte reads conflict 1 (none), 2, 4, 8, 16 and 32 ways, and for the broadcast (every "
        "lane one word). Every SM is filled with 256-thread blocks (occupancy API); each thread "
        "reads lane x stride + a per-iteration offset from a 2048-word tile; the figure is the "
        "bytes the lanes asked for over each SM's cycles (clock64, per SM, mean over SMs), against "
        "32 banks x 4 bytes = 128 per clock (extra.limit). extra.model is the conflict-free figure "
        "over the degree, extra.model_theoretical 128 over the degree. Every thread's sum is "
        "checked on the host.",
    .citation = "Stich, Advanced CUDA Programming (seed 001): shared memory, bank addressing "
                "examples, trick to assess impact on performance",
    .version = 1,
    .order = 60,
    .chapter = Chapter::caches_on_chip,
    .params = {access, stride, degree},
    .metrics = {shared_throughput},
    .extras = {{"elements_wrong", "threads whose sum differed from the host's"},
               {"iterations", "reads per thread"},
               {"bytes_per_launch", "bytes the lanes asked for per launch"},
               {"model_theoretical", "128 bytes per clock over the degree"},
               {"blocks_per_sm", "resident blocks per SM"},
               {"kernel", "the launch's kernel facts"},
               {"slowdown_vs_conflict_free", "the conflict-free figure over this one"}},
    .charts = {throughput_chart()},
    .plan = plan,
});

} // namespace apod::banks
