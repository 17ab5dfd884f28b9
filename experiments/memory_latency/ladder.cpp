#include "ladder.hpp"

#include "chain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace apod {
namespace {

size_t whole_lines(double bytes) {
  const auto b = size_t(std::max(bytes, double(chain_line_bytes)));
  return b / chain_line_bytes * chain_line_bytes;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

std::vector<size_t> ladder_working_sets(int64_t shared_bytes_per_sm, int64_t l2_bytes, bool quick) {
  if (shared_bytes_per_sm <= 0 || l2_bytes <= 0)
    throw std::invalid_argument("ladder_working_sets: need the shared memory per SM and the L2");
  const double shared = double(shared_bytes_per_sm), l2 = double(l2_bytes);
  // Quick: inside the L1, past it, inside the near L2, inside the far L2, DRAM.
  const std::vector<double> around_l1 =
      quick ? std::vector<double>{0.25, 2.0}
            : std::vector<double>{1.0 / 16, 0.25,  0.5,  0.625, 0.75, 0.875,
                                  1.0,      1.125, 1.25, 1.5,   2.0};
  const std::vector<double> around_l2 =
      quick ? std::vector<double>{0.25, 0.875, 2.0}
            : std::vector<double>{0.125, 0.25, 0.375, 0.4375, 0.5,  0.5625,
                                  0.625, 0.75, 0.875, 1.0,    1.25, 2.0};
  std::vector<size_t> sets;
  for (double f : around_l1)
    sets.push_back(whole_lines(f * shared));
  if (!quick) // powers of two between the L1's neighbourhood and an eighth of the L2
    for (double b = 1 << 20; b < l2 / 8; b *= 4)
      sets.push_back(whole_lines(b));
  for (double f : around_l2)
    sets.push_back(whole_lines(f * l2));
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  return sets;
}

std::vector<LadderProbe> ladder_probes(int64_t shared_bytes_per_sm, int64_t l2_bytes) {
  return {{"l1", whole_lines(double(shared_bytes_per_sm) / 4)},
          {"l2", whole_lines(double(l2_bytes) / 4)},
          {"l2_far", whole_lines(double(l2_bytes) * 7 / 8)},
          {"dram", whole_lines(double(l2_bytes) * 2)}};
}

uint64_t lap_steps(size_t working_set_bytes, uint64_t min_steps) {
  const uint64_t lines = std::max<uint64_t>(1, working_set_bytes / chain_line_bytes);
  uint64_t steps = std::max(min_steps, lines + 1);
  if (lines > 1 && steps % lines == 0)
    ++steps;
  return steps;
}

std::vector<Plateau> detect_plateaus(const std::vector<size_t>& bytes,
                                     const std::vector<double>& latency, double penalty,
                                     double max_spread, double min_step) {
  const size_t n = bytes.size();
  if (n == 0 || latency.size() != n)
    throw std::invalid_argument("detect_plateaus: one latency per working set, at least one");
  std::vector<double> y(n), sum(n + 1, 0), sum_sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!(latency[i] > 0) || !std::isfinite(latency[i]))
      throw std::invalid_argument("detect_plateaus: latencies must be positive and finite");
    y[i] = std::log(latency[i]);
    sum[i + 1] = sum[i] + y[i];
    sum_sq[i + 1] = sum_sq[i] + y[i] * y[i];
  }
  // Squared deviation of log latency from the mean over points [a, b).
  const auto cost = [&](size_t a, size_t b) {
    const double k = double(b - a), s = sum[b] - sum[a];
    return std::max(0.0, sum_sq[b] - sum_sq[a] - s * s / k);
  };
  // best[j]: the least total cost of points [0, j); cut[j]: where its last segment starts.
  std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
  std::vector<size_t> cut(n + 1, 0);
  best[0] = 0;
  for (size_t j = 1; j <= n; ++j)
    for (size_t i = 0; i < j; ++i)
      if (const double c = best[i] + cost(i, j) + penalty; c < best[j])
        best[j] = c, cut[j] = i;
  std::vector<std::pair<size_t, size_t>> segments; // [first, last]
  for (size_t j = n; j > 0; j = cut[j])
    segments.push_back({cut[j], j - 1});
  std::reverse(segments.begin(), segments.end());

  std::vector<Plateau> plateaus;
  for (const auto& [first, last] : segments) {
    const auto [low, high] =
        std::minmax_element(latency.begin() + long(first), latency.begin() + long(last) + 1);
    const bool flat = *high <= *low * (1 + max_spread);
    // The sweep's last segment is the level past every cache, even as a single point; any other
    // single point, or a segment that still rises by more than max_spread, lies between levels.
    if (last != n - 1 && (first == last || !flat))
      continue;
    // A level less than min_step above the one before is the same level drifting (conflict
    // misses as a set fills a cache, say): the two are one plateau.
    const bool same_level = !plateaus.empty() && median_of({latency.begin() + long(first),
                                                            latency.begin() + long(last) + 1}) <
                                                     plateaus.back().latency * (1 + min_step);
    Plateau p;
    p.first = same_level ? plateaus.back().first : first;
    p.last = last;
    p.latency = median_of({latency.begin() + long(p.first), latency.begin() + long(last) + 1});
    p.first_bytes = bytes[p.first], p.last_bytes = bytes[last];
    p.next_bytes = last + 1 < n ? bytes[last + 1] : 0;
    if (same_level)
      plateaus.back() = p;
    else
      plateaus.push_back(p);
  }
  return plateaus;
}

LadderLevels name_levels(const std::vector<Plateau>& plateaus, int64_t l2_bytes) {
  LadderLevels levels;
  levels.plateaus = int(plateaus.size());
  if (plateaus.empty())
    return levels;
  levels.l1_bytes = plateaus.front().last_bytes;
  levels.l1_latency = plateaus.front().latency;
  size_t end = plateaus.size(); // one past the last L2 plateau
  if (plateaus.size() >= 2 && double(plateaus.back().last_bytes) >= 1.5 * double(l2_bytes)) {
    levels.dram_found = true;
    levels.dram_latency = plateaus.back().latency;
    --end;
  }
  if (end < 2)
    return levels; // no plateau between the L1 and DRAM
  const Plateau &near = plateaus[1], &far = plateaus[end - 1];
  levels.l2_bytes = far.last_bytes;
  levels.l2_near_latency = near.latency;
  if (end - 1 > 1) { // two or more: the first is the near partition, the last the far one
    levels.l2_near_bytes = near.last_bytes;
    levels.l2_far_latency = far.latency;
  }
  return levels;
}

} // namespace apod
