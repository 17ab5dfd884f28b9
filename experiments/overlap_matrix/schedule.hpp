// How the overlap matrix visits its rows, kept on the host so the rules are tested without a GPU.
// Trials go in rounds: each round runs one trial of every row, in an order drawn at random for
// that round from a recorded seed, so that no row always runs first, or always after the same
// neighbour (issue 12: the first pinned row of a fixed order read 10x its column). Rounds start
// with a warm-up that lasts until the rounds' times stop falling, then measured rounds go on
// until a count or a time budget is reached.
#pragma once

#include "reference.hpp"

#include "core/experiment.hpp"
#include "core/series.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace apod {

/// One row of the gist's table: a kernel on host memory that is pageable, pinned, or pinned and
/// device-mapped (zero copy), used from the default stream or a new one.
struct Row {
  Kernel kernel = Kernel::fast;
  bool pinned = false, mapped = false, new_stream = false;
  /// The H2D copy reads a host buffer written once before the first round and untouched by the
  /// CPU since (not in its caches), instead of one the host has just written: a DMA read of
  /// lines the CPU holds dirty waits on the CPU, and measures that as much as the link.
  bool cold = false;
  /// The host_buffer param's value: "cold" or "just_written".
  const char* host_buffer() const { return cold ? "cold" : "just_written"; }
  /// The row's label on the chart: "mapped/default", "pinned/new", "pageable/default", ...
  std::string config() const;
};

/// The gist's 18 rows in the order of its table: for each kernel, its `combinations` array
/// (mapped, pinned, pageable in the default stream, then the same in a new stream).
std::vector<Row> gist_rows();

/// `rows` and, after them, a cold-buffer copy of each of their copy rows (not mapped: a mapped
/// row has no H2D copy), in the same order; rows that have cold rows already come back as they are.
std::vector<Row> with_cold_rows(std::vector<Row> rows);

/// The index of the first row of rows[row]'s kernel (mapped, default stream): the row the gist's
/// ratio r divides by.
size_t first_row_of_kernel(const std::vector<Row>& rows, size_t row);

/// The order of round `round`: a permutation of 0 .. count-1 by Fisher-Yates, drawn from
/// std::mt19937_64 (whose output the C++ standard fixes) seeded with seed and round.
std::vector<size_t> round_order(uint64_t seed, uint64_t round, size_t count);

/// When warm-up may end: after at least max(min_rounds, 2) rounds, once the last two rounds'
/// total times are each within `tolerance` (10%) of the smallest round total so far, so a
/// warm-up that is still getting faster goes on. Rounds that stay slow at the same level are
/// stable: that is the steady state. At most `max_rounds` (20); stable() then says whether the
/// rule was met.
class WarmupRule {
public:
  explicit WarmupRule(int min_rounds, int max_rounds = 20, double tolerance = 0.10);
  /// Adds one warm-up round's total time; true when warm-up ends with this round.
  bool done_after(double round_total_ms);
  bool stable() const { return stable_; }
  int rounds() const { return static_cast<int>(totals_.size()); }

private:
  int min_rounds_, max_rounds_;
  double tolerance_;
  std::vector<double> totals_;
  bool stable_ = false;
};

/// After `rounds` measured rounds taking `elapsed_s`: why to stop (stop_max_samples at
/// max_rounds, stop_time_cap once the budget is used and min_rounds are done), or "" to go on.
std::string round_stop_reason(int rounds, double elapsed_s, int min_rounds, int max_rounds,
                              double budget_s);

/// Sets a finished series' stop reason and marks it noisy by the adaptive sampler's rule
/// (sampling.cpp): fewer used samples than policy.min_samples, or a 95% CI of the median wider
/// than policy.target_ci_rel.
void finish_series(Series& series, const std::string& stop_reason, const SamplingPolicy& policy);

/// True when two series of the same configuration measured at different positions differ by
/// more than noise: their medians' 95% intervals (summarize) do not overlap and the larger
/// median exceeds the smaller by more than `min_relative`. Flagged samples are left out.
bool differs_beyond_noise(const Series& a, const Series& b, double min_relative = 0.25);

} // namespace apod
