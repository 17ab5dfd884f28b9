// Host arithmetic of the allocation experiment: see alloc_math.hpp.
#include "alloc_math.hpp"

#include <algorithm>

namespace apod::alloc {

const std::vector<Api>& apis() {
  static const std::vector<Api> all = {{"host_alloc", true, true},
                                       {"host_register", true, true},
                                       {"malloc", false, true},
                                       {"pool_warm", false, false},
                                       {"pool_cold", false, true}};
  return all;
}

std::vector<size_t> sizes(const Api& api, bool quick, bool full) {
  if (quick)
    return {4 * kib, mib, 16 * mib};
  if (!full)
    return api.host ? std::vector<size_t>{4 * kib, mib, 64 * mib}
                    : std::vector<size_t>{4 * kib, mib, 64 * mib, gib};
  std::vector<size_t> all;
  for (size_t b = 4 * kib; b <= gib; b *= 4)
    all.push_back(b);
  return all;
}

bool safe_size(const Api& api, size_t bytes, size_t device_free_bytes,
               size_t host_available_bytes) {
  if (api.host)
    return bytes <= host_available_bytes / 8;
  return bytes <= device_free_bytes / 4;
}

bool per_gib_point(const Api& api, size_t bytes) {
  return api.scales_with_size && bytes >= mib;
}

double ms_per_gib(double pair_us, size_t bytes) {
  return pair_us / 1000.0 * double(gib) / double(bytes);
}

int warmup_pairs(size_t bytes, int policy_warmup) {
  return bytes >= 64 * mib ? std::min(1, policy_warmup) : policy_warmup;
}

int min_samples(double pair_s, double cap_s, int policy_min) {
  if (pair_s <= 0)
    return policy_min;
  const double fit = cap_s / pair_s;
  return std::max(3, std::min(policy_min, fit < policy_min ? int(fit) : policy_min));
}

double point_cap_s(size_t bytes, double policy_cap_s) {
  return std::min(bytes < 64 * mib ? 0.05 : 0.15, policy_cap_s);
}

uint8_t pattern_byte(size_t i) {
  return uint8_t(0x11 + i % 0xE0); // 0x11 .. 0xF0
}

std::vector<size_t> probe_offsets(size_t bytes, size_t probe) {
  if (bytes <= probe)
    return {0};
  return {0, (bytes / 2) / probe * probe, bytes - probe};
}

bool freed(size_t free_before, size_t free_after, size_t slack) {
  return free_after + slack >= free_before;
}

} // namespace apod::alloc
