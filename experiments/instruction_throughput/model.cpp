#include "model.hpp"

#include "core/theory.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace apod::throughput {

const std::vector<OpInfo>& op_classes() {
  static const std::vector<OpInfo> all = {
      {OpClass::fp32_fma, "fp32_fma", "FP32 FMA (fmaf)", "FFMA", 1},
      {OpClass::fp64_fma, "fp64_fma", "FP64 FMA (fma)", "DFMA", 1},
      {OpClass::fp16x2_fma, "fp16x2_fma", "FP16 half2 FMA (__hfma2, 2 results)", "HFMA2", 2},
      {OpClass::int32_imad, "int32_imad", "INT32 multiply-add (a * b + c)", "IMAD", 1},
      {OpClass::int8_dp4a, "int8_dp4a", "INT8 dot product (__dp4a, 4 results)", "IDP.4A", 4},
      {OpClass::sfu_rsqrt, "sfu_rsqrt", "special-function unit (rsqrt.approx)", "MUFU.RSQ", 1},
  };
  return all;
}

const OpInfo& info(OpClass op) {
  for (const OpInfo& i : op_classes())
    if (i.op == op)
      return i;
  throw std::logic_error("unknown operation class");
}

std::optional<double> theoretical_results_per_clock(OpClass op, int cc_major, int cc_minor) {
  std::optional<int> r;
  switch (op) {
  case OpClass::fp32_fma:
    r = native_results_per_clock(NativeArithmetic::fp32_fma, cc_major, cc_minor);
    break;
  case OpClass::fp64_fma:
    r = native_results_per_clock(NativeArithmetic::fp64_fma, cc_major, cc_minor);
    break;
  case OpClass::fp16x2_fma:
    r = native_results_per_clock(NativeArithmetic::fp16_fma, cc_major, cc_minor);
    break;
  case OpClass::int32_imad:
    r = native_results_per_clock(NativeArithmetic::int32_mad, cc_major, cc_minor);
    break;
  case OpClass::sfu_rsqrt:
    r = native_results_per_clock(NativeArithmetic::special_function, cc_major, cc_minor);
    break;
  case OpClass::int8_dp4a:
    break; // the table has no row for it
  }
  if (!r)
    return std::nullopt;
  return double(*r);
}

double littles_law_results_per_clock(double peak, int warps, int ilp, double latency_cycles,
                                     int results_per_lane_op, int schedulers) {
  if (peak <= 0 || warps <= 0 || ilp <= 0 || latency_cycles <= 0 || results_per_lane_op <= 0 ||
      schedulers <= 0)
    throw std::invalid_argument("Little's law needs a positive peak, warps, ILP and latency");
  double total = 0;
  for (int s = 0; s < schedulers; ++s) {
    const int n = warps / schedulers + (s < warps % schedulers ? 1 : 0);
    const double delivered = results_in_flight(n, ilp, results_per_lane_op) / latency_cycles;
    total += std::min(peak / schedulers, delivered);
  }
  return total;
}

double results_in_flight(int warps, int ilp, int results_per_lane_op) {
  return double(warps) * ilp * warp_lanes * results_per_lane_op;
}

std::optional<double> in_flight_to_reach(const std::vector<SweepPoint>& points, double fraction,
                                         int results_per_lane_op) {
  double best = 0;
  for (const SweepPoint& p : points)
    best = std::max(best, p.results_per_clock);
  if (points.empty() || best <= 0)
    return std::nullopt;
  const SweepPoint* chosen = nullptr;
  double chosen_in_flight = 0;
  for (const SweepPoint& p : points) {
    if (p.results_per_clock < fraction * best)
      continue;
    const double in_flight = results_in_flight(p.warps, p.ilp, results_per_lane_op);
    if (!chosen || in_flight < chosen_in_flight ||
        (in_flight == chosen_in_flight && p.results_per_clock > chosen->results_per_clock))
      chosen = &p, chosen_in_flight = in_flight;
  }
  return chosen_in_flight;
}

