// concurrency's declaration: how many small independent kernels run at once on 1 to 64 streams
// beside the hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), and two workloads sharing the GPU
// from two streams, two contexts (time-sliced) and two green contexts.
#include "declaration.hpp"

namespace apod::concurrency {

const std::vector<int>& stream_counts() {
  static const std::vector<int> all = {1, 2, 4, 8, 16, 32, 64};
  return all;
}

const std::vector<const char*>& sharing_cases() {
  static const std::vector<const char*> all = {two_streams, two_contexts, two_green_contexts};
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const char* c : {primary, created})
    for (const int s : stream_counts())
      points.push_back(
          {{{context.key, c}, {streams.key, s}}, {peak_kernels.name, mean_kernels.name}});
  for (const char* s : sharing_cases())
    points.push_back({{{sharing.key, s}},
                      {slowdown.name, overlap.name},
                      s == two_green_contexts
                          ? "the driver and the device have green contexts (CUDA 12.4+ driver)"
                          : ""});
  return points;
}

Chart peak_chart() {
  Chart c = Chart::sweep_of(peak_kernels)
                .along(streams, true, 2)
                .colour(context)
                .model(keys::model, "min(streams, connections, kernels, resident grids)");
  c.log_y = true;
  c.y_title = "kernels running at once (most, log scale)";
  c.says("Kernels running at once as one-warp kernels are spread over 1 to 64 streams",
         {"128 independent kernels of one warp each, launched round robin onto the streams "
          "behind a gate, each timing itself with the globaltimer. Streams share the hardware "
          "queues, CUDA_DEVICE_MAX_CONNECTIONS of them (8 by default, up to 32: the Notes on "
          "CUDA); the model is min(streams, connections, kernels, 128 resident grids), the "
          "created context's with the count requested for it (extra.connections_requested)."});
  return c;
}

Chart mean_chart() {
  Chart c = Chart::sweep_of(mean_kernels)
                .along(streams, true, 2)
                .colour(context)
                .model(keys::model, "min(streams, connections, kernels, resident grids)");
  c.log_y = true;
  c.y_title = "kernels running at once (kernel time over the span, log scale)";
  c.says("Mean concurrency: the kernels' summed time over the time they span",
         {"What the streams buy on average: the sum of the kernels' windows over the span from "
          "the first start to the last end (the time the whole batch takes, against the same "
          "kernels run one after another)."});
  return c;
}

Chart slowdown_chart() {
  Chart c =
      Chart::sweep_of(slowdown).along(sharing).model(keys::model, "1 side by side, 2 time-sliced");
  c.mark = "bar";
  c.y_title = "time of both workloads over one alone";
  c.says("Two equal workloads sharing the GPU, each from its own host thread",
         {"Each workload is 32 one-warp kernels in a row on one stream. Streams of one context "
          "run side by side; two ordinary contexts are time-sliced (Best Practices Guide 10.6: "
          "only one context executes work at any given moment), so both take twice as long; "
          "green contexts on disjoint SMs share one context's scheduling and run side by side. "
          "MPS is not started (it changes the machine's settings)."});
  return c;
}

Chart overlap_chart() {
  Chart c = Chart::sweep_of(overlap).along(sharing);
  c.mark = "bar";
  c.y_title = "share of the time both workloads ran at once";
  c.says("How much of the time the two workloads' kernels ran at once",
         {"From the kernels' globaltimer windows: the time during which a kernel of each "
          "workload was running, over the time any was; 1 side by side, 0 taking turns."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Concurrent kernels, hardware queues and contexts",
    .description =
        "How many small independent kernels a GPU runs at once. 128 kernels of one block of one "
        "warp each (a chain of dependent integer multiply-adds, ~40 us; every output checked "
        "against the host's chain) are launched round robin onto 1, 2, 4, ..., 64 non-blocking "
        "streams behind a gate in mapped host memory, which is opened once all are queued, so "
        "the launch rate does not limit the concurrency. Each kernel reads the globaltimer when "
        "it starts and ends; the figures are the most windows open at one instant and the "
        "kernels' summed time over their span. Streams share the hardware queues "
        "(CUDA_DEVICE_MAX_CONNECTIONS, 8 by default, up to 32): extra.connections is the count in "
        "effect for the primary context; a second context is created with cuCtxCreate after "
        "setting the variable to another count (extra.connections_requested), to see whether the "
        "plateau moves with it. Model (extra.model): min(streams, connections, kernels, the 128 "
        "resident grids of compute capability 7.0-9.0, resident blocks). Then two equal "
        "workloads (32 kernels in a row on one stream each, from two host threads) share the "
        "GPU as two streams of one context, two ordinary contexts (primary + cuCtxCreate) and "
        "two green contexts on disjoint SM groups: the time of both over one alone, and the "
        "share of the time both ran at once. MPS is not started (it changes the machine's "
        "settings). The driver API is reached through the runtime's entry points.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 10.5 Concurrent Kernel Execution, 10.6 "
                "Multiple contexts; Notes on CUDA (seed 002): CUDA_DEVICE_MAX_CONNECTIONS; CUDA "
                "C++ Programming Guide: resident grids per device, green contexts",
    .version = 1,
    .order = 124,
    .chapter = Chapter::concurrency_launch,
    .params = {context, streams, sharing},
    .metrics = {peak_kernels, mean_kernels, slowdown, overlap},
    .extras = {{"elements_wrong", "kernel outputs that differed from the host's chains"},
               {"kernels", "kernels per batch"},
               {"chain_steps", "multiply-add steps of each kernel's chain"},
               {"kernel_us", "median window of one kernel, us"},
               {"span_us", "median time of the batch from the first start to the last end, us"},
               {"alone_span_us", "median time of one workload alone, us"},
               {"connections", "the connection count in effect for the primary context"},
               {"connections_source", "where that count comes from (the variable, or default)"},
               {"connections_requested", "the count set in the variable for the created context"},
               {"gate_timeouts", "kernels that never saw the gate open (a hang avoided)"},
               {"sm_groups", "SMs of each green context"},
               {"resident_grid_limit", "grids resident at once by the compute capability"}},
    .headline = peak_kernels.name,
    .charts = {peak_chart(), mean_chart(), slowdown_chart(), overlap_chart()},
    .plan = plan,
});

} // namespace apod::concurrency
