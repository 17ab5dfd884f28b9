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
  EXPECT_NEAR(*pcie_bandwidth_gbs(3, 16), 8.0 * 16 * 128 / 130 / 8, 1e-12);  // ~15.75 GB/s
  EXPECT_NEAR(*pcie_bandwidth_gbs(5, 16), 32.0 * 16 * 128 / 130 / 8, 1e-12); // ~63.0 GB/s
  EXPECT_NEAR(*pcie_bandwidth_gbs(2, 16), 5.0 * 16 * 0.8 / 8, 1e-12);        // 8b/10b
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

TEST(Theory, MeasuredSpeedupHoldsTheSerialTimeInBothTimes) {
  // 1 ms serial, 9 ms parallel on the base, 1 ms on 9x the processors: 10 / 2.
  EXPECT_DOUBLE_EQ(measured_speedup(1.0, 9.0, 1.0), 5.0);
  // Exactly Amdahl's law when the parallel phase scales ideally: P = 0.9, N = 9.
  EXPECT_NEAR(measured_speedup(1.0, 9.0, 9.0 / 9), amdahl_speedup(0.9, 9), 1e-12);
  // Weak scaling: the grown problem takes N x p on the base and p on N; Gustafson's law with
  // P = p / (s + p).
  const double s = 1.0, p = 3.0, n = 8;
  EXPECT_NEAR(measured_speedup(s, n * p, p), gustafson_speedup(p / (s + p), n), 1e-12);
  EXPECT_DOUBLE_EQ(parallel_efficiency(6.0, 8), 0.75);
  EXPECT_THROW(measured_speedup(0, 1, 0), std::invalid_argument);
  EXPECT_THROW(parallel_efficiency(1, 0), std::invalid_argument);
}

TEST(Theory, SmBandwidthModelRisesLinearlyToTheDramLimit) {
  // 150 GB/s per SM against a 3000 GB/s limit: the knee at 20 SMs.
  EXPECT_DOUBLE_EQ(bandwidth_knee_sm_count(150, 3000), 20.0);
  EXPECT_DOUBLE_EQ(sm_bandwidth_model_gbs(8, 150, 3000), 1200.0);
  EXPECT_DOUBLE_EQ(sm_bandwidth_model_gbs(20, 150, 3000), 3000.0);
  EXPECT_DOUBLE_EQ(sm_bandwidth_model_gbs(132, 150, 3000), 3000.0);
  EXPECT_THROW(sm_bandwidth_model_gbs(8, 0, 3000), std::invalid_argument);
  EXPECT_THROW(bandwidth_knee_sm_count(150, 0), std::invalid_argument);
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
