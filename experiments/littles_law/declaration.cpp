// littles_law's declaration: the loaded-latency curve (a chase timed under a throttled
// background copy), and bandwidth against the bytes of loads in flight per SM beside Little's law
// on that curve, with the 90% points marked.
#include "declaration.hpp"

#include "core/series.hpp"
#include "in_flight.hpp"
#include "loaded.hpp"

namespace apod::littles {

json shape_params(const char* launch_name, int width, int loads_per_thread, int threads) {
  return {{launch.key, launch_name},
          {word_bytes.key, width},
          {loads.key, loads_per_thread},
          {threads_per_sm.key, threads},
          {in_flight.key, threads * loads_per_thread * width}};
}

namespace {

// Resident threads per SM by architecture (the CUDA Programming Guide's table): what the plan
// sweeps up to; the run asks the device.
int max_threads_per_sm(const DeviceInfo& d) {
  if (d.cc_major == 7 && d.cc_minor == 5)
    return 1024;
  if (d.cc_major == 8 && d.cc_minor > 0)
    return 1536;
  return 2048;
}

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const std::vector<std::string> level_metrics = {loaded_latency.name, background_bandwidth.name};
  std::vector<PlannedPoint> points;
  // The idle level has a latency only: with no background there is no bandwidth to store.
  points.push_back({{{background.key, no_background}, {delay.key, 0}}, {loaded_latency.name}});
  for (int d : background_delays_cycles())
    points.push_back({{{background.key, copy_background}, {delay.key, d}}, level_metrics});
  const std::string bandwidth = metrics::effective_bandwidth.name;
  for (const FlightShape& s : flight_shapes(max_threads_per_sm(in.device), in.quick))
    points.push_back(
        {shape_params(persistent_launch, s.word_bytes, s.loads_per_thread, s.threads_per_sm),
         {bandwidth}});
  // The guide's launch: as many 256-thread blocks as are resident (the occupancy API decides;
  // the plan assumes a full SM).
  points.push_back({shape_params(guide_launch, 4, 1, max_threads_per_sm(in.device)), {bandwidth}});
  points.push_back(
      {{{fraction.key, target_fraction}}, {in_flight_per_sm.name, device_in_flight.name}});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(in_flight, true)
                .colour(launch)
                .model(keys::model_gbs, "Little's law, loaded latency");
  c.mark = "point";
  const RuleSpec crossing{.from = RuleSpec::From::metric,
                          .vertical = true,
                          .metric = in_flight_per_sm.name,
                          .scale = 1e3,
                          .label = "90%, measured",
                          .per_model = true};
  RuleSpec model = crossing;
  model.from = RuleSpec::From::extra;
  model.extra = "model_in_flight_per_sm_kb";
  model.label = "90%, Little's law (loaded)";
  RuleSpec idle = model;
  idle.extra = "idle_model_in_flight_per_sm_kb";
  idle.label = "90%, Little's law (idle latency)";
  c.rules = {crossing, model, idle};
  c.says("Effective bandwidth of a copy against the bytes of loads each SM keeps in flight",
         {"Dashed: Little's law on the loaded-latency curve: the bandwidth B that solves B = 2 x "
          "SMs x bytes in flight per SM / L(B), L read off this run's chase under a background "
          "copy at bandwidth B, capped at the sweep's plateau. Vertical lines: where the "
          "persistent launches reach 90% of the plateau, measured, by the loaded model and by "
          "the idle-latency model it replaces. The guide's offsetCopy launch is its own series."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(loaded_latency).along(delay).colour(background);
  c.mark = "point";
  c.says("Dependent-load latency of a pointer chase while a background copy loads DRAM, against "
         "the copy warps' wait per iteration",
         {"Intel MLC's loaded-latency method: one thread chases a random cycle through 4x the L2 "
          "while every SM copies with a wait between iterations; each point's background "
          "bandwidth is the background_bandwidth point of the same wait (and the extra "
          "background_gbs). Less wait, more bandwidth, longer queues."});
  return c;
}

std::vector<Extra> extras() {
  return {{"grid", "the loaded-latency launch's blocks (block 0 chases)"},
          {"threads_per_block", "the loaded-latency launch's threads per block"},
          {"background_blocks_per_sm", "resident blocks per SM of the loaded-latency launch"},
          {"background_in_flight_bytes_per_sm", "bytes of loads the background keeps per SM"},
          {"chase_bytes", "the chase's working set: 4x the L2, one node per 128-byte line"},
          {"chase_steps", "timed chase steps per sample"},
          {"chase_warmup_steps", "untimed chase steps before them, per sample"},
          {"cycles_per_load", "the chase's SM cycles per dependent load (median)"},
          {"background_gbs", "the background copy's bandwidth at this level (median)"},
          {"latency_ns", "the chase's latency at this level (median)"},
          {"copy_iteration_ns",
           "the background warps' own time from their loads' issue to their stores' (median)"},
          {"model_peak_gbs", "the plateau the model is capped at"},
          {"model_idle_latency_ns", "the chase's latency with no background: the idle model's"},
          {"model_latency_ns", "the loaded latency at the model's fixed point"},
          {"idle_model_gbs", "Little's law with the idle latency, for comparison"},
          {"kernel", "the launch's kernel facts"},
          {"target_gbs", "90% of the sweep's plateau"},
          {"peak_gbs", "the sweep's plateau the 90% point is of"},
          {"peak_source", "where that plateau came from"},
          {"peak_copy_gbs", "peak_copy's achievable copy bandwidth, earlier in this run"},
          {"loaded_latency_curve", "the curve the model reads: bandwidth and latency per level"},
          {"model_in_flight_per_sm_kb", "the bytes in flight per SM Little's law needs (loaded)"},
          {"idle_model_in_flight_per_sm_kb", "the same with the idle latency"},
          {"copy_model_in_flight_per_sm_kb",
           "the same with the background copy's own iteration time as the latency"},
          {"model_why", "why the loaded model gives no 90% point"},
          {"samples_without_crossing", "sample indices at which no shape reached the target"},
          {"shapes_not_resident", "the shapes whose blocks could not all be resident"},
          {"rule", "how the crossing is found"}};
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Little's law: bandwidth against bytes in flight per SM, with loaded latency",
    .description =
        "First the loaded-latency curve (the Intel Memory Latency Checker's method): one thread "
        "chases a random cycle of 128-byte lines through 4x the L2 (every step a line untouched "
        "since the cycle was written; its end checked against the host's walk) while every SM "
        "runs a copy of two 16-byte loads per thread, 1024 threads per SM, each warp waiting a "
        "set number of cycles between iterations (0 to 160,000, and no copy at all); per level "
        "the chase's ns per load and the copy's bandwidth over the same timed steps. Then a copy "
        "kernel on a persistent grid of 128-thread blocks, swept over access width (4, 8, 16 "
        "bytes), independent loads per thread issued before any store (1, 2, 4, 8) and resident "
        "threads per SM (128 to 2048): 512 B to 256 KiB of loads in flight per SM (threads x "
        "loads x width); a shape whose blocks cannot all be resident is skipped and listed. "
        "Buffers of 512 MiB each way; bandwidth counts bytes read plus written; every copied "
        "word is checked on the device and the first and last 64 Ki words again on the host. "
        "extra.model_gbs = min(plateau, B) where B = 2 x SMs x bytes in flight per SM / L(B) on "
        "the measured curve (a fixed point, no fit); the plateau is the sweep's best verified "
        "shape. The launch 'offsetCopy (guide 9.2.1.3)' is the guide's shape: 256-thread "
        "blocks, one 4-byte load per thread, a full grid. The fraction_of_peak 0.9 points give "
        "the bytes in flight per SM and for the device at which the persistent shapes reach 90% "
        "of the plateau, with the loaded model's and the idle model's figure in extra.",
    .citation = "J. D. C. Little, A Proof for the Queuing Formula L = lambda W (1961); Intel "
                "Memory Latency Checker (loaded latency); Notes on CUDA (Little's-law table); "
                "Tuning CUDA Applications for Pascal 1.4.3.1; CUDA C++ Best Practices Guide "
                "9.2.1.3, 10.1",
    .version = 2,
    .order = 7,
    .chapter = Chapter::device_memory,
    .params = {launch, word_bytes, loads, threads_per_sm, in_flight, fraction, background, delay},
    .metrics = {metrics::effective_bandwidth, in_flight_per_sm, device_in_flight, loaded_latency,
                background_bandwidth},
    .extras = extras(),
    .headline = metrics::effective_bandwidth.name,
    .charts = {bandwidth_chart(), latency_chart()},
    .plan = plan,
});

} // namespace apod::littles
