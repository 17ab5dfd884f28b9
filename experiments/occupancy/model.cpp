// Host arithmetic of the occupancy experiment: see model.hpp.
#include "model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

namespace apod::occupancy {

namespace {

int64_t round_up(int64_t value, int64_t unit) {
  return unit > 0 ? (value + unit - 1) / unit * unit : value;
}

constexpr int64_t kib = 1024;

} // namespace

std::optional<SmLimits> sm_limits(int cc_major, int cc_minor) {
  // The Programming Guide's table "Technical Specifications per Compute Capability": maximum
  // resident threads and blocks per SM, 64 K 32-bit registers per SM (and per block), up to 255
  // per thread, and the shared memory per SM and per block (opt-in). The allocation units and
  // the 1 KiB the driver reserves per block from 8.0 on are cuda_occupancy.h's
  // (cudaOccRegAllocationGranularity 256, cudaOccSubPartitionsPerMultiprocessor 4,
  // cudaOccSMemAllocationGranularity 256 on 7.x and 128 from 8.0, reservedSharedMemPerBlock).
  SmLimits l;
  const int cc = cc_major * 10 + cc_minor;
  switch (cc) {
  case 70: // V100: the guide's example device
    l.max_threads_per_sm = 2048, l.max_blocks_per_sm = 32;
    l.shared_bytes_per_sm = 96 * kib, l.shared_bytes_per_block = 96 * kib;
    break;
  case 75: // Turing
    l.max_threads_per_sm = 1024, l.max_blocks_per_sm = 16;
    l.shared_bytes_per_sm = 64 * kib, l.shared_bytes_per_block = 64 * kib;
    break;
  case 80: // A100
    l.max_threads_per_sm = 2048, l.max_blocks_per_sm = 32;
    l.shared_bytes_per_sm = 164 * kib, l.shared_bytes_per_block = 163 * kib;
    break;
  case 86:
    l.max_threads_per_sm = 1536, l.max_blocks_per_sm = 16;
    l.shared_bytes_per_sm = 100 * kib, l.shared_bytes_per_block = 99 * kib;
    break;
  case 87:
    l.max_threads_per_sm = 1536, l.max_blocks_per_sm = 16;
    l.shared_bytes_per_sm = 164 * kib, l.shared_bytes_per_block = 163 * kib;
    break;
  case 89:
    l.max_threads_per_sm = 1536, l.max_blocks_per_sm = 24;
    l.shared_bytes_per_sm = 100 * kib, l.shared_bytes_per_block = 99 * kib;
    break;
  case 90: // H100, H200
    l.max_threads_per_sm = 2048, l.max_blocks_per_sm = 32;
    l.shared_bytes_per_sm = 228 * kib, l.shared_bytes_per_block = 227 * kib;
    break;
  default:
    return std::nullopt;
  }
  l.reserved_shared_per_block = cc_major >= 8 ? 1 * kib : 0;
  l.shared_allocation_unit = cc_major >= 8 ? 128 : 256;
  return l;
}

Occupancy theoretical_occupancy(const SmLimits& l, const KernelResources& k) {
  if (k.block_threads <= 0 || k.block_threads > l.max_threads_per_sm)
    throw std::invalid_argument("theoretical_occupancy: block of " +
                                std::to_string(k.block_threads) + " threads");
  Occupancy o;
  o.warps_per_block = (k.block_threads + l.warp_size - 1) / l.warp_size;
  o.by_warps = l.max_warps_per_sm() / o.warps_per_block;
  o.by_block_limit = l.max_blocks_per_sm;

  // Registers are allocated per warp, rounded up to 256 (10.1.1), and each warp's registers come
  // from one sub-partition's quarter of the file: whole warps per quarter, times 4.
  o.registers_per_warp =
      int(round_up(int64_t(k.registers_per_thread) * l.warp_size, l.register_allocation_unit));
  int register_warps = INT_MAX; // warps the register file holds, whole warps per sub-partition
  if (o.registers_per_warp == 0) {
    o.by_registers = INT_MAX;
  } else {
    // A launch must fit the per-block limit even with its warps rounded up to the partitions
    // (cuda_occupancy.h: the hardware check assumes allocation to all partitions at once).
    const int64_t assumed_per_block =
        int64_t(o.registers_per_warp) * round_up(o.warps_per_block, l.register_sub_partitions);
    const int64_t allocated_per_block = int64_t(o.registers_per_warp) * o.warps_per_block;
    if (k.registers_per_thread > l.max_registers_per_thread ||
        assumed_per_block > l.max_registers_per_block ||
        allocated_per_block > l.max_registers_per_block) {
      o.by_registers = 0;
    } else {
      const int per_partition =
          (l.registers_per_sm / l.register_sub_partitions) / o.registers_per_warp;
      register_warps = per_partition * l.register_sub_partitions;
      o.by_registers = register_warps / o.warps_per_block;
    }
  }

  // Shared memory: the default carveout lets the SM take all it has (cuda_occupancy.h,
  // cudaOccSMemPreferenceVoltaPlus), so the limit is that over the block's allocation.
  o.shared_per_block =
      round_up(k.static_shared_bytes + k.dynamic_shared_bytes + l.reserved_shared_per_block,
               l.shared_allocation_unit);
  if (o.shared_per_block > l.shared_bytes_per_block + l.reserved_shared_per_block)
    o.by_shared = 0;
  else
    o.by_shared =
        o.shared_per_block > 0 ? int(l.shared_bytes_per_sm / o.shared_per_block) : INT_MAX;

  o.blocks_per_sm = std::min({o.by_warps, o.by_block_limit, o.by_registers, o.by_shared});
  // The first limit in this order that binds names it; a tie names the first.
  if (o.blocks_per_sm == o.by_registers && o.by_registers < o.by_warps)
    o.limiter = "registers";
  else if (o.blocks_per_sm == o.by_shared && o.by_shared < o.by_warps)
    o.limiter = "shared memory";
  else if (o.blocks_per_sm == o.by_block_limit && o.by_block_limit < o.by_warps)
    o.limiter = "blocks";
  else
    o.limiter = "warps";
  o.resident_warps = o.blocks_per_sm * o.warps_per_block;
  const auto warps_of = [&](int blocks) {
    return blocks >= INT_MAX / o.warps_per_block ? INT_MAX : blocks * o.warps_per_block;
  };
  o.warp_capacity = o.blocks_per_sm == 0
                        ? 0
                        : std::min({l.max_warps_per_sm(), register_warps, warps_of(o.by_shared),
                                    warps_of(o.by_block_limit)});
  o.occupancy = double(o.resident_warps) / l.max_warps_per_sm();
  return o;
}

Achieved achieved_occupancy(const std::vector<WarpSpan>& warps, int max_warps_per_sm) {
  if (warps.empty())
    throw std::invalid_argument("achieved_occupancy: no warps");
  if (max_warps_per_sm <= 0)
    throw std::invalid_argument("achieved_occupancy: max warps per SM not positive");
  // Bucketed by SM id (a few hundred at most): each SM's events sort on their own, so a launch of
  // 10^5 warps takes a few milliseconds.
  uint32_t top = 0;
  for (const WarpSpan& w : warps)
    top = std::max(top, w.sm);
  struct Sm {
    uint64_t first = UINT64_MAX, last = 0;
    double warp_cycles = 0;
    std::vector<std::pair<uint64_t, int>> events; // (+1 at start, -1 at end)
  };
  std::vector<Sm> sms(size_t(top) + 1);
  for (const WarpSpan& w : warps) {
    if (w.end < w.start)
      throw std::invalid_argument("achieved_occupancy: a warp ends before it starts");
    Sm& s = sms[w.sm];
    s.first = std::min(s.first, w.start);
    s.last = std::max(s.last, w.end);
    s.warp_cycles += double(w.end - w.start);
    s.events.push_back({w.start, +1});
    s.events.push_back({w.end, -1});
  }
  Achieved a;
  double warp_cycles = 0, sm_cycles = 0;
  for (Sm& s : sms) {
    if (s.events.empty())
      continue;
    ++a.sms;
    warp_cycles += s.warp_cycles;
    sm_cycles += double(s.last - s.first);
    // Ends sort before starts at the same cycle: a warp that leaves as another arrives is not
    // counted with it.
    std::sort(s.events.begin(), s.events.end());
    int now = 0;
    for (const auto& e : s.events)
      a.max_resident_warps = std::max(a.max_resident_warps, now += e.second);
  }
  a.occupancy = sm_cycles > 0 ? warp_cycles / sm_cycles / max_warps_per_sm : 0.0;
  return a;
}

float spill_chains_sum(float x, int steps) {
  float acc[spill_chains];
  for (int c = 0; c < spill_chains; ++c)
    acc[c] = x + float(c) / 64.0f;
  for (int s = 0; s < steps; ++s)
    for (float& a : acc)
      a = std::fma(a, spill_multiplier, spill_addend);
  float sum = 0;
  for (float a : acc)
    sum += a;
  return sum;
}

} // namespace apod::occupancy
