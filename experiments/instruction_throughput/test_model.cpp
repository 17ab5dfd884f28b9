// instruction_throughput's host maths: the classes' theoretical rates, the chains' host
// reproduction (the half rounding, dp4a's signed bytes), Little's law for the units, the 90%
// in-flight point and operations per watt.
#include "model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace apod;
using namespace apod::throughput;

namespace {

TEST(ThroughputModel, TheoreticalRatesComeFromTheProgrammingGuidesTable) {
  EXPECT_EQ(theoretical_results_per_clock(OpClass::fp32_fma, 9, 0), 128.0);
  EXPECT_EQ(theoretical_results_per_clock(OpClass::fp64_fma, 9, 0), 64.0);
  EXPECT_EQ(theoretical_results_per_clock(OpClass::fp16x2_fma, 9, 0), 256.0);
  EXPECT_EQ(theoretical_results_per_clock(OpClass::fp16x2_fma, 8, 9), 128.0);
  EXPECT_EQ(theoretical_results_per_clock(OpClass::int32_imad, 7, 5), 64.0);
  EXPECT_EQ(theoretical_results_per_clock(OpClass::sfu_rsqrt, 8, 0), 16.0);
  // No row for __dp4a; no figure it could not confirm.
  EXPECT_FALSE(theoretical_results_per_clock(OpClass::int8_dp4a, 9, 0).has_value());
  EXPECT_FALSE(theoretical_results_per_clock(OpClass::sfu_rsqrt, 9, 0).has_value());
}

TEST(ThroughputModel, Half2AndDp4aCountTheirLanesResults) {
  EXPECT_EQ(info(OpClass::fp16x2_fma).results_per_lane_op, 2);
  EXPECT_EQ(info(OpClass::int8_dp4a).results_per_lane_op, 4);
  EXPECT_EQ(info(OpClass::fp32_fma).results_per_lane_op, 1);
  EXPECT_EQ(op_classes().size(), 6u);
}

TEST(ThroughputModel, LittlesLawIsInFlightOverLatencyCappedPerScheduler) {
  // FP32 on an H100: 128 per clock, 4-cycle latency. One warp of one chain: 32 results every 4
  // cycles = 8 per clock.
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 1, 1, 4, 1), 8.0);
  // One warp cannot use more than its scheduler's quarter, 32, however many chains it runs.
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 1, 8, 4, 1), 32.0);
  // With one scheduler the law is the plain min(peak, warps x ILP x 32 / latency).
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 1, 8, 4, 1, 1), 64.0);
  // Four warps of one chain, one per scheduler: 4 x 8.
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 4, 1, 4, 1), 32.0);
  // 16 warps (4 per scheduler) saturate: 4 x min(32, 4 x 32 / 4).
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 16, 1, 4, 1), 128.0);
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 32, 8, 4, 1), 128.0);
  // Five warps: schedulers hold 2, 1, 1, 1.
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(128, 5, 1, 4, 1), 16.0 + 3 * 8.0);
  // half2 counts 2 results per lane: twice the results in flight.
  EXPECT_DOUBLE_EQ(littles_law_results_per_clock(256, 1, 1, 4, 2), 16.0);
  EXPECT_THROW(littles_law_results_per_clock(0, 1, 1, 4, 1), std::invalid_argument);
  EXPECT_THROW(littles_law_results_per_clock(128, 1, 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(littles_law_results_per_clock(128, 0, 1, 4, 1), std::invalid_argument);
}

TEST(ThroughputModel, InFlightToReachTakesTheSmallestPointAtTheFraction) {
  const std::vector<SweepPoint> points = {{1, 1, 8},   {4, 1, 32},   {8, 1, 64},  {16, 1, 118},
                                          {2, 8, 120}, {32, 1, 125}, {32, 8, 126}};
  // 90% of 126 is 113.4: the points at or above are 16x1 (512 in flight), 2x8 (512), 32x1 and
  // 32x8; the fewest in flight is 512, the faster of the two ties.
  EXPECT_DOUBLE_EQ(*in_flight_to_reach(points, 0.9, 1), 512.0);
  // Every point reaches 0%: the smallest, one warp of one chain.
  EXPECT_DOUBLE_EQ(*in_flight_to_reach(points, 0.0, 1), 32.0);
  // Results per lane scale the count.
  EXPECT_DOUBLE_EQ(*in_flight_to_reach(points, 0.9, 4), 2048.0);
  EXPECT_FALSE(in_flight_to_reach({}, 0.9, 1).has_value());
  EXPECT_DOUBLE_EQ(results_in_flight(16, 2, 2), 2048.0);
}

TEST(ThroughputModel, OpsPerWattNeedsTheWindowsEnergy) {
  SamplingWindow w;
  w.busy_s = 0.2;
  EXPECT_FALSE(ops_per_watt(1e12, w).has_value());
  w.energy_j = 100.0; // 500 W
  EXPECT_DOUBLE_EQ(*ops_per_watt(1e12, w), 2e9);
}

TEST(ThroughputModel, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(double_to_half(1.0), 0x3C00);
  EXPECT_EQ(double_to_half(-2.0), 0xC000);
  EXPECT_EQ(double_to_half(65504.0), 0x7BFF);
  EXPECT_EQ(double_to_half(65520.0), 0x7C00); // rounds past the largest half
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -14)), 0x0400);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even, 1. 1 + 3 x 2^-11: up to 1 + 2^-9.
  EXPECT_EQ(double_to_half(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(double_to_half(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  for (uint16_t bits : {0x3C00, 0x3555, 0x0001, 0x03FF, 0x7BFF, 0xBC01})
    EXPECT_EQ(double_to_half(half_to_double(bits)), bits) << bits;
}

TEST(ThroughputModel, EveryFiniteHalfRoundTripsAndMidpointsRoundToEven) {
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) {
    const double v = half_to_double(uint16_t(bits));
    ASSERT_EQ(double_to_half(v), bits);
    ASSERT_EQ(double_to_half(-v), bits | 0x8000);
    if (bits + 1 < 0x7C00) { // halfway to the next half: to the one with an even mantissa
      const double mid = 0.5 * (v + half_to_double(uint16_t(bits + 1)));
      ASSERT_EQ(double_to_half(mid), (bits & 1) ? bits + 1 : bits) << bits;
    }
  }
  EXPECT_EQ(double_to_half(65519.0), 0x7BFF); // under the midpoint to infinity
}

TEST(ThroughputModel, ChainsMatchHandComputedSteps) {
  // IMAD: an LCG step mod 2^32.
  const Coefficients imad = coefficients(OpClass::int32_imad);
  EXPECT_EQ(host_step(OpClass::int32_imad, 1, imad), 1664525u + 1013904223u);
  // dp4a: x's signed bytes times a's (-7, 5, -3, 3 from the lowest), plus b.
  const Coefficients dp = coefficients(OpClass::int8_dp4a);
  const uint64_t x = 0x01FF0280; // bytes -128, 2, -1, 1
  EXPECT_EQ(int32_t(host_step(OpClass::int8_dp4a, x, dp)),
            0x12345 + (-128 * -7) + (2 * 5) + (-1 * -3) + (1 * 3));
  // FP32: fma(x, 1 - 2^-10, 2^-10) moves x towards 1.
  const Coefficients f = coefficients(OpClass::fp32_fma);
  const uint64_t two = 0x40000000;                              // 2.0f
  EXPECT_EQ(host_step(OpClass::fp32_fma, two, f), 0x3FFFE000u); // 2 - 2^-10 = 1.9990234375
  // half2: both halves step independently and exactly as the float would, rounded to half.
  const Coefficients h = coefficients(OpClass::fp16x2_fma);
  const uint64_t pair = uint64_t(double_to_half(2.0)) | uint64_t(double_to_half(1.0)) << 16;
  const uint64_t stepped = host_step(OpClass::fp16x2_fma, pair, h);
  EXPECT_EQ(half_to_double(uint16_t(stepped)), 2.0 - 1.0 / 1024);
  EXPECT_EQ(half_to_double(uint16_t(stepped >> 16)), 1.0);
}

TEST(ThroughputModel, FloatingChainsStayFiniteAndDistinct) {
  for (const OpClass op : {OpClass::fp32_fma, OpClass::fp64_fma, OpClass::fp16x2_fma}) {
    const std::vector<uint64_t> in = chain_inputs(op);
    const std::vector<uint64_t> out = chain_outputs(op, in, 4096);
    ASSERT_EQ(out.size(), size_t(chain_table_size));
    // The first and last inputs (1 and 1 + 63/64) have not met after 4096 steps.
    EXPECT_NE(out.front(), out.back()) << info(op).name;
    EXPECT_NE(out.back(), in.back()) << info(op).name;
  }
  const std::vector<uint64_t> r =
      chain_outputs(OpClass::sfu_rsqrt, chain_inputs(OpClass::sfu_rsqrt), 64);
  for (uint64_t bits : r) { // converged to 1
    float v;
    const uint32_t b = uint32_t(bits);
    std::memcpy(&v, &b, 4);
    EXPECT_NEAR(v, 1.0f, 1e-6f);
  }
}

TEST(ThroughputModel, RsqrtMatchesWithinItsToleranceAndTheOthersExactly) {
  const uint64_t one = 0x3F800000, one_ulp_up = 0x3F800001;
  EXPECT_TRUE(chain_matches(OpClass::sfu_rsqrt, one_ulp_up, one));
  EXPECT_FALSE(chain_matches(OpClass::sfu_rsqrt, 0x3F810000, one)); // ~0.8% off
  EXPECT_FALSE(chain_matches(OpClass::sfu_rsqrt, 0x7FC00000, one)); // NaN
  EXPECT_FALSE(chain_matches(OpClass::fp32_fma, one_ulp_up, one));
  EXPECT_TRUE(chain_matches(OpClass::int32_imad, 7, 7));
}

} // namespace
