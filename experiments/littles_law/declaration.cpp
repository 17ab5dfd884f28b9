// littles_law's declaration: bandwidth against the bytes of loads in flight per SM beside
// Little's law, with the 90% points marked.
#include "declaration.hpp"

#include "core/series.hpp"
#include "in_flight.hpp"
#include "memory_latency/chain.hpp"
#include "memory_latency/declaration.hpp"

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
  const std::string bandwidth = metrics::effective_bandwidth.name;
  std::vector<PlannedPoint> points;
  for (const FlightShape& s : flight_shapes(max_threads_per_sm(in.device), in.quick))
    points.push_back(
        {shape_params(persistent_launch, s.word_bytes, s.loads_per_thread, s.threads_per_sm),
         {bandwidth}});
  // The guide's launch: as many 256-thread blocks as are resident (the occupancy API decides;
  // the plan assumes a full SM).
  points.push_back({shape_params(guide_launch, 4, 1, max_threads_per_sm(in.device)), {bandwidth}});
  points.push_back(
      {{{fraction.key, target_fraction}}, {in_flight_per_sm.name, device_in_flight.name}});
  // Run without memory_latency before it, it chases DRAM itself (littles_law.cu): the quick
  // DRAM working set.
  const int64_t shared = in.device.shared_bytes_per_sm > 0 ? in.device.shared_bytes_per_sm
                                                           : nominal_device().shared_bytes_per_sm;
  const size_t chase_bytes = latency_probes(shared, in.device.l2_bytes, true).dram_bytes;
  points.push_back(
      {{{latency::level.key, latency::dram_level}, {latency::working_set.key, chase_bytes}},
       {latency::ns.name},
       "memory_latency did not run earlier in the run"});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(in_flight, true)
                .colour(launch)
                .model(keys::model_gbs, "Little's law");
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
  model.label = "90%, Little's law";
  c.rules = {crossing, model};
  c.says("Effective bandwidth of a copy against the bytes of loads each SM keeps in flight",
         {"Dashed: Little's law, min(achievable peak, 2 x SMs x bytes in flight per SM / DRAM "
          "latency), from the same run's memory_latency and peak_copy; vertical lines: where the "
          "persistent launches reach 90% of the achievable peak, measured and by the model. The "
          "guide's offsetCopy launch is its own series."});
  return c;
}

std::vector<Extra> extras() {
  std::vector<Extra> all = latency::chase_extras();
  all.insert(all.end(),
             {{"model_latency_ns", "the DRAM latency the model uses"},
              {"model_latency_source", "where that latency came from"},
              {"model_peak_gbs", "the achievable peak the model uses"},
              {"model_peak_source", "where that peak came from"},
              {"kernel", "the launch's kernel facts"},
              {"why", "why the experiment measured its own DRAM latency"},
              {"target_gbs", "90% of the achievable peak"},
              {"peak_gbs", "the achievable peak the 90% point is of"},
              {"peak_source", "where that peak came from"},
              {"model_in_flight_per_sm_kb", "the bytes in flight per SM Little's law needs"},
              {"samples_without_crossing", "sample indices at which no shape reached the target"},
              {"shapes_not_resident", "the shapes whose blocks could not all be resident"},
              {"rule", "how the crossing is found"}});
  return all;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Little's law: bandwidth against bytes in flight per SM",
    .description =
        "A copy kernel on a persistent grid of 128-thread blocks, swept over access width (4, 8, "
        "16 bytes), independent loads per thread issued before any store (1, 2, 4, 8) and "
        "resident threads per SM (128 to 2048): 512 B to 256 KiB of loads in flight per SM "
        "(threads x loads x width); a shape whose blocks cannot all be resident (the occupancy "
        "API, e.g. registers) is skipped and listed in the 90% points' extra. Buffers of 512 "
        "MiB each way; bandwidth counts bytes read plus written; every copied word is checked "
        "on the device and the first and last 64 Ki words again on the host. extra.model_gbs = "
        "min(achievable peak, 2 x SMs x bytes in "
        "flight per SM / DRAM latency), a copy moving two bytes per byte loaded, from the same "
        "run's memory_latency dram point and peak_copy's achievable_peak (run alone: its own "
        "short chase, recorded, and its own best point; extra says which). The launch "
        "'offsetCopy (guide 9.2.1.3)' is the guide's shape: 256-thread blocks, one 4-byte load "
        "per thread, a full grid. The fraction_of_peak 0.9 points give the bytes in flight per "
        "SM and for the device at which the persistent shapes reach 90% of the achievable peak.",
    .citation = "Notes on CUDA (Little's-law table: latency x throughput); Tuning CUDA "
                "Applications for Pascal 1.4.3.1; CUDA C++ Best Practices Guide 9.2.1.3, 10.1",
    .version = 1,
    .order = 7,
    .chapter = Chapter::device_memory,
    .params = {launch, word_bytes, loads, threads_per_sm, in_flight, fraction, latency::level,
               latency::working_set},
    .metrics = {metrics::effective_bandwidth, in_flight_per_sm, device_in_flight, latency::ns},
    .extras = extras(),
    .headline = metrics::effective_bandwidth.name,
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::littles
