#include "sweep.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace apod::cache_bw {
namespace {

size_t whole_lines(double bytes) {
  const auto b = size_t(std::max(bytes, double(line_bytes)));
  return b / line_bytes * line_bytes;
}

// Whole lines, ascending, without near-duplicates: `first` are kept as given (the powers of two,
// the default's points), then each of `more` only where no kept point lies within 3% of it (a
// fraction of the device's sizes beside a power of two would only weigh a plateau twice).
std::vector<size_t> merge(const std::vector<double>& first, const std::vector<double>& more) {
  std::vector<size_t> kept;
  const auto near_kept = [&](size_t b) {
    return std::any_of(kept.begin(), kept.end(), [&](size_t k) {
      return double(std::max(b, k)) <= 1.03 * double(std::min(b, k));
    });
  };
  for (double s : first)
    if (const size_t b = whole_lines(s); std::find(kept.begin(), kept.end(), b) == kept.end())
      kept.push_back(b);
  for (double s : more)
    if (const size_t b = whole_lines(s); !near_kept(b))
      kept.push_back(b);
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<double> as_doubles(const std::vector<size_t>& sets) {
  return {sets.begin(), sets.end()};
}

// Powers of two (`per_octave` points per doubling) from `first` up to `last`, both included.
std::vector<double> powers(double first, double last, int per_octave) {
  std::vector<double> sets;
  for (int k = 0;; ++k) {
    const double b = first * std::pow(2.0, double(k) / per_octave);
    if (b > last * 1.0001)
      break;
    sets.push_back(b);
  }
  return sets;
}

std::vector<size_t> gpu_read_default(double l2) {
  return merge(powers(double(per_sm_last_bytes), 4 * l2, 1),
               {0.125 * l2, 0.25 * l2, 0.375 * l2, 0.4375 * l2, 0.5 * l2, 0.5625 * l2, 0.625 * l2,
                0.75 * l2, 0.875 * l2, l2, 1.125 * l2, 1.25 * l2, 1.5 * l2, 2 * l2, 3 * l2,
                4 * l2});
}

} // namespace

std::vector<size_t> working_sets(const std::string& pattern, int64_t shared_bytes_per_sm,
                                 int64_t l2_bytes, bool quick, bool full) {
  if (shared_bytes_per_sm <= 0 || l2_bytes <= 0)
    throw std::invalid_argument("working_sets: need the shared memory per SM and the L2 size");
  const double shared = double(shared_bytes_per_sm), l2 = double(l2_bytes);
  std::vector<size_t> sets;
  if (pattern == per_sm_read) {
    if (quick)
      return merge({shared / 4, double(per_sm_last_bytes)}, {});
    sets = merge(powers(double(smallest_set_bytes), double(per_sm_last_bytes), 1),
                 {0.5 * shared, 0.75 * shared, 0.875 * shared, shared, 1.125 * shared,
                  1.25 * shared, 1.5 * shared});
    if (full)
      sets =
          merge(as_doubles(sets), powers(double(smallest_set_bytes), double(per_sm_last_bytes), 4));
  } else if (pattern == gpu_read) {
    if (quick)
      return merge({l2 / 4, 4 * l2}, {});
    sets = gpu_read_default(l2);
    if (full) {
      std::vector<double> more = powers(double(per_sm_last_bytes), 4 * l2, 4);
      for (int sixteenth = 1; sixteenth <= 32; ++sixteenth)
        more.push_back(sixteenth * l2 / 16);
      sets = merge(as_doubles(sets), more);
    }
  } else if (pattern == gpu_write) {
    if (quick)
      return merge({l2 / 4, 4 * l2}, {});
    sets = merge({double(per_sm_last_bytes), l2 / 4, l2 / 2, 0.75 * l2, l2, 2 * l2, 4 * l2}, {});
    if (full)
      sets = merge(as_doubles(sets), as_doubles(gpu_read_default(l2)));
  } else {
    throw std::invalid_argument("working_sets: no pattern called " + pattern);
  }
  return sets;
}

uint64_t per_sm_passes(size_t set_bytes, uint64_t blocks, uint64_t target_bytes) {
  const double per_pass = double(set_bytes) * double(std::max<uint64_t>(1, blocks));
  return std::max<uint64_t>(1, uint64_t(std::ceil(double(target_bytes) / per_pass)));
}

uint64_t gpu_laps(size_t set_bytes, uint64_t target_bytes) {
  return std::max<uint64_t>(
      1, uint64_t(std::ceil(double(target_bytes) / double(std::max<size_t>(1, set_bytes)))));
}

double median_of(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

std::vector<double> ns_per_byte(const std::vector<double>& gbs) {
  std::vector<double> out;
  for (double g : gbs)
    out.push_back(g > 0 && std::isfinite(g) ? 1.0 / g : -1.0); // detect_plateaus refuses -1
  return out;
}

double plateau_gbs(const Plateau& p, const std::vector<double>& gbs) {
  return median_of({gbs.begin() + long(p.first), gbs.begin() + long(p.last) + 1});
}

// The per-SM curve's L1: the points within `within` of its fastest, contiguous around it. The
// least-squares plateaus missed it on an H100 (16-233 KiB rise from 23 to 29.6 TB/s, then fall),
// and the first plateau they found, 285 KiB-1 MiB at 20.6 TB/s, is no level: blocks of one SM
// reread lines within the L1's reach of each other, a mix of L1 and L2 hits.
Plateau fastest_run(const std::vector<size_t>& bytes, const std::vector<double>& gbs,
                    double within) {
  if (gbs.empty() || gbs.size() != bytes.size() ||
      std::any_of(gbs.begin(), gbs.end(), [](double g) { return !(g > 0 && std::isfinite(g)); }))
    throw std::invalid_argument("the per-SM curve needs a positive bandwidth at every set");
  const size_t top = size_t(std::max_element(gbs.begin(), gbs.end()) - gbs.begin());
  const double floor = gbs[top] * (1 - within);
  Plateau p;
  p.first = p.last = top;
  while (p.first > 0 && gbs[p.first - 1] >= floor)
    --p.first;
  while (p.last + 1 < gbs.size() && gbs[p.last + 1] >= floor)
    ++p.last;
  p.first_bytes = bytes[p.first];
  p.last_bytes = bytes[p.last];
  p.next_bytes = p.last + 1 < bytes.size() ? bytes[p.last + 1] : 0;
  p.latency = 1.0 / plateau_gbs(p, gbs);
  return p;
}

} // namespace

BandwidthLevels detect_levels(const std::vector<size_t>& per_sm_bytes,
                              const std::vector<double>& per_sm_gbs,
                              const std::vector<size_t>& gpu_bytes,
                              const std::vector<double>& gpu_gbs, int64_t l2_bytes) {
  BandwidthLevels out;
  out.per_sm = {fastest_run(per_sm_bytes, per_sm_gbs, l1_within)};
  // A level of the whole-GPU curve that runs past the L2, short of its last (DRAM), is the cliff
  // flattening on its way to DRAM (a share of the set still hits), not an L2 level: on an H200
  // 60-71 MB read 6.5-6.1 TB/s, flat within 7%, between 8.6 (L2) and 4.6 (DRAM).
  for (const Plateau& p : detect_plateaus(gpu_bytes, ns_per_byte(gpu_gbs), plateau_penalty,
                                          plateau_spread, plateau_step))
    if (p.last + 1 == gpu_bytes.size() || p.last_bytes <= size_t(l2_bytes))
      out.gpu.push_back(p);
  // The ladder's rule on one list: the per-SM curve's fastest run is the L1; past it the per-SM
  // curve mixes L1 and L2 hits, and the whole-GPU curve measures the L2 properly.
  std::vector<Plateau> levels = {out.per_sm.front()};
  levels.insert(levels.end(), out.gpu.begin(), out.gpu.end());
  out.sizes = name_levels(levels, l2_bytes);

  out.l1_gbs = plateau_gbs(out.per_sm.front(), per_sm_gbs);
  out.l1_extent = out.per_sm.front().last_bytes;
  const size_t end = out.gpu.size() - (out.sizes.dram_found ? 1 : 0); // one past the last L2
  if (end >= 1) {
    out.l2_gbs = plateau_gbs(out.gpu.front(), gpu_gbs);
    out.l2_extent = out.gpu.front().last_bytes;
  }
  if (end >= 2) {
    out.l2_far_gbs = plateau_gbs(out.gpu[end - 1], gpu_gbs);
    out.l2_far_extent = out.gpu[end - 1].last_bytes;
  }
  if (out.sizes.dram_found) {
    // The largest set alone: at 3x the L2 a share of each lap still hits the L2 (an H100 read
    // 3387 GB/s there, 101% of its theoretical DRAM bandwidth, and 3254 at 4x).
    Plateau& dram = out.gpu.back();
    dram.first = dram.last;
    dram.first_bytes = dram.last_bytes;
    out.dram_gbs = plateau_gbs(dram, gpu_gbs);
    out.dram_extent = out.gpu.back().last_bytes;
  }
  return out;
}

L2Halves l2_halves(const std::vector<size_t>& gpu_bytes, const std::vector<double>& gpu_gbs,
                   int64_t l2_bytes) {
  std::vector<double> near, far;
  const double l2 = double(l2_bytes);
  for (size_t i = 0; i < gpu_bytes.size() && i < gpu_gbs.size(); ++i) {
    const double b = double(gpu_bytes[i]);
    if (b >= l2 / 8 * 0.999 && b <= l2 * 3 / 8 * 1.001)
      near.push_back(gpu_gbs[i]);
    else if (b >= l2 * 5 / 8 * 0.999 && b <= l2 * 7 / 8 * 1.001)
      far.push_back(gpu_gbs[i]);
  }
  return {median_of(near), median_of(far)};
}

} // namespace apod::cache_bw
