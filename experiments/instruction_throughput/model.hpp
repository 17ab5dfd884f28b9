// Host-side arithmetic of instruction_throughput (instruction_throughput.cu): the operation
// classes and how many results each instruction counts, their theoretical rates, the host's
// reproduction of every chain the kernels run, Little's law for the arithmetic units, and the
// operations in flight a sweep needed to reach 90% of its peak.
#pragma once

#include "core/in_flight.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod::throughput {

/// The operation classes measured, each one SASS instruction per step of a chain.
enum class OpClass { fp32_fma, fp64_fma, fp16x2_fma, int32_imad, int8_dp4a, sfu_rsqrt };

/// What a class is and how it is counted.
struct OpInfo {
  OpClass op;
  const char* name;        ///< the stored param value: "fp32_fma"
  const char* label;       ///< words for a reader
  const char* instruction; ///< the SASS instruction each step compiles to
  /// Results one lane's instruction counts, as the Programming Guide's throughput table counts
  /// them: 2 for a half2 FMA (two 16-bit multiply-adds), 4 for __dp4a (four 8-bit
  /// multiply-adds), 1 otherwise.
  int results_per_lane_op;
};

/// Every class, in the order measured.
const std::vector<OpInfo>& op_classes();
const OpInfo& info(OpClass op);

/// The class's theoretical results per clock per SM on compute capability major.minor, from
/// theory.hpp's native_results_per_clock (the Programming Guide's table); empty for __dp4a (no
/// row) and where the table's figure is not known.
std::optional<double> theoretical_results_per_clock(OpClass op, int cc_major, int cc_minor);

/// Threads of one warp: every lane runs its own chain.
inline constexpr int warp_lanes = 32;
/// Warp schedulers per SM on compute capability 7.0 and later (Programming Guide, "Compute
/// Capability 7.x", "8.x", "9.0": an SM has four partitions, each with its own scheduler issuing
/// one warp instruction per clock).
inline constexpr int schedulers_per_sm = 4;

/// Little's law for an arithmetic unit (Notes on CUDA, seed 002: latency x throughput = the
/// operations in flight; Best Practices Guide 10.2: the warps that hide arithmetic latency). A
/// scheduler holding n warps of `ilp` independent chains has n x ilp x 32 x results_per_lane_op
/// results in flight, each done after `latency_cycles`; it delivers that over the latency, at
/// most its share of the SM's peak. Warps are dealt to the schedulers in turn (warp w to w mod
/// schedulers), and the SM's figure is the sum:
///   sum over schedulers s of min(peak / schedulers, n_s x ilp x 32 x r / latency).
/// With schedulers = 1 this is min(peak, warps x ilp x 32 x r / latency). Throws
/// std::invalid_argument on a non-positive input.
double littles_law_results_per_clock(double peak, int warps, int ilp, double latency_cycles,
                                     int results_per_lane_op, int schedulers = schedulers_per_sm);

/// Results in flight per SM at a sweep point: warps x ilp x 32 x results_per_lane_op.
double results_in_flight(int warps, int ilp, int results_per_lane_op);

/// One point of the sweep, as measured.
struct SweepPoint {
  int warps = 0, ilp = 0;
  double results_per_clock = 0;
};

/// The fewest results in flight per SM (results_in_flight) of a point whose throughput reaches
/// `fraction` of the best throughput in `points`; empty when there is no point. Ties go to the
/// faster point.
std::optional<double> in_flight_to_reach(const std::vector<SweepPoint>& points, double fraction,
                                         int results_per_lane_op);

/// Operations per joule (= per second per watt) over a sampling window with energy: ops/s over
/// energy_j / busy_s; empty without energy or busy time.
std::optional<double> ops_per_watt(double ops_per_s, const SamplingWindow& window);

// ---- The chains and their host reproduction.
//
// Each thread's chain c starts from input value inputs[(thread x ilp + c) mod chain_table_size]
// and applies `steps` steps. Values travel as their storage bits in 64-bit words (a float's 32
// bits, a double's 64, a half2's 32, an int's 32).

inline constexpr int chain_table_size = 64;

/// The coefficients a, b of a class's step (as storage bits): x' = fma(x, a, b) for the FMAs,
/// x * a + b for IMAD, __dp4a(x, a, b) for dp4a; unused by rsqrt.
struct Coefficients {
  uint64_t a = 0, b = 0;
};
Coefficients coefficients(OpClass op);

/// The chain_table_size input values of a class (as storage bits): finite, normal, and such
/// that every chain stays so.
std::vector<uint64_t> chain_inputs(OpClass op);

/// One step on the host, bit for bit what the device does (exactly for every class but rsqrt,
/// whose device result is the special-function unit's approximation: see chain_matches).
uint64_t host_step(OpClass op, uint64_t x, const Coefficients& k);

/// Each input after `steps` steps.
std::vector<uint64_t> chain_outputs(OpClass op, const std::vector<uint64_t>& inputs, int steps);

/// Relative tolerance of the rsqrt chains: the special-function unit approximates 1/sqrt(x)
/// (PTX rsqrt.approx), and the chain x -> x^(-1/2) halves an earlier error at each step, so the
/// accumulated error stays within about twice one step's, far under this.
inline constexpr double rsqrt_tolerance = 1e-5;

/// Whether the device's result matches the host's: bit for bit, or for rsqrt within
/// rsqrt_tolerance relative.
bool chain_matches(OpClass op, uint64_t device, uint64_t host);

/// IEEE binary16 bits to double, and a double rounded to the nearest binary16 (ties to even),
/// with subnormals, for the half2 chains.
double half_to_double(uint16_t bits);
uint16_t double_to_half(double value);

} // namespace apod::throughput
