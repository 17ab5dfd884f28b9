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

TEST(Theory, PcieAttainableLimitPaysForTheProtocolAtThePayloadSize) {
  // Gen5 x16, MPS 256: 63.015 GB/s line rate x 370/371 (SKP) x (1 - 2 x 0.5/168) (an ACK and an
  // UpdateFC per 168 symbol times) x 256 / (256 + 8 + 12) for completions (host to device).
  const double line = 32.0 * 16 * 128 / 130 / 8;
  const double after_link = line * 370.0 / 371 * (1 - 1.0 / 168);
  const auto h2d = pcie_attainable_gbs(5, 16, 256, PcieDirection::host_to_device);
  const auto d2h = pcie_attainable_gbs(5, 16, 256, PcieDirection::device_to_host);
  ASSERT_TRUE(h2d && d2h);
  EXPECT_NEAR(*h2d, after_link * 256 / 276, 1e-9);
  EXPECT_NEAR(*h2d, 57.94, 0.01);
  EXPECT_NEAR(*d2h, after_link * 256 / 280, 1e-9) << "64-bit memory writes carry a 16-byte header";
  EXPECT_NEAR(*d2h, 57.12, 0.01);
  // The H100's 55.4 GB/s host to device is 87.9% of the line rate but 95.6% of what is attainable.
  EXPECT_NEAR(100 * 55.4 / *h2d, 95.6, 0.05);
  // Larger payloads amortise the per-TLP bytes; a smaller one pays more.
  EXPECT_GT(*pcie_attainable_gbs(5, 16, 512, PcieDirection::host_to_device), *h2d);
  EXPECT_LT(*pcie_attainable_gbs(5, 16, 128, PcieDirection::host_to_device), *h2d);
  // Gen3 x16 MPS 256 (the guide's V100 era): ~14.5 GB/s of the 15.75 GB/s line rate.
  EXPECT_NEAR(*pcie_attainable_gbs(3, 16, 256, PcieDirection::host_to_device), 14.49, 0.01);
}

TEST(Theory, PcieAttainableLimitIsEmptyWhereTheModelDoesNotApply) {
  EXPECT_FALSE(pcie_attainable_gbs(6, 16, 256, PcieDirection::host_to_device).has_value())
      << "FLIT mode";
  EXPECT_FALSE(pcie_attainable_gbs(2, 16, 256, PcieDirection::host_to_device).has_value());
  EXPECT_FALSE(pcie_attainable_gbs(5, 12, 256, PcieDirection::host_to_device).has_value());
  EXPECT_FALSE(pcie_attainable_gbs(5, 16, 300, PcieDirection::host_to_device).has_value());
  EXPECT_FALSE(pcie_attainable_gbs(5, 16, 0, PcieDirection::device_to_host).has_value());
}

namespace {
// A type-0 header whose capability list holds a power-management capability at 0x40 and the PCI
// Express capability at 0x60 with Device Control = `device_control`.
std::vector<uint8_t> config_space(uint16_t device_control, size_t size = 256) {
  std::vector<uint8_t> c(256, 0);
  c[0x06] = 0x10; // Status: capability list present
  c[0x34] = 0x40;
  c[0x40] = 0x01, c[0x41] = 0x60; // power management, next at 0x60
  c[0x60] = 0x10, c[0x61] = 0x00; // PCI Express, end of list
  c[0x68] = device_control & 0xFF, c[0x69] = device_control >> 8;
  c.resize(size);
  return c;
}
} // namespace

