// shared_memory's declaration: shared-memory bandwidth per SM and per GPU by access width, the
// wavefronts of strided requests against the bank model, the padding trick, the slides' stencil
// and a cluster's distributed shared memory.
#include "declaration.hpp"

#include <string>
#include <utility>

namespace apod::smem {

const std::vector<Stride>& strides() {
  static const std::vector<Stride> all = {
      {4, 1}, {4, 2}, {4, 3}, {4, 4},  {4, 8},  {4, 16}, {4, 32}, {4, 33}, {8, 1}, {8, 2},
      {8, 3}, {8, 4}, {8, 8}, {8, 16}, {16, 1}, {16, 2}, {16, 3}, {16, 4}, {16, 8}};
  return all;
}

const std::vector<int>& cluster_access_bytes() {
  static const std::vector<int> all = {4, 16};
  return all;
}

bool plans_clusters(const DeviceInfo& device) {
  return device.cc_major >= 9;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const Stride& s : strides()) {
    PlannedPoint p{
        {{test.key, strided}, {access_bytes.key, s.access_bytes}, {stride.key, s.stride}},
        {bandwidth_per_sm.name, wavefronts.name}};
    if (s.stride == 1)
      p.metrics.push_back(bandwidth_per_gpu.name);
    points.push_back(p);
  }
  for (const int p : {0, 1})
    points.push_back({{{test.key, padding}, {pad.key, p}}, {bandwidth_per_sm.name}});
  for (const char* v : {shared_tile, global_direct})
    points.push_back({{{test.key, stencil}, {variant.key, v}}, {stencil_bandwidth.name}});
  if (plans_clusters(in.device)) {
    for (const int bytes : cluster_access_bytes())
      for (const char* t : {local_block, neighbour_block})
        points.push_back({{{test.key, distributed}, {target.key, t}, {access_bytes.key, bytes}},
                          {bandwidth_per_sm.name},
                          cluster_when});
    for (const char* t : {local_block, neighbour_block})
      points.push_back({{{test.key, distributed}, {target.key, t}, {access_bytes.key, 4}},
                        {latency.name},
                        cluster_when});
  }
  return points;
}

// A metric of the strided points against the stride, a series per access width, with its model.
Chart strided_sweep(const Metric& metric, std::string model_label, std::string y_title) {
  Chart c = Chart::sweep_of(metric)
                .along(stride, true, 2)
                .colour(access_bytes)
                .only_where(test, strided)
                .model(keys::model, std::move(model_label));
  c.mark = "point";
  c.log_y = true;
  c.y_title = std::move(y_title);
  return c;
}

Chart strided_chart() {
  Chart c = strided_sweep(bandwidth_per_sm, "conflict-free figure x fewest wavefronts / wavefronts",
                          "shared-memory bandwidth per SM (GB/s, log scale)");
  c.says("Shared-memory bandwidth per SM of a warp's 4-, 8- and 16-byte loads against the stride",
         {"Ticks: the bank model (bank_conflicts/model.hpp): a request takes as many wavefronts "
          "as the most distinct words one bank holds per phase (a warp for 4 bytes, half-warps "
          "for 8, quarter-warps for 16), so the figure is the stride-1 one scaled by the fewest "
          "wavefronts over the point's; odd strides are conflict-free at every width. The "
          "limit: 32 banks x 4 bytes per clock x the SM clock."});
  return c;
}

Chart wavefront_chart() {
  Chart c = strided_sweep(wavefronts, "wavefronts per request (bank model)",
                          "SM clocks per warp request (log scale)");
  c.says("Clocks a warp's shared-memory request takes, measured, against the bank model's "
         "wavefronts",
         {"Measured: 32 x access bytes over the bytes per clock the SM delivered (the sample's "
          "own SM clock), which is the wavefronts per request if the banks serve one wavefront "
          "per clock. No bound is claimed: the residual is drawn for reading."});
  return c;
}

Chart per_gpu_chart() {
  Chart c = Chart::sweep_of(bandwidth_per_gpu).along(access_bytes).only_where(test, strided);
  c.mark = "bar";
  c.y_title = "shared-memory bandwidth of all SMs (GB/s)";
  c.says("Conflict-free shared-memory bandwidth of the whole GPU by load width",
         {"Every SM full of blocks reading their own tile at stride 1. The limit: 32 banks x 4 "
          "bytes per clock x SM clock x SMs. Published: Stich's 1.1-1.4 TB/s for GT200 (30 SMs "
          "of 38-44 GB/s)."});
  return c;
}

Chart padding_chart() {
  Chart c = Chart::sweep_of(bandwidth_per_sm)
                .along(pad)
                .only_where(test, padding)
                .model(keys::model, "conflict-free 4-byte figure / wavefronts");
  c.mark = "bar";
  c.y_title = "shared-memory bandwidth per SM (GB/s)";
  c.says("The padding trick: a 32 x 32 tile read by columns, float[32][32] against [32][33]",
         {"A column's words lie 32 words apart (one bank: 32 wavefronts a request) or 33 with "
          "a word of padding per row (32 banks: one)."});
  return c;
}

