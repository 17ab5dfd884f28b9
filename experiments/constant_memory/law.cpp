// The constant_memory experiment's host arithmetic (law.hpp).
#include "law.hpp"

#include <stdexcept>

namespace apod::constant_memory {

uint32_t expected_thread_sum(uint32_t lane, uint32_t k, uint32_t trips) {
  uint32_t sum = 0;
  for (uint32_t t = 0; t < trips; ++t)
    for (uint32_t u = 0; u < reads_per_trip; ++u)
      sum += table_value(u * row_words + column_of(lane, k, t));
  return sum;
}

uint32_t expected_chain_end(uint32_t lane, uint32_t k, uint64_t steps) {
  uint32_t offset = chain_start_offset(lane, k);
  for (uint64_t s = 0; s < steps; ++s)
    offset = chain_next_offset(offset);
  return offset;
}

std::vector<uint32_t> table_words_host() {
  std::vector<uint32_t> words(table_words);
  for (uint32_t i = 0; i < table_words; ++i)
    words[i] = table_value(i);
  return words;
}

std::vector<uint32_t> chain_offsets_host() {
  std::vector<uint32_t> chain(table_words);
  for (uint32_t i = 0; i < table_words; ++i)
    chain[i] = chain_next_offset(i * 4u);
  return chain;
}

uint32_t trips_per_thread(bool serialising, uint32_t k, uint32_t full_trips) {
  if (k < 1)
    throw std::invalid_argument("trips_per_thread: k must be at least 1");
  if (!serialising)
    return full_trips;
  const uint32_t trips = full_trips / k;
  return trips < min_trips ? min_trips : trips;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("fit_line: needs two or more (x, y) pairs");
  const double n = double(x.size());
  double sx = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sx += x[i], sy += y[i];
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0)
    throw std::invalid_argument("fit_line: every x is the same");
  LineFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  double residual = 0;
  for (size_t i = 0; i < x.size(); ++i)
    residual += (y[i] - f.at(x[i])) * (y[i] - f.at(x[i]));
  f.r2 = syy > 0 ? 1.0 - residual / syy : 1.0; // a flat line fitted exactly explains everything
  return f;
}

LineFit fit_cost_law(const std::vector<double>& k, const std::vector<double>& reads_per_clock) {
  std::vector<double> cost;
  for (const double r : reads_per_clock) {
    if (!(r > 0))
      throw std::invalid_argument("fit_cost_law: a rate is not positive");
    cost.push_back(1.0 / r);
  }
  return fit_line(k, cost);
}

double fitted_rate(const LineFit& cost, double k) {
  const double c = cost.at(k);
  return c > 0 ? 1.0 / c : 0.0;
}

double cost_ratio(double rate_one_address, double rate_k) {
  if (!(rate_one_address > 0) || !(rate_k > 0))
    throw std::invalid_argument("cost_ratio: rates must be positive");
  return rate_one_address / rate_k;
}

} // namespace apod::constant_memory