TEST(Theory, MaxPayloadSizeIsReadFromDeviceControl) {
  // Bits 7:5 = 001b: 256 bytes (with relaxed ordering and MRRS bits set around it).
  EXPECT_EQ(pcie_max_payload_from_config(config_space(0x2930)), 256);
  EXPECT_EQ(pcie_max_payload_from_config(config_space(0x0000)), 128);
  EXPECT_EQ(pcie_max_payload_from_config(config_space(0x00A0)), 4096);
  EXPECT_FALSE(pcie_max_payload_from_config(config_space(0x00C0)).has_value())
      << "reserved encoding";
  EXPECT_FALSE(pcie_max_payload_from_config(config_space(0x2930, 64)).has_value())
      << "a non-root reader sees 64 bytes: no capability list";
  EXPECT_FALSE(pcie_max_payload_from_config({}).has_value());
  auto looped = config_space(0x2930);
  looped[0x61] = 0x40, looped[0x60] = 0x05; // MSI pointing back to the first entry
  EXPECT_FALSE(pcie_max_payload_from_config(looped).has_value()) << "a looping list ends";
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

TEST(Theory, LittlesLawInFlightIsLatencyTimesThroughput) {
  // Notes on CUDA's table (002_...): Fermi, 800 cycles at 92 bytes per cycle (144 GB/s, so a
  // 1.565 GHz clock) -> 73.6 KB in flight ("74KB"), for the whole device and reads only.
  const double clock_ghz = 144.0 / 92.0, latency_ns = 800 / clock_ghz;
  EXPECT_NEAR(littles_law_in_flight_bytes_per_sm(144.0, 1, latency_ns, 1.0), 73600.0, 1e-6);
  // A copy moves two bytes (read, written) per byte loaded: half the loads in flight suffice.
  EXPECT_NEAR(littles_law_in_flight_bytes_per_sm(144.0, 1, latency_ns, 2.0), 36800.0, 1e-6);
  // Per SM: the device's bytes in flight shared by its SMs.
  EXPECT_NEAR(littles_law_in_flight_bytes_per_sm(3000.0, 132, 600.0, 2.0), 3000.0 / 2 * 600 / 132,
              1e-9);
}

TEST(Theory, LittlesLawBandwidthIsInFlightOverLatencyCappedAtThePeak) {
  // The guide's offsetCopy shape at full occupancy: 2048 threads x one 4-byte load = 8 KiB per SM.
  // 132 SMs, 700 ns, a copy (x2): 2 x 132 x 8192 / 700 = 3089.4 GB/s, under a 4000 GB/s peak.
  EXPECT_NEAR(littles_law_bandwidth_gbs(132, 8192, 700, 4000, 2.0), 2.0 * 132 * 8192 / 700, 1e-9);
  // Enough in flight: the achievable peak, not more.
  EXPECT_DOUBLE_EQ(littles_law_bandwidth_gbs(132, 65536, 700, 3000, 2.0), 3000.0);
  // Twice the bytes in flight, twice the bandwidth, while under the peak.
  EXPECT_NEAR(littles_law_bandwidth_gbs(132, 2048, 700, 1e6, 1.0) * 2,
              littles_law_bandwidth_gbs(132, 4096, 700, 1e6, 1.0), 1e-9);
  // The bound and its inverse agree under the cap.
  const double gbs = littles_law_bandwidth_gbs(114, 12288, 650, 1e6, 2.0);
  EXPECT_NEAR(littles_law_in_flight_bytes_per_sm(gbs, 114, 650, 2.0), 12288.0, 1e-6);
  EXPECT_THROW(littles_law_bandwidth_gbs(0, 8192, 700, 3000, 2.0), std::invalid_argument);
  EXPECT_THROW(littles_law_bandwidth_gbs(132, 8192, 0, 3000, 2.0), std::invalid_argument);
  EXPECT_THROW(littles_law_in_flight_bytes_per_sm(3000, 132, 700, 0), std::invalid_argument);
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
  EXPECT_TRUE(j["attainable_pcie_h2d_gbs"].is_null()) << "no payload size known, no protocol limit";
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

TEST(Theory, NativeArithmeticRowsFollowTheProgrammingGuidesThroughputTable) {
  using R = NativeArithmetic;
  // FP32 and FP64 come from fma_lanes_per_sm, the table's one owner for those rows.
  EXPECT_EQ(native_results_per_clock(R::fp32_fma, 9, 0), 128);
  EXPECT_EQ(native_results_per_clock(R::fp64_fma, 9, 0), 64);
  EXPECT_EQ(native_results_per_clock(R::fp64_fma, 7, 5), 2);
  EXPECT_EQ(native_results_per_clock(R::fp32_fma, 8, 0), 64);
  // Half precision: twice FP32 on 7.x, four times on 8.0, 256 on 8.6 and 9.0, 128 on 8.9.
  EXPECT_EQ(native_results_per_clock(R::fp16_fma, 7, 5), 128);
  EXPECT_EQ(native_results_per_clock(R::fp16_fma, 8, 0), 256);
  EXPECT_EQ(native_results_per_clock(R::fp16_fma, 8, 6), 256);
  EXPECT_EQ(native_results_per_clock(R::fp16_fma, 8, 9), 128);
  EXPECT_EQ(native_results_per_clock(R::fp16_fma, 9, 0), 256);
  EXPECT_EQ(native_results_per_clock(R::int32_mad, 7, 5), 64);
  EXPECT_EQ(native_results_per_clock(R::special_function, 7, 5), 16);
  EXPECT_EQ(native_results_per_clock(R::special_function, 8, 0), 16);
  EXPECT_EQ(native_results_per_clock(R::special_function, 8, 6), 16);
}

TEST(Theory, NativeArithmeticStatesNothingItCouldNotConfirm) {
  using R = NativeArithmetic;
  EXPECT_FALSE(native_results_per_clock(R::int32_mad, 9, 0).has_value());
  EXPECT_FALSE(native_results_per_clock(R::int32_mad, 8, 0).has_value());
  EXPECT_FALSE(native_results_per_clock(R::special_function, 8, 9).has_value());
  EXPECT_FALSE(native_results_per_clock(R::special_function, 9, 0).has_value());
  EXPECT_FALSE(native_results_per_clock(R::fp16_fma, 10, 0).has_value());
  EXPECT_FALSE(native_results_per_clock(R::fp32_fma, 6, 1).has_value());
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

TEST(Theory, DeviceJsonCarriesThePayloadSizeItsSourceAndTheAttainableLimits) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.pcie_generation = 5;
  d.pcie_width = 16;
  d.pcie_max_payload_bytes = 256;
  d.pcie_max_payload_assumed = true;
  const auto j = to_json(d);
  EXPECT_EQ(j["pcie_max_payload_bytes"], 256);
  EXPECT_NE(j["pcie_max_payload_source"].get<std::string>().find("assumed"), std::string::npos);
  EXPECT_NEAR(j["attainable_pcie_h2d_gbs"].get<double>(), 57.94, 0.01);
  EXPECT_NEAR(j["attainable_pcie_d2h_gbs"].get<double>(), 57.12, 0.01);
  const DeviceInfo back = device_from_json(j);
  EXPECT_EQ(back.pcie_max_payload_bytes, 256);
  EXPECT_TRUE(back.pcie_max_payload_assumed);
  d.pcie_max_payload_assumed = false;
  EXPECT_FALSE(device_from_json(to_json(d)).pcie_max_payload_assumed);
  EXPECT_EQ(to_json(d)["pcie_max_payload_source"], "config space");
}
