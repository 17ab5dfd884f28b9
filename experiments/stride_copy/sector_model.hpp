// The sector model of strideCopy (Best Practices Guide 9.2.1.4), as measured on Hopper: what DRAM
// must move for a strided copy at a DRAM-bound copy's rate, plus what sparse accesses cost per
// access beyond their bytes.
//
// Bytes. The unit of a global access is the 32-byte sector (guide 9.2.1 and 9.2.1.1; Tuning CUDA
// Applications for Pascal, "the data access unit is 32B"). DRAM is read at a coarser grain: the
// L2 fetches 64 bytes for a lone sector (issue 20's counters: read-only sectors at 64/128/256-byte
// spacing read 2.00x the bytes asked; the experiment's gather at 64-byte spacing runs 1.8x faster
// with cudaLimitMaxL2FetchGranularity at 32, so it is the L2's fetch policy). Loads are charged
// per 64-byte block touched. Stores write back every sector they touch; a partly written sector
// costs a read-modify-write when ECC is on (guide 8.2.1), read per 32-byte sector: the H100's
// scatter at 64-byte spacing moves its bytes at 2.4 TB/s so counted, at 3.6 TB/s (above the
// copy peak) if each merge read 64 bytes.
//
// Accesses. Sparse accesses cost per access, not per byte (the review: strides 16 and 32 move
// the same DRAM bytes in different times), and the cost depends on the spacing (DRAM rows
// opened per access). The experiment measures it at each spacing: a gather (the copy's loads
// alone) and a scatter (its stores alone); each one's per-access row cost is its time less its
// own bytes at the reference rate. The copy pays its bytes and both row costs:
//   t_model = dram_bytes / reference_rate + row_load + row_store
//           = t_gather + t_scatter   (the bytes of the two calibrations add up to the copy's)
// The reference rate is a DRAM-bound copy's (peak_copy: dense, 64 bytes in flight per thread),
// and nothing in the model is the copy point it predicts.
#pragma once

#include <cstdint>
#include <string>

namespace apod {

/// The sector size of global memory accesses (guide 9.2.1).
inline constexpr int sector_bytes = 32;
/// The grain the L2 reads DRAM at for loads on Hopper (its default fetch granularity).
inline constexpr int dram_read_grain_bytes = 64;

/// Bytes one launch of a copy moves through DRAM, by kind.
struct SectorTraffic {
  double useful_bytes = 0;   ///< what the copy asks for: each word read once and written once
  double read_bytes = 0;     ///< 64-byte blocks fetched for the loads
  double write_bytes = 0;    ///< sectors written back for the stores, whole or partial
  double rmw_read_bytes = 0; ///< sectors read to merge partial writes (ECC on)

  double moved_bytes() const { return read_bytes + write_bytes + rmw_read_bytes; }
  /// useful_bytes / moved_bytes: the share of DRAM traffic that is copied words.
  double efficiency() const { return moved_bytes() > 0 ? useful_bytes / moved_bytes() : 0; }
};

/// How many `grain`-byte blocks `accesses` words of `word_bytes`, `step_bytes` apart from a
/// grain-aligned start, touch (each word lies in one block: word_bytes divides the grain).
uint64_t blocks_touched(uint64_t accesses, uint64_t step_bytes, uint64_t grain);

/// The traffic of strideCopy: `threads` threads, thread i copying the word at index i x stride
/// of `word_bytes` (a power of two up to 32) between arrays aligned to the read grain. A sector
/// is written whole only when every word in it is copied (stride 1, or sector-sized words).
/// `partial_write_rmw`: a partly written sector costs a read as well (ECC on).
SectorTraffic stride_copy_traffic(uint64_t threads, int word_bytes, int stride,
                                  bool partial_write_rmw);

/// The model's parts for one stride, all in ms for one launch of `threads` words.
struct StrideModel {
  double bytes_ms = 0;     ///< the copy's DRAM bytes at the reference rate
  double row_load_ms = 0;  ///< the gather's time less its bytes at the reference rate
  double row_store_ms = 0; ///< the scatter's time less its bytes at the reference rate
  double model_ms = 0;     ///< bytes_ms + row_load_ms + row_store_ms
  double model_gbs = 0;    ///< useful bytes over model_ms
};

/// The model of a copy with `traffic`, from the DRAM rate of a DRAM-bound copy
/// (`reference_dram_gbs`, its moved bytes per second) and the gather's and scatter's median
/// times at the same stride (the copy's loads alone: traffic.read_bytes; its stores alone:
/// write_bytes + rmw_read_bytes). Throws std::invalid_argument for a rate <= 0 or times <= 0.
StrideModel stride_model(const SectorTraffic& traffic, double reference_dram_gbs, double gather_ms,
                         double scatter_ms);

/// The DRAM rate (moved bytes per second, GB/s) of a reference copy whose useful bandwidth was
/// `reference_gbs`: reference_gbs / reference.efficiency().
double dram_rate_gbs(double reference_gbs, const SectorTraffic& reference);

} // namespace apod
