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
    for (const char* o : {breadth_first, depth_first})
      for (const int s : stream_counts())
        points.push_back({{{context.key, c}, {order.key, o}, {streams.key, s}},
                          {peak_kernels.name, mean_kernels.name}});
  for (const char* s : sharing_cases())
    points.push_back({{{sharing.key, s}},
                      {slowdown.name, overlap.name},
                      s == two_green_contexts
                          ? "the driver and the device have green contexts (CUDA 12.4+ driver)"
                          : ""});
  return points;
}

// The model's words: round robin, a queue's neighbours belong to different streams and start
// together, so the connections do not bind; stream by stream, a queue runs one stream's chain
// at a time, so they do.
const char* model_words(const char* launch_order) {
  return launch_order == depth_first
             ? "min(streams, connections, kernels, resident grids)"
             : "min(streams, kernels, resident grids): the connections do not bind";
}

Chart peak_chart(const char* launch_order) {
  Chart c = Chart::sweep_of(peak_kernels)
                .along(streams, true, 2)
                .colour(context)
                .only_where(order, launch_order)
                .model(keys::model, model_words(launch_order));
  c.log_y = true;
  c.y_title = "kernels running at once (most, log scale)";
  c.says(launch_order == depth_first
             ? "Kernels running at once, queued stream by stream onto 1 to 64 streams"
             : "Kernels running at once, queued round robin onto 1 to 64 streams",
         {"128 independent kernels of one warp each (~40 us), queued behind a gate, each timing "
          "itself with the globaltimer. Streams share the hardware queues, "
          "CUDA_DEVICE_MAX_CONNECTIONS of them (8 by default, up to 32: the Notes on CUDA); "
          "queued stream by stream, a queue holds one stream's chain and the kernels of the "
          "streams behind it wait (false serialisation): at most one kernel per connection. "
          "Queued round robin, neighbours in a queue are independent and start together. The "
          "created context's model uses the count asked for it (in each point's row)."});
  return c;
}

Chart mean_chart(const char* launch_order) {
  Chart c = Chart::sweep_of(mean_kernels)
                .along(streams, true, 2)
                .colour(context)
                .only_where(order, launch_order)
                .model(keys::model, model_words(launch_order));
  c.log_y = true;
  c.y_title = "kernels running at once (kernel time over the span, log scale)";
  c.says(launch_order == depth_first ? "Mean concurrency, queued stream by stream"
                                     : "Mean concurrency, queued round robin",
         {"The kernels' summed windows over the span from the first start to the last end: "
          "what the streams buy on average (the gaps between a stream's kernels, a few us "
          "each, count against it)."});
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
  Chart c = Chart::sweep_of(overlap).along(sharing).model(
      keys::model,
      "side by side: d^2 / (2d - d^2), d the alone run's busy fraction; 0 time-sliced");
  c.mark = "bar";
  c.y_title = "share of the time both workloads ran at once";
  c.says("How much of the time the two workloads' kernels ran at once",
         {"From the kernels' globaltimer windows: the time during which a kernel of each "
          "workload was running, over the time any was; 0 taking turns. Side by side it is "
          "below 1 by the gaps between a workload's kernels: two independent workloads each "
          "busy a fraction d of the time overlap d^2 / (2d - d^2) of it."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Concurrent kernels, hardware queues and contexts",
    .description =
        "How many small independent kernels a GPU runs at once. 128 kernels of one block of one "
        "warp each (a chain of dependent integer multiply-adds, ~40 us; every output checked "
        "against the host's chain) are queued onto 1, 2, 4, ..., 64 non-blocking streams, round "
        "robin (kernel k on stream k mod S) or stream by stream (each stream's kernels in a "
        "row), behind a gate in mapped host memory that opens once all are queued, so the launch "
        "rate does not limit the concurrency. Each kernel reads the globaltimer when it starts "
        "and ends; the figures are the most windows open at one instant and the kernels' summed "
        "time over their span. Streams share the hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 "
        "by default, up to 32): extra.connections is the count in effect for the primary "
        "context; a second context is created with cuCtxCreate after setting the variable to "
        "another count (extra.connections_requested), to see whether the plateau moves with it. "
        "Model (extra.model): stream by stream, min(streams, connections, kernels, 128 resident "
        "grids (compute capability 7.0-9.0), resident blocks): a queue runs one stream's chain "
        "at a time; round robin, the same without the connections, as neighbours in a queue "
        "belong to different streams. Then two equal workloads (32 kernels in a row on one "
        "stream each, from two host threads) share the GPU as two streams of one context, two "
        "ordinary contexts (primary + cuCtxCreate) and two green contexts on disjoint SM groups: "
        "the time of both over one alone, and the share of the time both ran at once, against "
        "what two independent side-by-side workloads with the alone run's busy fraction give "
        "(0 for time-sliced contexts). MPS is not started (it changes the machine's settings). "
        "The driver API is reached through the runtime's entry points.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 10.5 Concurrent Kernel Execution, 10.6 "
                "Multiple contexts; Notes on CUDA (seed 002): CUDA_DEVICE_MAX_CONNECTIONS; CUDA "
                "C++ Programming Guide: resident grids per device, green contexts",
    .version = 1,
    .order = 124,
    .chapter = Chapter::concurrency_launch,
    .params = {context, order, streams, sharing},
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
               {"resident_grid_limit", "grids resident at once by the compute capability"},
               {"alone_busy_fraction", "the alone workload's kernel time over its span"}},
    .headline = peak_kernels.name,
    .charts = {peak_chart(breadth_first), peak_chart(depth_first), mean_chart(breadth_first),
               mean_chart(depth_first), slowdown_chart(), overlap_chart()},
    .plan = plan,
});

} // namespace apod::concurrency
