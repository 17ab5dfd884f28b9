// Every formula that turns device facts and timings into limits and figures. One place, tested
// in tests/test_theory.cpp, cited to the CUDA C++ Best Practices Guide (shared/seeds/000_...).
#pragma once

#include <optional>

namespace apod {

/// Theoretical DRAM bandwidth in GB/s (GB = 1e9 bytes), Best Practices Guide 8.2.1:
/// memory clock x (bus width / 8) x 2 for double data rate. `memory_clock_khz` is what
/// cudaDevAttrMemoryClockRate reports.
double theoretical_bandwidth_gbs(double memory_clock_khz, int bus_width_bits);

/// Effective bandwidth in GB/s, Best Practices Guide 8.2.2: (bytes read + bytes written) / 1e9 / s.
double effective_bandwidth_gbs(double bytes_read, double bytes_written, double seconds);

/// Same, from a time in milliseconds (what CUDA events report) and the total bytes moved.
double bandwidth_gbs_from_ms(double bytes_moved, double elapsed_ms);

/// Usable PCIe bandwidth per direction in GB/s for a link of `generation` x `lanes`:
/// transfer rate per lane x lanes x line-encoding efficiency / 8 (8b/10b for Gen1-2,
/// 128b/130b for Gen3 and later). Empty for an unknown generation.
std::optional<double> pcie_bandwidth_gbs(int generation, int lanes);

/// Amdahl's law, Best Practices Guide 3.1.3.1: S = 1 / ((1 - P) + P / N).
double amdahl_speedup(double parallel_fraction, double n);

/// The bound Amdahl's law puts on any speed-up of the parallel part: 1 / (1 - P).
double amdahl_limit(double parallel_fraction);

/// Gustafson's law, Best Practices Guide 3.1.3.2: S = N + (1 - P)(1 - N).
double gustafson_speedup(double parallel_fraction, double n);

/// A measured speed-up of a workload of a serial phase and a parallel one (3.1.3): the time on
/// the base processors over the time on N, with the same serial time in both:
/// (serial + base parallel) / (serial + parallel on N). For strong scaling (3.1.3.1) both
/// parallel times are of one problem; for weak scaling (3.1.3.2) both are of the problem grown
/// N-fold, so the numerator is that grown problem run on the base processors.
double measured_speedup(double serial_ms, double base_parallel_ms, double parallel_ms);

/// Parallel efficiency: speed-up / N (linear strong scaling, 3.1.3.1, has S = N: efficiency 1).
double parallel_efficiency(double speedup, double n);

/// A memory-bound phase on `sm_count` SMs: each SM adds what one SM moves, `per_sm_gbs`, until
/// the sum meets the DRAM limit (8.2: the achievable or theoretical bandwidth):
/// min(sm_count x per_sm_gbs, limit_gbs).
double sm_bandwidth_model_gbs(double sm_count, double per_sm_gbs, double limit_gbs);

/// The SM count at which that model meets the limit (its knee): limit_gbs / per_sm_gbs.
double bandwidth_knee_sm_count(double per_sm_gbs, double limit_gbs);

} // namespace apod