std::optional<double> ops_per_watt(double ops_per_s, const SamplingWindow& window) {
  if (!window.energy_j || *window.energy_j <= 0 || window.busy_s <= 0)
    return std::nullopt;
  return ops_per_s / (*window.energy_j / window.busy_s);
}

// ---- Chains.

namespace {

uint64_t float_bits(float f) {
  return std::bit_cast<uint32_t>(f);
}
float bits_float(uint64_t b) {
  return std::bit_cast<float>(uint32_t(b));
}
uint64_t double_bits(double d) {
  return std::bit_cast<uint64_t>(d);
}
double bits_double(uint64_t b) {
  return std::bit_cast<double>(b);
}
uint64_t half2_bits(double lo, double hi) {
  return uint64_t(double_to_half(lo)) | uint64_t(double_to_half(hi)) << 16;
}

// One binary16 FMA, correctly rounded: x, a, b have 11-bit significands and the chains keep
// them within [2^-2, 4], so x * a + b is exact in a double and rounds once, to the half.
uint16_t half_fma(uint16_t x, uint16_t a, uint16_t b) {
  return double_to_half(half_to_double(x) * half_to_double(a) + half_to_double(b));
}

int32_t dp4a(int32_t x, int32_t a, int32_t c) {
  int32_t sum = c;
  for (int i = 0; i < 4; ++i)
    sum += int32_t(int8_t(uint32_t(x) >> (8 * i))) * int32_t(int8_t(uint32_t(a) >> (8 * i)));
  return sum;
}

} // namespace

Coefficients coefficients(OpClass op) {
  // The FP chains contract towards 1 (x' = x (1 - 2^-10) + 2^-10) slowly enough that no two
  // inputs meet within the steps run, so each output tests every step's rounding.
  const double a = 1.0 - 1.0 / 1024, b = 1.0 / 1024;
  switch (op) {
  case OpClass::fp32_fma:
    return {float_bits(float(a)), float_bits(float(b))};
  case OpClass::fp64_fma:
    return {double_bits(a), double_bits(b)};
  case OpClass::fp16x2_fma:
    return {half2_bits(a, a), half2_bits(b, b)};
  case OpClass::int32_imad:
    return {1664525u, 1013904223u}; // an LCG: every step a new value mod 2^32
  case OpClass::int8_dp4a:
    return {0x03FD05F9u, 0x00012345u}; // bytes -7, 5, -3, 3 from the lowest
  case OpClass::sfu_rsqrt:
    return {};
  }
  throw std::logic_error("unknown operation class");
}

std::vector<uint64_t> chain_inputs(OpClass op) {
  std::vector<uint64_t> v(chain_table_size);
  for (int k = 0; k < chain_table_size; ++k) {
    const double x = 1.0 + k / 64.0; // exact in every format here
    switch (op) {
    case OpClass::fp32_fma:
      v[k] = float_bits(float(x));
      break;
    case OpClass::fp64_fma:
      v[k] = double_bits(x);
      break;
    case OpClass::fp16x2_fma:
      v[k] = half2_bits(x, 3.0 - x);
      break;
    case OpClass::int32_imad:
    case OpClass::int8_dp4a:
      v[k] = uint32_t(uint32_t(k) * 2654435761u + 12345u);
      break;
    case OpClass::sfu_rsqrt:
      v[k] = float_bits(float(0.5 + k / 16.0));
      break;
    }
  }
  return v;
}

