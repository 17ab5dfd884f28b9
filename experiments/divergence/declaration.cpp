// divergence's declaration: the FMA rate of warps whose lanes take 1 to 32 paths, with the branch
// condition warp-uniform or divergent, beside the serialisation model, and the short branch the
// compiler predicates.
#include "declaration.hpp"

namespace apod::divergence {

const std::vector<int>& path_counts() {
  static const std::vector<int> all = {1, 2, 4, 8, 16, 32};
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const char* c : {uniform, divergent})
    for (const int k : path_counts())
      if (k > 1 || c == uniform) // lane mod 1 is the uniform branch
        points.push_back(
            {{{condition.key, c}, {paths.key, k}, {body.key, long_body}}, {fma_rate.name}});
  for (const char* c : {uniform, divergent})
    points.push_back(
        {{{condition.key, c}, {paths.key, 2}, {body.key, short_body}}, {fma_rate.name}});
  return points;
}

Chart paths_chart() {
  Chart c = Chart::sweep_of(fma_rate)
                .along(paths, true, 2)
                .colour(condition)
                .only_where(body, long_body)
                .model(keys::model, "warp-uniform rate / paths (divergent), k = 1 rate (uniform)")
                // Stated after the first H100 run (divergent within 0.3% of it), before any H200
                // run: the committed H200 batch is its out-of-sample test.
                .within(0.05);
  c.log_y = true;
  c.y_title = "threads' FMAs per second (G/s, log scale)";
  c.says("FMA rate as a warp's lanes take 1 to 32 paths, warp-uniform against divergent",
         {"Each path runs hundreds of FMAs; a divergent warp runs its paths in turn (Best "
          "Practices Guide 12.1), so the model is the warp-uniform rate at the same path count "
          "divided by the paths; a warp-uniform branch (threadIdx.x / warpSize) costs nothing, "
          "its model the one-path rate. The limit: the FP32 pipe's FMA rate."});
  return c;
}

Chart predication_chart() {
  Chart c = Chart::sweep_of(fma_rate)
                .along(condition)
                .only_where(body, short_body)
                .model(keys::model, "the warp-uniform rate (predicated: no serialisation)")
                .within(0.05); // as above: stated after the first H100 run (0.1% there)
  c.mark = "bar";
  c.y_title = "threads' conditional FMAs per second (G/s)";
  c.says("A one-FMA branch, warp-uniform against divergent",
         {"The compiler predicates a branch of a few instructions (Best Practices Guide 12.2): "
          "every lane issues the instructions, the predicate decides which write, so the "
          "divergent condition costs nothing; test_divergence_gpu checks that the SASS holds no "
          "branch "
          "for it."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Branch divergence and predication",
    .description =
        "The FMA rate of a kernel whose threads take one of k paths (k = 1, 2, 4, ..., 32), each "
        "path 4 independent chains of FMAs with its own constants (a switch of 32 cases, each a "
        "loop). The path is the warp's index mod k (warp-uniform: the guide's threadIdx.x / "
        "warpSize, no warp diverges) or the lane mod k (divergent). A divergent thread runs 1/k "
        "of the uniform steps (at k = 32 still 512 steps, 2048 FMAs, per path), so every warp "
        "issues the same FMAs and the time changes by the divergence alone; the figure is the "
        "FMAs the threads asked for per second. Model (extra.model): a divergent warp runs each "
        "taken path in turn, so its rate is the warp-uniform rate at the same k divided by k; a "
        "uniform point's model is the one-path rate. Limit: FP32 lanes per SM x SMs x SM clock "
        "(the Programming Guide's throughput table). The short branch: one FMA under an if whose "
        "condition is a per-thread mask bit (per lane: divergent; per warp: uniform), which the "
        "compiler predicates; its divergent rate should equal its uniform rate, and the SASS "
        "shows no branch (test_divergence_gpu reads it with cuobjdump). Every output is compared "
        "exactly with the host's FMA chains.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 12.1 Branching and Divergence, 12.2 "
                "Branch Predication; CUDA C++ Programming Guide, Arithmetic Instructions "
                "(throughput table) for the FP32 rate",
    .version = 1,
    .order = 62,
    .chapter = Chapter::compute,
    .params = {condition, paths, body},
    .metrics = {fma_rate},
    .extras = {{"elements_wrong", "outputs that differed from the host's chains"},
               {"steps_per_thread", "FMA steps each thread ran (each step one FMA per chain)"},
               {"threads", "threads of the launch"},
               {"fmas_per_launch", "FMAs the threads asked for per launch"},
               {"slowdown_vs_uniform", "the warp-uniform rate at the same paths over this one"},
               {"predication", "how predication of the short branch was established"},
               {"kernel", "the launch's kernel facts"}},
    .charts = {paths_chart(), predication_chart()},
    .plan = plan,
});

} // namespace apod::divergence
