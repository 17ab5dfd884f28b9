#include "sector_model.hpp"

#include <stdexcept>

namespace apod {

SectorTraffic stride_copy_traffic(uint64_t threads, int word_bytes, int stride,
                                  bool partial_write_rmw) {
  if (threads == 0 || stride < 1 || word_bytes < 1 || word_bytes > sector_bytes ||
      sector_bytes % word_bytes != 0)
    throw std::invalid_argument("stride_copy_traffic: need threads > 0, stride >= 1 and a word "
                                "size dividing the sector");
  const uint64_t step_bytes = uint64_t(stride) * word_bytes;
  // Words closer than a sector share sectors, and with gaps under a sector every sector between
  // the first and the last word is touched; words a sector or more apart each touch their own.
  const uint64_t sectors = step_bytes >= uint64_t(sector_bytes)
                               ? threads
                               : (threads - 1) * step_bytes / sector_bytes + 1;
  const bool whole_sectors = stride == 1 || word_bytes == sector_bytes;
  const uint64_t full_sectors = !whole_sectors ? 0
                                : stride == 1  ? threads * word_bytes / sector_bytes
                                               : threads;
  SectorTraffic t;
  t.useful_bytes = 2.0 * double(threads) * word_bytes;
  t.read_bytes = double(sectors) * sector_bytes;
  t.write_bytes = double(sectors) * sector_bytes;
  t.rmw_read_bytes = partial_write_rmw ? double(sectors - full_sectors) * sector_bytes : 0.0;
  return t;
}

double sector_model_gbs(double reference_gbs, const SectorTraffic& reference,
                        const SectorTraffic& traffic) {
  if (reference.efficiency() <= 0)
    throw std::invalid_argument("sector_model_gbs: the reference moves no bytes");
  return reference_gbs / reference.efficiency() * traffic.efficiency();
}

} // namespace apod
