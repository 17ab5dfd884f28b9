// The formulas every figure in the report rests on (runner/theory.cpp).
#include "core/device.hpp"
#include "core/theory.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace apod;

TEST(Theory, TheoreticalBandwidthIsClockTimesBusBytesTimesTwo) {
  // Best Practices Guide 8.2.1: V100, 877 MHz, 4096-bit bus -> 898 GB/s.
  EXPECT_NEAR(theoretical_bandwidth_gbs(877000, 4096), 898.048, 1e-9);
  // H200 as its attributes report it: 3201 MHz, 6016-bit bus.
  EXPECT_NEAR(theoretical_bandwidth_gbs(3201000, 6016), 4814.304, 1e-9);
}

TEST(Theory, TheoreticalBandwidthRejectsMissingFacts) {
  EXPECT_THROW(theoretical_bandwidth_gbs(0, 4096), std::invalid_argument);
  EXPECT_THROW(theoretical_bandwidth_gbs(877000, 0), std::invalid_argument);
}

TEST(Theory, EffectiveBandwidthCountsReadsAndWritesInDecimalGigabytes) {
  // 8.2.2's example: 2048 x 2048 floats read and written in 1 ms... scaled to seconds.
  EXPECT_NEAR(effective_bandwidth_gbs(2048.0 * 2048 * 4, 2048.0 * 2048 * 4, 1e-3), 33.554432, 1e-9);
  EXPECT_NEAR(bandwidth_gbs_from_ms(2e9, 1000.0), 2.0, 1e-12);
  EXPECT_THROW(effective_bandwidth_gbs(1, 1, 0), std::invalid_argument);
}

TEST(Theory, PcieBandwidthAccountsForLineEncoding) {
  EXPECT_NEAR(*pcie_bandwidth_gbs(3, 16), 8.0 * 16 * 128 / 130 / 8, 1e-12);   // ~15.75 GB/s
  EXPECT_NEAR(*pcie_bandwidth_gbs(5, 16), 32.0 * 16 * 128 / 130 / 8, 1e-12);  // ~63.0 GB/s
  EXPECT_NEAR(*pcie_bandwidth_gbs(2, 16), 5.0 * 16 * 0.8 / 8, 1e-12);         // 8b/10b
  EXPECT_FALSE(pcie_bandwidth_gbs(0, 16).has_value());
  EXPECT_FALSE(pcie_bandwidth_gbs(4, 0).has_value());
}

TEST(Theory, PcieGenerationFromSysfsSpeed) {
  EXPECT_EQ(pcie_generation_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_generation_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation_from_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation_from_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_generation_from_speed("Unknown"), 0);
}

TEST(Theory, AmdahlAndGustafson) {
  // 3.1.3.1: P = 3/4, N -> large: S -> 4.
  EXPECT_NEAR(amdahl_speedup(0.75, 1e12), 4.0, 1e-9);
  EXPECT_NEAR(amdahl_speedup(0.5, 2), 1.0 / (0.5 + 0.25), 1e-12);
  EXPECT_NEAR(amdahl_limit(0.75), 4.0, 1e-12);
  EXPECT_TRUE(std::isinf(amdahl_limit(1.0)));
  EXPECT_NEAR(gustafson_speedup(0.9, 10), 10 + 0.1 * -9, 1e-12);
  EXPECT_NEAR(gustafson_speedup(1.0, 64), 64.0, 1e-12);
  EXPECT_THROW(amdahl_speedup(1.5, 2), std::invalid_argument);
}

TEST(Theory, DeviceJsonRoundTripKeepsTheFactsAndTheLimit) {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-1";
  d.cc_major = 9;
  d.memory_clock_khz = 3201000;
  d.memory_bus_width_bits = 6016;
  d.pcie_generation = 5;
  d.pcie_width = 16;
  const auto j = to_json(d);
  EXPECT_NEAR(j["theoretical_bandwidth_gbs"].get<double>(), 4814.304, 1e-9);
  EXPECT_NEAR(j["theoretical_pcie_gbs"].get<double>(), 63.015384615, 1e-6);
  const DeviceInfo back = device_from_json(j);
  EXPECT_EQ(back.name, d.name);
  EXPECT_EQ(back.cc_major, 9);
  EXPECT_EQ(back.memory_bus_width_bits, 6016);
}

