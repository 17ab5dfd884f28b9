#include "sector_model.hpp"

#include <stdexcept>

namespace apod {

uint64_t blocks_touched(uint64_t accesses, uint64_t step_bytes, uint64_t grain) {
  if (accesses == 0)
    return 0;
  // Words a grain or more apart each touch their own block; with smaller gaps every block
  // between the first and the last word is touched.
  return step_bytes >= grain ? accesses : (accesses - 1) * step_bytes / grain + 1;
}

SectorTraffic stride_copy_traffic(uint64_t threads, int word_bytes, int stride,
                                  bool partial_write_rmw) {
  if (threads == 0 || stride < 1 || word_bytes < 1 || word_bytes > sector_bytes ||
      sector_bytes % word_bytes != 0)
    throw std::invalid_argument("stride_copy_traffic: need threads > 0, stride >= 1 and a word "
                                "size dividing the sector");
  const uint64_t step = uint64_t(stride) * word_bytes;
  const uint64_t sectors = blocks_touched(threads, step, sector_bytes);
  const uint64_t read_blocks = blocks_touched(threads, step, dram_read_grain_bytes);
  const bool whole_sectors = stride == 1 || word_bytes == sector_bytes;
  SectorTraffic t;
  t.useful_bytes = 2.0 * double(threads) * word_bytes;
  t.read_bytes = double(read_blocks) * dram_read_grain_bytes;
  t.write_bytes = double(sectors) * sector_bytes;
  // Every written sector is partial unless whole sectors are written; the merge reads the sector.
  t.rmw_read_bytes = partial_write_rmw && !whole_sectors ? double(sectors) * sector_bytes : 0.0;
  return t;
}

double dram_rate_gbs(double reference_gbs, const SectorTraffic& reference) {
  if (reference.efficiency() <= 0 || reference_gbs <= 0)
    throw std::invalid_argument("dram_rate_gbs: the reference moves no bytes");
  return reference_gbs / reference.efficiency();
}

StrideModel stride_model(const SectorTraffic& traffic, double reference_dram_gbs, double gather_ms,
                         double scatter_ms) {
  if (reference_dram_gbs <= 0 || gather_ms <= 0 || scatter_ms <= 0 || traffic.useful_bytes <= 0)
    throw std::invalid_argument("stride_model: need a positive reference rate and times");
  const double bytes_per_ms = reference_dram_gbs * 1e6;
  StrideModel m;
  m.bytes_ms = traffic.moved_bytes() / bytes_per_ms;
  // A calibration faster than its bytes at the reference rate (a read-only stream beats the
  // copy's rate by a few %) leaves a negative row cost: kept, so the parts still add up.
  m.row_load_ms = gather_ms - traffic.read_bytes / bytes_per_ms;
  m.row_store_ms = scatter_ms - (traffic.write_bytes + traffic.rmw_read_bytes) / bytes_per_ms;
  m.model_ms = m.bytes_ms + m.row_load_ms + m.row_store_ms;
  m.model_gbs = traffic.useful_bytes / (m.model_ms * 1e6);
  return m;
}

} // namespace apod
