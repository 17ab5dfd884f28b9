#include "schedule.hpp"

#include <algorithm>
#include <random>

namespace apod {

std::string Row::config() const {
  const char* memory = mapped ? "mapped" : pinned ? "pinned" : "pageable";
  return std::string(memory) + (new_stream ? "/new" : "/default");
}

std::vector<Row> gist_rows() {
  // The gist's main(): pagelocked | mapped | nondefaultStream, in its `combinations` order.
  constexpr bool combinations[][3] = {{true, true, false},   {true, false, false},
                                      {false, false, false}, {true, true, true},
                                      {true, false, true},   {false, false, true}};
  std::vector<Row> rows;
  for (const Kernel k : all_kernels)
    for (const auto& c : combinations)
      rows.push_back({k, c[0], c[1], c[2]});
  return rows;
}

std::vector<Row> with_cold_rows(std::vector<Row> rows) {
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.cold; }))
    return rows; // they have theirs already
  const size_t just_written = rows.size();
  for (size_t i = 0; i < just_written; ++i)
    if (!rows[i].mapped && !rows[i].cold) {
      Row cold = rows[i];
      cold.cold = true;
      rows.push_back(cold);
    }
  return rows;
}

size_t first_row_of_kernel(const std::vector<Row>& rows, size_t row) {
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].kernel == rows.at(row).kernel)
      return i;
  return row;
}

std::vector<size_t> round_order(uint64_t seed, uint64_t round, size_t count) {
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i)
    order[i] = i;
  std::mt19937_64 random(seed ^ (round * 0x9E3779B97F4A7C15ull));
  // Fisher-Yates with a plain modulo: std::shuffle and the distributions are not fixed by the
  // standard, and the bias of a 64-bit draw modulo a few dozen is below 1e-17.
  for (size_t i = count; i > 1; --i)
    std::swap(order[i - 1], order[random() % i]);
  return order;
}

WarmupRule::WarmupRule(int min_rounds, int max_rounds, double tolerance)
    : min_rounds_(std::max(min_rounds, 2)), max_rounds_(std::max(max_rounds, min_rounds_)),
      tolerance_(tolerance) {}

bool WarmupRule::done_after(double round_total_ms) {
  totals_.push_back(round_total_ms);
  const int n = rounds();
  const double smallest = *std::min_element(totals_.begin(), totals_.end());
  const auto near_smallest = [&](double t) { return t <= smallest * (1 + tolerance_); };
  stable_ = n >= 2 && near_smallest(totals_[n - 1]) && near_smallest(totals_[n - 2]);
  return (n >= min_rounds_ && stable_) || n >= max_rounds_;
}

std::string round_stop_reason(int rounds, double elapsed_s, int min_rounds, int max_rounds,
                              double budget_s) {
  if (rounds >= max_rounds)
    return stop_max_samples;
  if (rounds >= min_rounds && elapsed_s >= budget_s)
    return stop_time_cap;
  return "";
}

void finish_series(Series& series, const std::string& stop_reason, const SamplingPolicy& policy) {
  const Summary s = series.summary();
  series.set_stop(stop_reason,
                  s.n < policy.min_samples || s.ci_half_width_rel() > policy.target_ci_rel);
}

bool differs_beyond_noise(const Series& a, const Series& b, double min_relative) {
  const Summary x = a.summary(), y = b.summary();
  if (x.n == 0 || y.n == 0)
    return false;
  const bool disjoint = x.ci_high < y.ci_low || y.ci_high < x.ci_low;
  const double low = std::min(x.median, y.median), high = std::max(x.median, y.median);
  return disjoint && high > low * (1 + min_relative);
}

} // namespace apod
