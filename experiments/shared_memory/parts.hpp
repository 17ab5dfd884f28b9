// The parts of the shared_memory experiment that live in their own translation units: the
// slides' stencil (stencil.cu) and the thread-block cluster points (cluster.cu), each recording
// its points; and the sampling policy every part shares.
#pragma once

#include "core/experiment.hpp"

#include <algorithm>

namespace apod::smem {

/// Threads per block of the strided, padding and cluster kernels.
inline constexpr int block_size = 256;
/// Reads per loop trip, at immediate offsets from one address.
inline constexpr int unroll = 8;
/// Bytes of the tile the strided and cluster kernels read (a power of two; 8 KiB leaves room for
/// every resident block of a full SM).
inline constexpr unsigned tile_bytes = 8192;

/// The run's policy with the point's wall time capped (the budget: ~30 points in 1.5 s) and no
/// L2 flush for the on-chip points (their data is loaded once per block from a few KiB).
inline SamplingPolicy point_policy(const ExperimentContext& ctx, bool flush_l2 = false) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, ctx.options.quick ? 0.01 : 0.04);
  policy.flush_l2 = flush_l2 && policy.flush_l2;
  return policy;
}

/// The slides' 1-D stencil of radius 3 from a shared tile and from global memory: two points.
void measure_stencil(ExperimentContext& ctx);

/// Distributed shared memory across a cluster of two blocks (compute capability 9.0 and later):
/// bandwidth of reads from the block's own and its neighbour's shared memory at each width of
/// cluster_access_bytes(), and the dependent-load latency of each. Records nothing where the
/// device has no clusters.
void measure_cluster(ExperimentContext& ctx);

} // namespace apod::smem
