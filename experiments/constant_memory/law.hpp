// Host-side arithmetic of the constant_memory experiment (constant_memory.cu): the table every
// source reads and the chain every chase follows (shared with the device, which computes the
// register source from the same formulas), each thread's expected sum and each lane's expected
// end of chain, the reads per thread, and the fit of the Best Practices Guide's 9.2.6 law, cost
// = a + b x unique addresses per warp, with each point's ratio to the one-address cost.
#pragma once

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define APOD_CONSTANT_HD __host__ __device__
#else
#define APOD_CONSTANT_HD
#endif

namespace apod::constant_memory {

/// The read table: rows of 32 words (a warp's k groups read k distinct columns of one row per
/// read), reads_per_trip rows; 1 KB, inside the smallest constant cache of every GPU apod runs on,
/// so every point measures constant-cache hits, not misses to device memory.
inline constexpr uint32_t row_words = 32;
inline constexpr uint32_t reads_per_trip = 8; ///< one read per row per loop trip
inline constexpr uint32_t table_words = row_words * reads_per_trip;
/// Word i of the table holds i x value_multiplier (mod 2^32): odd, so distinct words differ, and
/// the register source computes it with one multiply-add.
inline constexpr uint32_t value_multiplier = 0x9E3779B1u;

APOD_CONSTANT_HD constexpr uint32_t table_value(uint32_t word) {
  return word * value_multiplier;
}

/// Lane l belongs to address group l mod k; at loop trip t its group reads column (group + t)
/// mod 32 of every row: k groups, k distinct columns, so k unique addresses per warp read, and an
/// index that changes every trip (nothing to hoist out of the loop).
APOD_CONSTANT_HD constexpr uint32_t column_of(uint32_t lane, uint32_t k, uint32_t trip) {
  return (lane % k + trip) & (row_words - 1);
}

/// The chase's table: node i points at (5 i + 1) mod table_words (a full-period linear
/// congruential step, so a chain visits every node), stored as byte offsets so a step is one
/// load. The register source applies the same step with arithmetic.
APOD_CONSTANT_HD constexpr uint32_t chain_next_offset(uint32_t byte_offset) {
  return (byte_offset * 5u + 4u) & (table_words * 4u - 1u);
}
/// Lane l starts at node 8 x (l mod k): k distinct starts, and as the step is a bijection the k
/// chains stay distinct, so every step of a warp reads k unique addresses.
APOD_CONSTANT_HD constexpr uint32_t chain_start_offset(uint32_t lane, uint32_t k) {
  return (lane % k) * 8u * 4u;
}

/// The sum (mod 2^32) a thread of lane `lane` ends with after `trips` trips at k groups.
uint32_t expected_thread_sum(uint32_t lane, uint32_t k, uint32_t trips);
/// The byte offset a lane's chain reaches after `steps` steps.
uint32_t expected_chain_end(uint32_t lane, uint32_t k, uint64_t steps);
/// The table (table_words words) and the chain (table_words byte offsets) as the device holds them.
std::vector<uint32_t> table_words_host();
std::vector<uint32_t> chain_offsets_host();

/// Loop trips per thread: a constant-memory read at k unique addresses costs up to k reads'
/// time (9.2.6), so its trips are divided by k (at least min_trips) to keep every point near the
/// same length; the other sources run the full count. Throws std::invalid_argument for k < 1.
uint32_t trips_per_thread(bool serialising, uint32_t k, uint32_t full_trips);
inline constexpr uint32_t min_trips = 16;

/// Least-squares line y = intercept + slope x, with the coefficient of determination.
struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;
  double at(double x) const { return intercept + slope * x; }
};
/// Fits y = a + b x. Throws std::invalid_argument for fewer than two points, unequal lengths or
/// every x equal.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

/// The guide's law (9.2.6), fitted: the cost of a warp read in clocks (one over the reads per
/// clock) against unique addresses k, cost(k) = a + b k; the model rate at k is 1 / cost(k).
/// Throws std::invalid_argument for a rate that is not positive.
LineFit fit_cost_law(const std::vector<double>& k, const std::vector<double>& reads_per_clock);
double fitted_rate(const LineFit& cost, double k);

/// time(k) / time(1) for the same reads: the one-address rate over the rate at k. Under the
/// guide's law, with no fixed cost, it equals k. Throws std::invalid_argument for rates <= 0.
double cost_ratio(double rate_one_address, double rate_k);

} // namespace apod::constant_memory
