// latency_hiding's declaration: Stich's read-increment-write kernel on persistent grids against
// the resident threads per SM, beside Little's law on littles_law's loaded-latency curve, and
// the block launch rate that bounds a grid of one small block per few elements.
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
  for (int block : launch_rate_block_sizes())
    points.push_back(
        {{{block_size.key, block}, {grid_blocks.key, 1 << 20}}, {block_launch_rate.name}});
  for (const HidingShape& s : hiding_shapes(max_threads, small_sm ? 16 : 32, in.quick))
    points.push_back({{{block_size.key, s.block_size}, {threads_per_sm.key, s.threads_per_sm()}},
                      {metrics::effective_bandwidth.name}});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(threads_per_sm)
                .colour(block_size)
                .model(keys::model_gbs, "Little's law, loaded latency");
  c.published_metrics = {threads_per_sm.key};
  c.says("Effective bandwidth of Stich's read-increment-write kernel on persistent grids against "
         "the resident threads per SM",
         {"Each launch is exactly the resident blocks (resident blocks per SM x SMs), every "
          "thread looping over the array with one 4-byte load in flight. Dashed: Little's law "
          "for one load in flight per resident thread on littles_law's loaded-latency curve "
          "(B = 2 x SMs x 4 x threads per SM / L(B)). A grid of one block per block-size elements "
          "could reach no more than the measured block launch rate x block size x 8 bytes (each "
          "point's launch bound, in its table row). The occupancy "
          "of each point is in its table row."});
  return c;
}

Chart launch_rate_chart() {
  Chart c = Chart::sweep_of(block_launch_rate).along(block_size, true);
  c.mark = "point";
  c.says("Blocks started per second for a kernel of 2^20 blocks whose first thread writes its "
         "block's index",
         {"The rate the block scheduler starts small blocks: a grid that gives each block a few "
          "elements (Stich's one element per thread) runs at this rate x the bytes a block "
          "moves, whatever the memory can do."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Hiding latency: bandwidth against resident threads per SM",
    .description =
        "Stich's experiment on persistent grids: each thread reads, increments and writes 4-byte "
        "words of a 1 GiB array, looping with one load in flight, on a grid of exactly the "
        "resident blocks (blocks per SM x SMs), swept over resident threads per SM = block size "
        "(64, 256) x resident blocks per SM, the blocks held down by dynamic shared memory (the "
        "least that does it, found with cudaOccupancyMaxActiveBlocksPerMultiprocessor; the "
        "resident blocks and occupancy are stored per point). Bandwidth counts each word read "
        "and written. Each point is checked on the device (every word is its fill value plus the "
        "launches so far) and on the host (its first and last 64 Ki words), and the whole array "
        "once on the host after the sweep. First, the block launch rate: 2^20 blocks of 32, 64, "
        "128 and 256 threads whose first thread writes its block's index (all checked on the "
        "host), in G blocks/s; extra.launch_bound_gbs = rate x block size x 8 bytes, what a "
        "non-persistent grid (one element per thread) could reach. extra.model_gbs is Little's "
        "law for one 4-byte load per thread on littles_law's loaded-latency curve from earlier "
        "in the run.",
    .citation = "T. Stich, Advanced CUDA Programming ('Hiding Latency', 'Launch Configuration'); "
                "CUDA C++ Best Practices Guide 10.1 (occupancy), 10.3 (thread and block "
                "heuristics); J. D. C. Little (1961); Intel Memory Latency Checker",
    .version = 2,
    .order = 8,
    .chapter = Chapter::device_memory,
    .params = {block_size, threads_per_sm, grid_blocks},
    .metrics = {metrics::effective_bandwidth, block_launch_rate},
    .extras = {{"model_latency_ns", "the loaded latency at the model's fixed point"},
               {"model_peak_gbs", "the loaded curve's top bandwidth, the model's cap"},
               {"in_flight_bytes_per_sm", "bytes of loads in flight per SM: 4 per thread"},
               {"resident_blocks_per_sm", "resident blocks per SM (the occupancy API)"},
               {"occupancy", "resident threads over the SM's maximum"},
               {"dynamic_shared_bytes", "the shared memory that holds residency down"},
               {"words", "words of the array"},
               {"launch_bound_gbs", "block launch rate x block size x 8 bytes"},
               {"kernel", "the launch's kernel facts"},
               {"launches_in_final_check", "launches the final host check accounts for"},
               {"final_host_check_words_wrong", "words wrong in the final host check"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {bandwidth_chart(), launch_rate_chart()},
    .plan = plan,
});

} // namespace apod::hiding
