// The latency ladder's host arithmetic: which working sets the full-traversal sweep visits, how
// many steps a sample takes, and how the cache levels are read off the measured curve (plateaus
// and the steps between them). Host-only, unit-tested in test_ladder.cpp on synthetic curves and
// on the committed runs of both GPU models.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod {

/// The swept working sets, ascending, whole 128-byte lines. Full traversals of large sets are
/// slow (a lap of 2x a 50 MiB L2 is 0.8 M dependent DRAM loads, ~0.3 s), so the points sit where
/// the curve changes: dense around the L1 (fractions 1/16 .. 2 of the shared memory per SM,
/// whose unified array holds the L1), a few powers of two between, dense around the L2's halves
/// and its full size (1/8 .. 1 of the L2 in eighths and sixteenths near 1/2), then 5/4 and 2x
/// the L2 for DRAM. Quick: one set per level and one in each step.
std::vector<size_t> ladder_working_sets(int64_t shared_bytes_per_sm, int64_t l2_bytes, bool quick);

/// The named level points (params level) and their sets: l1 a quarter of the shared memory per
/// SM, l2 (the near partition) a quarter of the L2, l2_far 7/8 of the L2, dram twice the L2.
struct LadderProbe {
  const char* level;
  size_t bytes;
};
std::vector<LadderProbe> ladder_probes(int64_t shared_bytes_per_sm, int64_t l2_bytes);

/// Steps one timed sample chases: at least a whole lap of the set (every line once) and at
/// least `min_steps`, never a whole number of laps, so a chain that loops on itself cannot end
/// on the node the host expects.
uint64_t lap_steps(size_t working_set_bytes, uint64_t min_steps);

/// A plateau of the curve: points first..last (indices into the sweep) whose latencies a
/// single level explains.
struct Plateau {
  size_t first = 0, last = 0;
  double latency = 0;     ///< median latency of its points
  size_t first_bytes = 0; ///< the smallest set on it
  size_t last_bytes = 0;  ///< the largest set on it: the level's detected size
  size_t next_bytes = 0;  ///< the first set past it (0: the sweep's end)
};

/// Splits the curve (ascending sizes, one latency each, positive) into plateaus by least
/// squares on log latency: the segmentation that minimises the squared deviations of each
/// point's log latency from its segment's mean plus `penalty` per segment (dynamic programming,
/// exact). A segment is a level when it holds two points or more and its highest latency is
/// within `max_spread` of its lowest; a single point, or a segment still rising, lies between
/// two levels. The sweep's last segment is always a level (the one past every cache). A level
/// whose median is less than `min_step` above the previous level's joins it. Throws
/// std::invalid_argument for mismatched or empty input or a latency that is not positive.
std::vector<Plateau> detect_plateaus(const std::vector<size_t>& bytes,
                                     const std::vector<double>& latency, double penalty = 0.005,
                                     double max_spread = 0.15, double min_step = 0.20);

/// The levels the plateaus stand for: the first is the L1; the last is DRAM when its largest
/// set is at least 1.5x the L2; between them the L2, split into its near and far partitions
/// when there are two. Sizes 0 where a level was not found.
struct LadderLevels {
  int plateaus = 0;
  size_t l1_bytes = 0;      ///< largest set on the L1 plateau
  size_t l2_near_bytes = 0; ///< largest set on the near-L2 plateau (0: no near/far step)
  size_t l2_bytes = 0;      ///< largest set on the last plateau before DRAM
  double l1_latency = 0, l2_near_latency = 0, l2_far_latency = 0, dram_latency = 0;
  bool dram_found = false;
};
LadderLevels name_levels(const std::vector<Plateau>& plateaus, int64_t l2_bytes);

} // namespace apod