uint64_t host_step(OpClass op, uint64_t x, const Coefficients& k) {
  switch (op) {
  case OpClass::fp32_fma:
    return float_bits(std::fmaf(bits_float(x), bits_float(k.a), bits_float(k.b)));
  case OpClass::fp64_fma:
    return double_bits(std::fma(bits_double(x), bits_double(k.a), bits_double(k.b)));
  case OpClass::fp16x2_fma: {
    const uint16_t lo = half_fma(uint16_t(x), uint16_t(k.a), uint16_t(k.b));
    const uint16_t hi = half_fma(uint16_t(x >> 16), uint16_t(k.a >> 16), uint16_t(k.b >> 16));
    return uint64_t(lo) | uint64_t(hi) << 16;
  }
  case OpClass::int32_imad:
    return uint32_t(uint32_t(x) * uint32_t(k.a) + uint32_t(k.b));
  case OpClass::int8_dp4a:
    return uint32_t(dp4a(int32_t(uint32_t(x)), int32_t(uint32_t(k.a)), int32_t(uint32_t(k.b))));
  case OpClass::sfu_rsqrt:
    return float_bits(float(1.0 / std::sqrt(double(bits_float(x)))));
  }
  throw std::logic_error("unknown operation class");
}

std::vector<uint64_t> chain_outputs(OpClass op, const std::vector<uint64_t>& inputs, int steps) {
  const Coefficients k = coefficients(op);
  std::vector<uint64_t> out = inputs;
  for (uint64_t& x : out)
    for (int s = 0; s < steps; ++s)
      x = host_step(op, x, k);
  return out;
}

bool chain_matches(OpClass op, uint64_t device, uint64_t host) {
  if (op != OpClass::sfu_rsqrt)
    return device == host;
  const double d = bits_float(device), h = bits_float(host);
  return std::isfinite(d) && std::abs(d - h) <= rsqrt_tolerance * std::abs(h);
}

double half_to_double(uint16_t bits) {
  const uint64_t sign = uint64_t(bits >> 15) << 63;
  const int exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
  if (exponent == 0) { // subnormal or zero: mantissa x 2^-24, exact
    const double magnitude = std::ldexp(double(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31)
    return mantissa ? std::nan("") : (sign ? -INFINITY : INFINITY);
  // A normal half is a double with the exponent rebiased (15 -> 1023) and 42 more mantissa bits.
  return std::bit_cast<double>(sign | uint64_t(exponent - 15 + 1023) << 52 |
                               uint64_t(mantissa) << 42);
}

uint16_t double_to_half(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint16_t sign = uint16_t((bits >> 63) << 15);
  const int exponent = int((bits >> 52) & 0x7FF) - 1023;
  if (exponent >= -14 && exponent <= 15) {
    // Normal range: keep 10 of the 52 mantissa bits, rounding the 42 dropped to nearest, ties to
    // even; a carry out of the mantissa moves into the exponent, and past 15 reaches infinity.
    const uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
    uint32_t kept = uint32_t(mantissa >> 42);
    const uint64_t dropped = mantissa & ((uint64_t(1) << 42) - 1), half = uint64_t(1) << 41;
    uint32_t h = uint32_t(exponent + 15) << 10 | kept;
    if (dropped > half || (dropped == half && (kept & 1)))
      ++h;
    return sign | uint16_t(std::min<uint32_t>(h, 0x7C00));
  }
  // Zero, subnormals, overflow and NaN: the general rounding.
  const double a = std::abs(value);
  if (std::isnan(a))
    return 0x7E00;
  if (a == 0)
    return sign;
  int e = 0;
  std::frexp(a, &e); // a = f x 2^e, f in [0.5, 1): 11 significant bits step by 2^(e - 11)
  const int quantum_exponent = std::max(e - 11, -24);
  const double r = std::ldexp(std::nearbyint(std::ldexp(a, -quantum_exponent)), quantum_exponent);
  if (r >= 65536.0 - 16) // past the largest half, 65504, after rounding
    return sign | 0x7C00;
  if (r < std::ldexp(1.0, -14)) // subnormal: the mantissa counts 2^-24
    return sign | uint16_t(std::ldexp(r, 24));
  return sign | 0x0400; // rounded up to the smallest normal
}

} // namespace apod::throughput
