#include "model.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace apod {

double shared_bytes_per_clock_limit() {
  return double(shared_banks) * shared_bank_bytes;
}

int conflict_degree(int stride_words) {
  if (stride_words < 0)
    throw std::invalid_argument("stride must not be negative");
  return stride_words == 0 ? 1 : std::gcd(stride_words, shared_banks);
}

namespace {
void check_access_bytes(int access_bytes) {
  if (access_bytes != 4 && access_bytes != 8 && access_bytes != 16)
    throw std::invalid_argument("shared-memory accesses are 4, 8 or 16 bytes wide");
}
} // namespace

int min_wavefronts(int access_bytes) {
  check_access_bytes(access_bytes);
  return 32 * access_bytes / (shared_banks * shared_bank_bytes);
}

int wavefronts_per_request(const std::vector<uint64_t>& byte_addresses, int access_bytes) {
  check_access_bytes(access_bytes);
  if (byte_addresses.size() != 32)
    throw std::invalid_argument("a warp's request has 32 addresses");
  const int lanes_per_phase = shared_banks * shared_bank_bytes / access_bytes;
  const int words_per_access = access_bytes / shared_bank_bytes;
  int total = 0;
  for (int first = 0; first < 32; first += lanes_per_phase) {
    std::map<int, std::vector<uint64_t>> words_of_bank;
    for (int lane = first; lane < first + lanes_per_phase; ++lane) {
      const uint64_t a = byte_addresses[size_t(lane)];
      if (a % uint64_t(access_bytes) != 0)
        throw std::invalid_argument("a shared-memory access must be aligned to its width");
      for (int w = 0; w < words_per_access; ++w) {
        const uint64_t word = a / shared_bank_bytes + uint64_t(w);
        auto& words = words_of_bank[int(word % shared_banks)];
        if (std::find(words.begin(), words.end(), word) == words.end())
          words.push_back(word);
      }
    }
    size_t most = 0;
    for (const auto& [bank, words] : words_of_bank)
      most = std::max(most, words.size());
    total += int(most);
  }
  return total;
}

int strided_wavefronts(int access_bytes, int stride_elements) {
  if (stride_elements < 0)
    throw std::invalid_argument("stride must not be negative");
  std::vector<uint64_t> addresses(32);
  for (int lane = 0; lane < 32; ++lane)
    addresses[size_t(lane)] = uint64_t(lane) * uint64_t(stride_elements) * uint64_t(access_bytes);
  return wavefronts_per_request(addresses, access_bytes);
}

double conflict_model(double conflict_free, int degree) {
  if (degree < 1)
    throw std::invalid_argument("conflict degree must be at least 1");
  return conflict_free / degree;
}

double bytes_per_clock_per_sm(const std::vector<BlockClock>& blocks, double bytes_per_block) {
  if (blocks.empty())
    throw std::invalid_argument("no block clock readings");
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
    int blocks = 0;
  };
  std::map<uint32_t, Span> per_sm;
  for (const auto& b : blocks) {
    Span& s = per_sm[b.sm];
    s.first = std::min(s.first, b.start);
    s.last = std::max(s.last, b.end);
    ++s.blocks;
  }
  double total = 0;
  for (const auto& [sm, s] : per_sm) {
    if (s.last <= s.first)
      throw std::invalid_argument("an SM's clock span is not positive");
    total += s.blocks * bytes_per_block / double(s.last - s.first);
  }
  return total / double(per_sm.size());
}

CircularSums::CircularSums(const std::vector<uint32_t>& words) : prefix_(words.size() + 1, 0) {
  if (words.empty())
    throw std::invalid_argument("CircularSums: no words");
  for (size_t i = 0; i < words.size(); ++i)
    prefix_[i + 1] = prefix_[i] + words[i];
}

uint32_t CircularSums::sum(uint64_t start, uint64_t count) const {
  const uint64_t size = prefix_.size() - 1;
  const auto from = [&](uint64_t begin, uint64_t n) { // begin + n <= size
    return uint32_t(prefix_[begin + n] - prefix_[begin]);
  };
  start %= size;
  uint32_t total = uint32_t(count / size) * prefix_[size]; // whole turns
  uint64_t rest = count % size;
  const uint64_t first = std::min(rest, size - start);
  total += from(start, first);
  rest -= first;
  return total + from(0, rest);
}

} // namespace apod
