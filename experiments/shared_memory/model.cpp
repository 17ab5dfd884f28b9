#include "model.hpp"

#include "../bank_conflicts/model.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <utility>

namespace apod::smem {

double limit_gbs_per_sm(double sm_clock_khz) {
  return shared_bytes_per_clock_limit() * sm_clock_khz * 1e3 / 1e9;
}

double limit_gbs_per_gpu(int sm_count, double sm_clock_khz) {
  return double(sm_count) * limit_gbs_per_sm(sm_clock_khz);
}

double gbs(double bytes, double ms) {
  if (!(ms > 0))
    throw std::invalid_argument("a time must be positive");
  return bytes / (ms * 1e6);
}

double measured_wavefronts(int access_bytes, double gbs_per_sm, double sm_clock_mhz) {
  if (!(gbs_per_sm > 0) || !(sm_clock_mhz > 0))
    throw std::invalid_argument("a rate and a clock must be positive");
  const double bytes_per_clock = gbs_per_sm * 1e9 / (sm_clock_mhz * 1e6);
  return 32.0 * access_bytes / bytes_per_clock;
}

double wavefront_model_gbs(double conflict_free_gbs, int min_wavefronts, int wavefronts) {
  if (min_wavefronts < 1 || wavefronts < min_wavefronts)
    throw std::invalid_argument("wavefronts must be at least the fewest, which is at least 1");
  return conflict_free_gbs * min_wavefronts / wavefronts;
}

int reads_per_thread(int base, int access_bytes, int wavefronts, int min_wavefronts, int unroll) {
  if (access_bytes <= 0 || min_wavefronts < 1 || wavefronts < min_wavefronts || unroll < 1)
    throw std::invalid_argument("reads_per_thread: bad arguments");
  const long long reads =
      (long long)base * 4 / access_bytes * min_wavefronts / wavefronts / unroll * unroll;
  return int(std::max<long long>(reads, 8LL * unroll));
}

ElementSums::ElementSums(const std::vector<uint32_t>& words, int words_per_element) {
  if (words_per_element < 1 || words.empty() || words.size() % size_t(words_per_element) != 0)
    throw std::invalid_argument("ElementSums: the words do not make whole elements");
  const size_t n = words.size() / size_t(words_per_element);
  prefix_.assign(n + 1, 0);
  for (size_t e = 0; e < n; ++e) {
    uint32_t element = 0;
    for (int w = 0; w < words_per_element; ++w)
      element += words[e * size_t(words_per_element) + size_t(w)];
    prefix_[e + 1] = prefix_[e] + element;
  }
}

uint32_t ElementSums::sum(uint64_t start, uint64_t count) const {
  const uint64_t size = elements();
  start %= size;
  uint32_t total = uint32_t(count / size) * prefix_[size]; // whole turns
  uint64_t rest = count % size;
  const uint64_t first = std::min(rest, size - start);
  total += prefix_[start + first] - prefix_[start];
  rest -= first;
  return total + prefix_[rest];
}

std::vector<uint32_t> stencil_reference(const std::vector<uint32_t>& in, int radius) {
  if (radius < 0 || in.size() < size_t(2 * radius + 1))
    throw std::invalid_argument("the stencil's input is shorter than its halo");
  std::vector<uint32_t> out(in.size() - size_t(2 * radius));
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t sum = 0;
    for (int k = 0; k <= 2 * radius; ++k)
      sum += in[i + size_t(k)];
    out[i] = sum;
  }
  return out;
}

std::vector<uint32_t> chase_cycle(uint32_t n, uint64_t seed) {
  if (n < 2)
    throw std::invalid_argument("a chase needs at least two slots");
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i)
    order[i] = i;
  std::mt19937_64 rng(seed);
  for (uint32_t i = n - 1; i > 0; --i) { // Fisher-Yates, with the engine's raw draws: portable
    const uint32_t j = uint32_t(rng() % (uint64_t(i) + 1));
    std::swap(order[i], order[j]);
  }
  std::vector<uint32_t> next(n);
  for (uint32_t i = 0; i < n; ++i)
    next[order[i]] = order[(i + 1) % n];
  return next;
}

uint32_t chase_end(const std::vector<uint32_t>& next, uint32_t start, uint64_t steps) {
  uint32_t at = start;
  for (uint64_t s = 0; s < steps % next.size(); ++s)
    at = next[at];
  return at;
}

} // namespace apod::smem