TEST(Theory, FmaLanesFollowTheProgrammingGuidesThroughputTable) {
  // Data-centre parts carry FP64 lanes; the others of a generation 2 per SM.
  EXPECT_EQ(fma_lanes_per_sm(7, 5)->fp32, 64);
  EXPECT_EQ(fma_lanes_per_sm(7, 5)->fp64, 2);
  EXPECT_EQ(fma_lanes_per_sm(8, 0)->fp32, 64);
  EXPECT_EQ(fma_lanes_per_sm(8, 0)->fp64, 32);
  EXPECT_EQ(fma_lanes_per_sm(8, 6)->fp32, 128);
  EXPECT_EQ(fma_lanes_per_sm(8, 6)->fp64, 2);
  EXPECT_EQ(fma_lanes_per_sm(8, 9)->fp64, 2);
  EXPECT_EQ(fma_lanes_per_sm(9, 0)->fp32, 128);
  EXPECT_EQ(fma_lanes_per_sm(9, 0)->fp64, 64);
  EXPECT_EQ(fma_lanes_per_sm(10, 0)->fp64, 64);
  EXPECT_EQ(fma_lanes_per_sm(12, 0)->fp32, 128);
  EXPECT_EQ(fma_lanes_per_sm(12, 0)->fp64, 2);
}

TEST(Theory, FmaLanesAreUnknownOutsideTheTable) {
  // No guess for a capability the table is not transcribed for (10.3 differs from 10.0 in FP64).
  EXPECT_FALSE(fma_lanes_per_sm(10, 3).has_value());
  EXPECT_FALSE(fma_lanes_per_sm(6, 1).has_value());
  EXPECT_FALSE(fma_lanes_per_sm(0, 0).has_value());
}

TEST(Theory, PeakFlopsIsClockTimesSmsTimesLanesTimesTwo) {
  // The notes' Tesla K10 example, one of its two GPUs: 745 MHz x 8 SMs x 192 lanes x 2.
  EXPECT_NEAR(peak_gflops(8, 192, 745000), 2288.64, 1e-9);
  // H100 SXM as its attributes report it: 132 SMs at 1980 MHz, 128 FP32 lanes: ~66.9 TFLOP/s.
  EXPECT_NEAR(peak_gflops(132, 128, 1980000), 66908.16, 1e-6);
  EXPECT_NEAR(peak_gflops(132, 64, 1980000), 33454.08, 1e-6);
  EXPECT_THROW(peak_gflops(0, 128, 1980000), std::invalid_argument);
  EXPECT_THROW(peak_gflops(132, 0, 1980000), std::invalid_argument);
  EXPECT_THROW(peak_gflops(132, 128, 0), std::invalid_argument);
}

TEST(Theory, MachineBalanceIsPeakFlopsOverBandwidth) {
  // The notes' K10: 4.58 TFLOP/s over 320 GB/s, ~14.3 operations per byte.
  EXPECT_NEAR(machine_balance(4577.28, 320.0), 14.304, 1e-9);
  EXPECT_THROW(machine_balance(0, 320.0), std::invalid_argument);
  EXPECT_THROW(machine_balance(4577.28, 0), std::invalid_argument);
}

TEST(Theory, RooflineIsBandwidthBoundBelowTheBalanceAndFlatAbove) {
  const double peak = 1000, bandwidth = 100; // balance 10 FLOP/byte
  EXPECT_DOUBLE_EQ(roofline_gflops(0.25, peak, bandwidth), 25.0);
  EXPECT_DOUBLE_EQ(roofline_gflops(10.0, peak, bandwidth), 1000.0);
  EXPECT_DOUBLE_EQ(roofline_gflops(64.0, peak, bandwidth), 1000.0);
  EXPECT_DOUBLE_EQ(roofline_gflops(0.0, peak, bandwidth), 0.0);
  EXPECT_THROW(roofline_gflops(-1.0, peak, bandwidth), std::invalid_argument);
  EXPECT_THROW(roofline_gflops(1.0, 0, bandwidth), std::invalid_argument);
}
