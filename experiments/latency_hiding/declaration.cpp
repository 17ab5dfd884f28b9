// latency_hiding's declaration: Stich's read-increment-write kernel against the resident threads
// per SM, beside Little's law for one load in flight per thread.
#include "declaration.hpp"

#include "core/series.hpp"
#include "residency.hpp"

namespace apod::hiding {

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const DeviceInfo& d = in.device;
  const bool small_sm = (d.cc_major == 7 && d.cc_minor == 5) || (d.cc_major == 8 && d.cc_minor > 0);
  const int max_threads = d.cc_major == 7 && d.cc_minor == 5 ? 1024 : small_sm ? 1536 : 2048;
  std::vector<PlannedPoint> points;
  for (const HidingShape& s : hiding_shapes(max_threads, small_sm ? 16 : 32, in.quick))
    points.push_back({{{block_size.key, s.block_size}, {threads_per_sm.key, s.threads_per_sm()}},
                      {metrics::effective_bandwidth.name}});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(threads_per_sm)
                .colour(block_size)
                .model(keys::model_gbs, "Little's law");
  c.published_metrics = {threads_per_sm.key};
  c.says("Effective bandwidth of Stich's read-increment-write kernel against the resident threads "
         "per SM",
         {"Dashed: Little's law for one 4-byte load in flight per resident thread, from the same "
          "run's DRAM latency and achievable peak; the occupancy of each point is in its table "
          "row."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Hiding latency: bandwidth against resident threads per SM",
    .description =
        "Stich's experiment: each thread reads, increments and writes one 4-byte word of a 1 GiB "
        "array (one launch covers it), swept over resident threads per SM = block size (64, 256) x "
        "resident blocks per SM, the blocks held down by dynamic shared memory (the least that "
        "does it, found with cudaOccupancyMaxActiveBlocksPerMultiprocessor; the resident blocks "
        "and occupancy are stored per point). Bandwidth counts each word read and written. Each "
        "point is checked on the device (every word is its fill value plus the launches so far) "
        "and on the host (its first and last 64 Ki words), and the whole array once on the host "
        "after the sweep. extra.model_gbs is Little's law for one 4-byte load per thread, from "
        "the same run's memory_latency DRAM figure and achievable peak.",
    .citation = "T. Stich, Advanced CUDA Programming ('Hiding Latency', 'Launch Configuration'); "
                "CUDA C++ Best Practices Guide 10.1 (occupancy)",
    .version = 1,
    .order = 8,
    .chapter = Chapter::device_memory,
    .params = {block_size, threads_per_sm},
    .metrics = {metrics::effective_bandwidth},
    .extras = {{"model_latency_ns", "the DRAM latency the model uses"},
               {"model_peak_gbs", "the achievable peak the model uses"},
               {"in_flight_bytes_per_sm", "bytes of loads in flight per SM: 4 per thread"},
               {"resident_blocks_per_sm", "resident blocks per SM (the occupancy API)"},
               {"occupancy", "resident threads over the SM's maximum"},
               {"dynamic_shared_bytes", "the shared memory that holds residency down"},
               {"words", "words of the array"},
               {"kernel", "the launch's kernel facts"},
               {"launches_in_final_check", "launches the final host check accounts for"},
               {"final_host_check_words_wrong", "words wrong in the final host check"}},
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::hiding
