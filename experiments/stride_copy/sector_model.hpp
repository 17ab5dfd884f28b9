// The 32-byte-sector model of strideCopy (Best Practices Guide 9.2.1.4): what DRAM must move for
// a strided copy, and the bandwidth that leaves for the words actually copied.
//
// On devices of compute capability 6.0 and later the unit of a global access is the 32-byte
// sector: a warp's accesses cost as many sectors as they touch, and a sector is fetched whole
// however few of its words are used (guide 9.2.1 and 9.2.1.1; Tuning CUDA Applications for
// Pascal, "the data access unit is 32B", shared/seeds/003_...). Reads and writes are counted
// apart: a load fetches every sector it touches; a store writes back every sector it touches,
// and when it covers only part of one and ECC is on, the memory must read the sector to
// recompute its check bits before writing it (a read-modify-write). The guide says scattered
// writes cost ECC overhead on GDDR and "some overhead ... but much less" on HBM (8.2.1 and its
// note 2; 9.2.1), without a figure: the model takes the whole read-modify-write when ECC is on,
// an upper bound on the cost, and none when it is off; extra keeps the two terms apart.
#pragma once

#include <cstdint>

namespace apod {

/// The sector size of global memory accesses (guide 9.2.1).
inline constexpr int sector_bytes = 32;

/// Bytes one launch of a copy moves through DRAM, by kind.
struct SectorTraffic {
  double useful_bytes = 0;   ///< what the copy asks for: each word read once and written once
  double read_bytes = 0;     ///< whole sectors fetched for the loads
  double write_bytes = 0;    ///< sectors written back for the stores, whole or partial
  double rmw_read_bytes = 0; ///< sectors read to merge a partial write (ECC on)

  double moved_bytes() const { return read_bytes + write_bytes + rmw_read_bytes; }
  /// useful_bytes / moved_bytes: the share of DRAM traffic that is copied words.
  double efficiency() const { return moved_bytes() > 0 ? useful_bytes / moved_bytes() : 0; }
};

/// The traffic of strideCopy: `threads` threads, thread i copying the word at index i x stride
/// of `word_bytes` (a power of two up to 32) between sector-aligned arrays. A sector is written
/// whole only when every word in it is copied (stride 1, or words as large as a sector).
/// `partial_write_rmw`: a partly written sector costs a read as well (ECC on).
SectorTraffic stride_copy_traffic(uint64_t threads, int word_bytes, int stride,
                                  bool partial_write_rmw);

/// The bandwidth in copied bytes per second the model expects for `traffic`, if DRAM moves
/// bytes at the rate it did for `reference` (a measured point of the same kernel, e.g. stride 1,
/// whose effective bandwidth was `reference_gbs`): reference_gbs / reference.efficiency() x
/// traffic.efficiency().
double sector_model_gbs(double reference_gbs, const SectorTraffic& reference,
                        const SectorTraffic& traffic);

} // namespace apod
