// Host arithmetic of launch_overhead (launch_overhead.cu): the methods measured, the batch sizes,
// a batch's time turned into time per kernel, and the count the kernels' counter must reach.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace apod::launch {

/// One way of launching: its method name (the `method` param), kernels per API call, whether
/// it is timed with events on the GPU's timeline (else steady_clock on the host) and whether it
/// needs thread-block clusters (compute capability 9.0).
struct Method {
  std::string name;
  int kernels_per_call = 1;
  bool events = true;
  bool needs_clusters = false;
  bool graph() const { return name.rfind("graph_", 0) == 0; }
};

/// Every method, in the order measured: stream, stream_submit, round_trip, launch_ex,
/// launch_ex_cluster, graph_10, graph_100, graph_1000.
const std::vector<Method>& methods();

/// Graph node counts measured (the 10, 100 and 1000).
inline constexpr int graph_sizes[] = {10, 100, 1000};

/// The cluster size of the cluster launch (the smallest cluster, 2 blocks; the grid is one
/// cluster).
inline constexpr int cluster_blocks = 2;

/// Kernels per timed sample of a method: 200 (quick: 100) back to back, ~0.7 ms on an H100, so
/// the events' ~0.5 us resolution is under 0.1% of a sample and a point's 0.15 s holds ~200
/// samples for the median (1000 a sample gave 28 samples and a noisy median on the first H100
/// run). Graphs: whole graph launches adding up to that, at least one (graph_1000: 1000). A
/// round trip: 100 (quick: 20), ~1 ms. Host submit: 256 (quick: 64), under the launch queue's
/// depth (~1000 pending launches), past which the host would wait for the GPU and time its
/// execution instead.
int kernels_per_sample(const Method& m, bool quick);

/// Graph launches per sample: kernels_per_sample / nodes, at least 1.
int graph_launches_per_sample(const Method& m, bool quick);

/// A sample's time per kernel in microseconds: `sample_ms` for `kernels` kernels. Throws
/// std::invalid_argument if kernels < 1.
double per_kernel_us(double sample_ms, long long kernels);

/// What the counter holds after `launches` launches of `blocks_per_launch` blocks, each block
/// adding its cluster's block count (1 without a cluster): a launch that was skipped, or a
/// cluster that did not form, leaves another count.
unsigned long long expected_count(long long launches, int blocks_per_launch, int cluster_size);

} // namespace apod::launch
