// local_memory's declaration: the cost of words in local memory (a run-time-indexed per-thread
// array, a forced spill) against the same work in registers.
#include "declaration.hpp"

namespace apod::local_memory {

const std::vector<int>& array_words() {
  static const std::vector<int> all = {16, 64};
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  const auto add = [&](const char* c, int w) {
    points.push_back(
        {{{cause.key, c}, {placement.key, in_registers}, {words.key, w}}, {update_rate.name}});
    points.push_back({{{cause.key, c}, {placement.key, in_local}, {words.key, w}},
                      {update_rate.name, cost.name}});
  };
  for (const int w : array_words())
    add(indexed_array, w);
  add(register_pressure, pressure_live);
  return points;
}

Chart rate_chart() {
  Chart c = Chart::bars_of(update_rate).along(cause).colour(placement);
  c.panels = {words.key};
  c.y_title = "word updates per second (G/s)";
  c.says("The same per-thread work with its words in registers and in local memory",
         {"Best Practices Guide 9.2.4: local memory is off-chip, as expensive as global memory, "
          "and holds arrays the compiler cannot index at compile time and values that do not fit "
          "the registers; since Pascal it is cached in L1 (Pascal Tuning Guide 1.4.3.2)."});
  return c;
}

Chart cost_chart() {
  Chart c = Chart::bars_of(cost).along(cause).colour(words);
  c.limits = false;
  c.y_title = "time in local memory over the time in registers";
  c.says("What local memory costs: the local version's time over the register version's");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Local memory: indexed arrays and register spills",
    .description =
        "The cost of words in local memory against the same work in registers, on a fixed grid "
        "of 2048 threads per SM (256-thread blocks, as many waves as the occupancy needs). "
        "Indexed array: each thread keeps 16 or 64 words and runs steps a[i] = 5 a[i] + acc, "
        "acc ^= a[i] on word i = step mod words; the local version computes i at run time (an "
        "offset passed as 0), so the array lives in local memory, the register version unrolls "
        "the loop so every index is known and the array lives in registers; both give the same "
        "answer. Register pressure: 64 live values updated in turn (v[c] = 5 v[c] + v[c+1]), "
        "one kernel uncapped (about 70 registers), its copy capped at 32 registers with "
        "__maxnreg__ so ptxas spills. The figure is word updates per second; cost_vs_registers "
        "is the register version's rate over the local one's. Every thread's answer is checked "
        "on the host; local bytes and registers per thread come from cudaFuncGetAttributes.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 9.2.4 Local Memory, 10.1 Occupancy "
                "(register spilling); Tuning CUDA Applications for Pascal (seed 003): 1.4.3.2 "
                "(thread-local memory cached in L1)",
    .version = 1,
    .order = 63,
    .chapter = Chapter::caches_on_chip,
    .params = {cause, placement, words},
    .metrics = {update_rate, cost},
    .extras = {{"elements_wrong", "threads whose answer differed from the host's"},
               {"updates_per_thread", "word updates each thread ran"},
               {"threads", "threads of the launch"},
               {"local_bytes_per_thread", "cudaFuncGetAttributes localSizeBytes"},
               {"registers_per_thread", "cudaFuncGetAttributes numRegs"},
               {"register_cap", "the __maxnreg__ cap of the spilled kernel"},
               {"spill", "how the spill and the local array were established"},
               {"kernel", "the launch's kernel facts"}},
    .charts = {rate_chart(), cost_chart()},
    .plan = plan,
});

} // namespace apod::local_memory
