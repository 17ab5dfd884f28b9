// cache_bandwidth's level points, made from the two read curves on the host: the plateau
// bandwidths (L1, L2, far L2, DRAM), the DRAM plateau over the theoretical bandwidth, the far
// half of the L2 over its near half, and the detected level sizes beside memory_latency's. One
// detection per repetition (sample r of every point makes curve r), so each figure has samples
// like a measured one; the detection of the curves of medians goes in extra.
#pragma once

#include "core/experiment.hpp"
#include "core/series.hpp"

#include <cstddef>
#include <vector>

namespace apod::cache_bw {

/// One read curve: its sets, ascending, and each set's bandwidth samples in GB/s (every series
/// as long as the others); verified while every point's sums matched.
struct Curve {
  std::vector<size_t> bytes;
  std::vector<Series> gbs;
  bool verified = true;
  void add(Series s, bool ok) {
    gbs.push_back(std::move(s));
    verified = verified && ok;
  }
};

/// Records the level points the plan lists for a run that is not --quick (declaration.cpp):
/// level_bandwidth_gbs (l1, l2, dram; l2_far where the L2 steps), fraction_of_theoretical
/// (dram), l2_far_over_near (l2), detected_size_bytes (l1, l2; l2_near where the L2 steps). A
/// level the curves do not show is recorded as a failed point that says so. Throws
/// std::invalid_argument when a curve is empty or its series differ in length.
void record_levels(ExperimentContext& ctx, const Curve& per_sm, const Curve& gpu);

} // namespace apod::cache_bw