Chart stencil_chart() {
  Chart c = Chart::sweep_of(stencil_bandwidth).along(variant).only_where(test, stencil);
  c.mark = "bar";
  c.y_title = "effective bandwidth (GB/s, input and output once)";
  c.says("The slides' 1-D stencil (radius 3) from a shared tile and from global memory",
         {"16 Mi outputs, past the L2: both read DRAM once; the direct version leaves the "
          "seven-fold reuse to the L1 cache. The slides' shape, one output per thread, keeps "
          "one 4-byte load per thread in flight (8 KiB per full SM), too few bytes for DRAM's "
          "latency (Little's law), so both stay well under the limit, the theoretical DRAM "
          "bandwidth."});
  return c;
}

Chart cluster_chart() {
  Chart c = Chart::sweep_of(bandwidth_per_sm)
                .along(access_bytes)
                .colour(target)
                .only_where(test, distributed);
  c.mark = "bar";
  c.y_title = "shared-memory bandwidth per SM (GB/s)";
  c.says("Distributed shared memory: a block reading its own tile against its neighbour's in a "
         "cluster of two",
         {"Clusters of two blocks fill the GPU; the neighbour's tile is read through "
          "cluster.map_shared_rank (compute capability 9.0 and later)."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(latency).along(target).only_where(test, distributed);
  c.mark = "bar";
  c.y_title = "clocks per dependent load";
  c.says("Latency of a dependent shared-memory load, own block against the cluster neighbour's",
         {"One thread per block chases a random cycle through 4096 slots (clock64 around it)."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Shared memory: bandwidth, access widths, padding, stencil, clusters",
    .description =
        "Shared-memory bandwidth in GB/s per SM and for the GPU. Every SM is filled with "
        "256-thread blocks (occupancy API), each reading an 8 KiB tile of its own with 4-, 8- or "
        "16-byte loads, lane l at element l x stride (strides 1, 2, 3, 4, 8, 16, 32, 33 for 4 "
        "bytes; 1-16 for 8; 1-8 for 16) plus an offset the warp shares, advancing one element "
        "per read; the figure is the bytes the lanes asked for over the launch's time (CUDA "
        "events; the tile fill and the launch are inside it), per SM (over all SMs) and for "
        "the GPU (stride 1), against 32 banks x 4 bytes per clock x the SM clock "
        "(extra.limit_gbs). wavefronts_per_request: the SM clocks a warp's request took (32 x "
        "access bytes over the bytes per clock per SM, at each sample's measured SM clock), "
        "against the bank model's wavefronts (bank_conflicts/model.hpp) as extra.model; the "
        "bandwidth's extra.model is the stride-1 figure of the same width scaled by the fewest "
        "wavefronts over the point's. Padding: a 32 x 32 word tile read by columns (lane l "
        "reads row l's words in turn, so a warp reads a column at a time), without (32-way) and "
        "with one word of padding per row. Stencil: the slides' 1-D stencil of "
        "radius 3 over 16 Mi outputs, from a shared tile (the slides' kernel) and from global "
        "memory directly, as effective bandwidth (input and output once). Cluster (compute "
        "capability 9.0 and later): clusters of two blocks, each reading its own tile or its "
        "neighbour's (cluster.map_shared_rank), 4- and 16-byte loads, per SM; and the latency "
        "of a dependent load (one thread chasing a random cycle of 4096 slots, clock64). Every "
        "thread's sum, every stencil output and every chase's end is checked on the host.",
    .citation = "Stich, Advanced CUDA Programming (seed 001): Memory Hierarchy Review (38-44 GB/s "
                "per multiprocessor), Shared Memory, Example of Using Shared Memory (1-D "
                "stencil), Bank Addressing Examples; CUDA C++ Programming Guide: Shared Memory "
                "(compute capability 5.x and later), Thread Block Clusters, Distributed Shared "
                "Memory",
    .version = 1,
    .order = 61,
    .chapter = Chapter::caches_on_chip,
    .params = {test, access_bytes, stride, pad, variant, target},
    .metrics = {bandwidth_per_sm, bandwidth_per_gpu, wavefronts, stencil_bandwidth, latency},
    .extras = {{"elements_wrong", "threads (or outputs) whose result differed from the host's"},
               {"reads_per_thread", "shared-memory reads per thread per launch"},
               {"bytes_per_launch", "bytes the lanes asked for per launch"},
               {"model_wavefronts", "wavefronts per request by the bank model"},
               {"slowdown_vs_conflict_free", "the stride-1 figure of the width over this one"},
               {"radius", "the stencil's radius"},
               {"outputs", "the stencil's outputs"},
               {"cluster_blocks", "blocks per thread-block cluster"},
               {"active_clusters", "clusters resident at once (cudaOccupancyMaxActiveClusters)"},
               {"chase_steps", "dependent loads per chase"},
               {"chase_slots", "slots of the chased cycle"},
               {"kernel", "the launch's kernel facts"}},
    .headline = bandwidth_per_gpu.name,
    .charts = {per_gpu_chart(), strided_chart(), wavefront_chart(), padding_chart(),
               stencil_chart(), cluster_chart(), latency_chart()},
    .plan = plan,
});

} // namespace apod::smem
