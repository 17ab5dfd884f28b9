#include "model.hpp"

#include "core/theory.hpp"

#include <cctype>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace apod::divergence {

std::vector<float> long_branch_chains(float x, int path, int steps) {
  const float m = path_multiplier(path), a = path_addend(path);
  std::vector<float> v(chains);
  for (int c = 0; c < chains; ++c)
    v[c] = chain_start(x, c);
  for (int s = 0; s < steps; ++s)
    for (int c = 0; c < chains; ++c)
      v[c] = std::fma(v[c], m, a);
  return v;
}

std::vector<float> short_branch_chains(float x, uint32_t mask, int steps) {
  std::vector<float> v(chains);
  for (int c = 0; c < chains; ++c)
    v[c] = chain_start(x, c);
  for (int s = 0; s < steps; ++s)
    if ((mask >> (s % 32)) & 1u)
      v[s % chains] = std::fma(v[s % chains], short_multiplier, short_addend);
  return v;
}

std::vector<uint32_t> short_branch_masks() {
  std::vector<uint32_t> masks(mask_count);
  uint64_t z = 0x5EEDD1F0ull;
  for (auto& m : masks) { // SplitMix64
    z += 0x9E3779B97F4A7C15ull;
    uint64_t r = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
    m = uint32_t(r ^ (r >> 31));
  }
  return masks;
}

int steps_per_thread(int total_steps, int paths, bool divergent) {
  if (paths < 1 || total_steps < 1)
    throw std::invalid_argument("paths and steps must be positive");
  return divergent ? total_steps / paths : total_steps;
}

double divergent_rate_model(double uniform_rate, int paths) {
  if (paths < 1)
    throw std::invalid_argument("a warp takes at least one path");
  return uniform_rate / paths;
}

double fmas_per_thread(bool short_body, int steps) {
  return short_body ? double(steps) : double(chains) * steps;
}

double thread_fma_rate_g(double threads, double fmas_per_thread, double ms) {
  return threads * fmas_per_thread / (ms * 1e6);
}

double peak_fma_rate_g(int sm_count, int fp32_lanes_per_sm, double sm_clock_khz) {
  return peak_gflops(sm_count, fp32_lanes_per_sm, sm_clock_khz) / 2; // an FMA is 2 FLOPs
}

SassCounts count_sass(const std::string& sass) {
  // An instruction line: /*addr*/ [@[!]P|UP n] OPCODE[.mods] operands ;
  static const std::regex line(
      R"(^\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z0-9_]+)(\.[A-Z0-9_.]+)?)");
  SassCounts n;
  std::istringstream in(sass);
  std::string text;
  bool inside = false;
  while (std::getline(in, text)) {
    if (text.find("Function :") != std::string::npos) {
      if (inside)
        break; // the next function's listing
      inside = true;
      continue;
    }
    std::smatch m;
    if (!std::regex_search(text, m, line))
      continue;
    inside = true;
    const std::string op = m[2];
    ++n.instructions;
    if (op == "BRA")
      ++n.bra;
    else if (op == "BRX")
      ++n.brx;
    else if (m[1].matched)
      ++n.predicated;
    if (op == "BSSY" || op == "BSYNC" || op == "WARPSYNC")
      ++n.convergence;
    if (op == "FFMA")
      ++n.ffma;
  }
  return n;
}

std::string listing_for_arch(const std::string& sass, const std::string& arch) {
  const std::string head = "code for " + arch;
  std::string first;
  for (size_t from = sass.find(head); from != std::string::npos;
       from = sass.find(head, from + head.size())) {
    const size_t end = from + head.size();
    if (end < sass.size() && std::isalnum(static_cast<unsigned char>(sass[end])))
      continue; // "code for sm_9" must not match "code for sm_90"
    const size_t to = sass.find("code for ", end);
    std::string section =
        sass.substr(from, to == std::string::npos ? std::string::npos : to - from);
    if (section.find("Function :") != std::string::npos)
      return section;
    if (first.empty())
      first = std::move(section);
  }
  return first;
}

} // namespace apod::divergence
