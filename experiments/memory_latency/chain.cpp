#include "chain.hpp"

#include "declaration.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace apod {

ChainOrder chain_order(uint64_t n, uint64_t seed) {
  if (n == 0 || n >= (uint64_t(1) << 62))
    throw std::invalid_argument("chain_order: need 1 <= n < 2^62");
  ChainOrder order;
  order.n = n;
  uint32_t bits = 0;
  while ((uint64_t(1) << bits) < n)
    ++bits;
  order.half_bits = std::max<uint32_t>(1, (bits + 1) / 2);
  std::mt19937_64 rng(seed); // its stream is fixed by the standard: the same keys on any host
  for (uint64_t& key : order.keys)
    key = rng();
  return order;
}

uint64_t walk(const ChainOrder& order, uint64_t start, uint64_t steps) {
  uint64_t node = start;
  for (uint64_t i = 0; i < steps; ++i)
    node = order.next(node);
  return node;
}

uint64_t advance(const ChainOrder& order, uint64_t start, uint64_t steps) {
  return order((order.position(start) + steps % order.n) % order.n);
}

namespace {

size_t whole_lines(int64_t bytes) {
  return size_t(std::max<int64_t>(bytes, chain_line_bytes)) / chain_line_bytes * chain_line_bytes;
}

} // namespace

LatencyProbes latency_probes(int64_t shared_bytes_per_sm, int64_t l2_bytes, bool quick) {
  if (shared_bytes_per_sm <= 0 || l2_bytes <= 0)
    throw std::invalid_argument("latency_probes: need the shared memory per SM and the L2 size");
  return {whole_lines(shared_bytes_per_sm / 4), whole_lines(l2_bytes / 4),
          whole_lines(l2_bytes * (quick ? 8 : 16))};
}

std::vector<size_t> working_sets(const LatencyProbes& probes, bool quick) {
  std::vector<size_t> sizes = {probes.l1_bytes, probes.l2_bytes, probes.dram_bytes};
  const int every = quick ? 4 : 1; // quick: 4 KiB, 64 KiB, 1 MiB, ...
  int index = 0;
  for (size_t bytes = 4096; bytes < probes.dram_bytes; bytes *= 2, ++index)
    if (index % every == 0)
      sizes.push_back(bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string level_of(const LatencyProbes& probes, size_t working_set_bytes) {
  if (working_set_bytes == probes.l1_bytes)
    return "l1";
  if (working_set_bytes == probes.l2_bytes)
    return "l2";
  if (working_set_bytes == probes.dram_bytes)
    return latency::dram_level;
  return "";
}

uint32_t timed_steps(size_t working_set_bytes, int64_t l2_bytes, bool quick) {
  const uint32_t steps = working_set_bytes <= size_t(l2_bytes) ? 16384 : 4096;
  return quick ? steps / 4 : steps;
}

uint32_t warm_steps(size_t working_set_bytes, int64_t l2_bytes) {
  if (working_set_bytes > size_t(l2_bytes))
    return 0;
  return uint32_t(std::min<size_t>(working_set_bytes / chain_line_bytes, 8192));
}

} // namespace apod
