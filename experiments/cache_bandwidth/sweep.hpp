// cache_bandwidth's host arithmetic: which working sets each access pattern visits, how much a
// sample reads, and how the L1, L2 and DRAM levels are read off the measured bandwidth curves.
// The detection is memory_latency's (ladder.hpp: least-squares plateaus on a log scale, then the
// same naming of levels), run on time per byte, the reciprocal of bandwidth, so a lower level
// is a higher plateau as on the latency ladder. Host-only, unit-tested in test_sweep.cpp.
#pragma once

#include "../memory_latency/ladder.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod::cache_bw {

/// Every set is whole 128-byte lines (the L1 and L2 line); a load moves 16 bytes (uint4).
inline constexpr size_t line_bytes = 128;
inline constexpr size_t load_bytes = 16;

/// The smallest set: 16 KiB, well inside every L1 since Volta.
inline constexpr size_t smallest_set_bytes = size_t(16) << 10;
/// The per-SM sweep ends, and the whole-GPU one starts, here: 1 MiB is four times the largest
/// L1 (256 KiB of unified L1 and shared memory per SM on Hopper), and the two overlap at it.
inline constexpr size_t per_sm_last_bytes = size_t(1) << 20;

/// The sweep's points of one pattern, ascending, whole lines:
/// - per_sm: powers of two from 16 KiB to 1 MiB, and 1/2, 3/4, 7/8, 1, 9/8, 5/4, 3/2 of the
///   shared memory per SM (the unified array that holds the L1); `full`: every quarter power of
///   two besides.
/// - gpu_read: powers of two from 1 MiB to 4x the L2, the L2's eighths from 1/8 to 1 (sixteenths
///   around its half, where H100's near and far partitions meet), 9/8, 5/4, 3/2, 2, 3 and 4x the
///   L2; `full`: every quarter power of two and every sixteenth of the L2 up to 2x besides.
/// - gpu_write: 1/4, 1/2, 3/4 and 1x the L2 (L2-resident) and 2x and 4x (DRAM), plus 1 MiB;
///   `full`: the gpu_read default sets.
/// - quick (the gpu suite): per_sm 1/4 of the shared memory and 1 MiB; gpu_read and gpu_write
///   1/4 of the L2 and 4x the L2.
/// A fraction within 3% of a power of two is left out (so is a --full extra within 3% of a
/// default point: --full adds points and never moves the default's). Throws
/// std::invalid_argument for a pattern it does not know or sizes that are not positive.
std::vector<size_t> working_sets(const std::string& pattern, int64_t shared_bytes_per_sm,
                                 int64_t l2_bytes, bool quick, bool full);

/// The pattern names (params pattern).
inline constexpr const char* per_sm_read = "per_sm_read";
inline constexpr const char* gpu_read = "gpu_read";
inline constexpr const char* gpu_write = "gpu_write";
inline constexpr const char* patterns[] = {per_sm_read, gpu_read, gpu_write};

/// Passes a per_sm sample makes over its set, each block reading the whole set once per pass:
/// enough that the grid reads at least `target_bytes` (at least 1).
uint64_t per_sm_passes(size_t set_bytes, uint64_t blocks, uint64_t target_bytes);
/// Laps a whole-GPU sample makes over its set (each byte once per lap): at least `target_bytes`
/// in all, at least 1.
uint64_t gpu_laps(size_t set_bytes, uint64_t target_bytes);

/// The levels read off the two read curves: the L1 from the per-SM curve (its first plateau),
/// the L2 (near and far partitions when the curve steps between them) and DRAM from the
/// whole-GPU curve, named by memory_latency's rule (name_levels), after leaving out the
/// whole-GPU plateaus that run past the L2 short of the last (the cliff flattening on its way
/// to DRAM while a share of the set still hits). Bandwidths in GB/s are the
/// medians of each plateau's points; 0 where a level was not found.
struct BandwidthLevels {
  LadderLevels sizes;            ///< the detected sizes, as the ladder names them
  std::vector<Plateau> per_sm;   ///< the per-SM curve's plateaus (latency: ns per byte)
  std::vector<Plateau> gpu;      ///< the whole-GPU curve's plateaus
  double l1_gbs = 0, l2_gbs = 0; ///< l2_gbs: the first L2 plateau (the near one when split)
  double l2_far_gbs = 0;         ///< when the L2 splits into near and far
  double dram_gbs = 0;           ///< when the last plateau lies past 1.5x the L2
  size_t l1_extent = 0, l2_extent = 0, l2_far_extent = 0, dram_extent = 0; ///< largest sets
};

/// Detection parameters on log(ns per byte): a level is flat within 10% and lies at least 8%
/// below the one before (bandwidth plateaus are flatter than the latency ladder's, and the H100
/// far-L2 step is smaller in bandwidth than in latency).
inline constexpr double plateau_penalty = 0.005, plateau_spread = 0.10, plateau_step = 0.08;
/// The L1 on the per-SM curve: the points within this fraction of its fastest (sweep.cpp).
inline constexpr double l1_within = 0.10;

/// Reads the levels off the curves (ascending sets, one bandwidth in GB/s each, positive).
/// Throws std::invalid_argument as detect_plateaus does.
BandwidthLevels detect_levels(const std::vector<size_t>& per_sm_bytes,
                              const std::vector<double>& per_sm_gbs,
                              const std::vector<size_t>& gpu_bytes,
                              const std::vector<double>& gpu_gbs, int64_t l2_bytes);

/// The L2's two halves on the whole-GPU curve: the median bandwidth of the sets from 1/8 to 3/8
/// of the L2 (near) and from 5/8 to 7/8 (far), each side clear of the half, where H100's
/// partitions meet, and of the full L2, where DRAM begins; 0 for a side with no point.
struct L2Halves {
  double near_gbs = 0, far_gbs = 0;
  /// far over near: below 1, the far partition is slower; 0 when either side has no point.
  double far_over_near() const { return near_gbs > 0 && far_gbs > 0 ? far_gbs / near_gbs : 0; }
};
L2Halves l2_halves(const std::vector<size_t>& gpu_bytes, const std::vector<double>& gpu_gbs,
                   int64_t l2_bytes);

/// The median of the values (0 for none).
double median_of(std::vector<double> values);

} // namespace apod::cache_bw
