// launch_overhead's declaration: what a kernel launch costs back to back, with a synchronisation
// after each, through cudaLaunchKernelEx (with a cluster), and per kernel inside a CUDA graph.
#include "declaration.hpp"

#include "launch_math.hpp"

namespace apod::launch {

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const Method& m : methods()) {
    PlannedPoint p{{{method.key, m.name}, {kernels_per_call.key, m.kernels_per_call}},
                   {launch_time.name}};
    if (m.graph())
      p.metrics.push_back(instantiate_time.name);
    if (m.needs_clusters)
      p.when = "the device has thread-block clusters (compute capability 9.0 or later)";
    points.push_back(std::move(p));
  }
  return points;
}

Chart launch_chart() {
  Chart c = Chart::sweep_of(launch_time).along(method);
  c.mark = "bar";
  c.y_title = "time per kernel (us)";
  c.says("Time per kernel of a one-block kernel that adds to a counter, by launch method",
         {"Back to back: a batch of launches between two CUDA events (the GPU's timeline) over "
          "the batch's kernels, or the host's steady_clock around the launch calls alone "
          "(submit); round trip: launch then cudaStreamSynchronize, steady_clock; graphs: a "
          "graph launch's time over its kernels.",
          "The Notes on CUDA (seed 002) call a kernel launch 'zero-overhead' and give no figure: "
          "every bar here is that overhead, and graphs exist to cut it (CUDA Programming Guide, "
          "CUDA Graphs)."});
  return c;
}

Chart instantiate_chart() {
  Chart c = Chart::sweep_of(instantiate_time).along(kernels_per_call, true, 10);
  c.mark = "point";
  c.log_y = true;
  c.y_title = "cudaGraphInstantiate (us, log scale)";
  c.says("Time to instantiate a captured graph against its kernel count (host, steady_clock)",
         {"Paid once per graph and amortised over its launches: a graph of n kernels pays off "
          "once its launches have saved this much against launching the kernels one by one."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Kernel launch overhead and CUDA graphs",
    .description =
        "What launching a kernel costs. The kernel is one block of 32 threads whose first thread "
        "adds to a device counter (every launch does verifiable work; the counter must equal the "
        "launches made, warm-up included). 'stream': 200 launches back to back on a stream "
        "between two CUDA events, the batch's time over 200: the sustained launch rate on the "
        "GPU's timeline. 'stream_submit': the host's steady_clock around 256 launch calls (fewer "
        "than the launch queue holds), synchronised after: what the launch call costs the host. "
        "'round_trip': launch then cudaStreamSynchronize, 100 times in a steady_clock interval. "
        "'launch_ex': cudaLaunchKernelEx without attributes, as 'stream'; 'launch_ex_cluster' "
        "with a cluster of 2 blocks (compute capability 9.0 and later only; each block adds its "
        "cluster's size, so a cluster that did not form miscounts). 'graph_N': a graph of N "
        "kernel nodes in a chain captured from a stream, launched whole (200 kernels a sample, "
        "1000 for graph_1000), its time over its kernels; cudaGraphInstantiate's time "
        "(steady_clock) is a "
        "metric of its own. Medians of many samples after a warm-up.",
    .citation =
        "CUDA C++ Programming Guide: CUDA Graphs, Thread Block Clusters, cudaLaunchKernelEx "
        "(Runtime API); Notes on CUDA (seed 002): kernel launches 'zero-overhead'",
    .version = 1,
    .order = 120,
    .chapter = Chapter::concurrency_launch,
    .params = {method, kernels_per_call},
    .metrics = {launch_time, instantiate_time},
    .extras = {{timed_by, "events (GPU timeline) or steady_clock (host)"},
               {"kernels_per_sample", "kernels timed in one sample"},
               {"launches_counted", "what the device counter held after the point"},
               {"launches_expected", "what it had to hold: launches x blocks x cluster size"},
               {"elements_wrong", "1 if the counter differed from the launches made, else 0"},
               {"cluster_blocks", "blocks per thread-block cluster (cluster launch)"}},
    .headline = launch_time.name, // the point marked headline: 'stream'
    .charts = {launch_chart(), instantiate_chart()},
    .plan = plan,
});

} // namespace apod::launch
