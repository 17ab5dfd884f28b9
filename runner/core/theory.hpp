// Every formula that turns device facts and timings into limits and figures. One place, tested
// in tests/test_theory.cpp, cited to the CUDA C++ Best Practices Guide (shared/seeds/000_...),
// the notes on CUDA (002_...) and the CUDA C++ Programming Guide where the seeds give no table.
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

/// Which way data crosses the PCIe link.
enum class PcieDirection {
  host_to_device, ///< the GPU's DMA reads host memory: data comes back in completions (CplD)
  device_to_host, ///< the GPU's DMA writes host memory: memory writes (MWr, 64-bit address)
};

/// Attainable PCIe bandwidth per direction in GB/s: what the line rate leaves for payload once
/// the protocol's own traffic is paid, at the link's Max_Payload_Size (PCIe Base Specification
/// 5.0; Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM 2018):
///   line rate x (1 - SKP) x (1 - DLLP) x MPS / (MPS + 8 + header)
/// with 8 bytes per TLP for the STP framing token (holding the sequence number) and the LCRC;
/// a 12-byte header for completions (host to device) or 16 bytes for 64-bit memory writes
/// (device to host); one 16-byte SKP ordered set per 370 128b/130b blocks; and one 8-byte ACK
/// and one 8-byte UpdateFC DLLP per interval the specification recommends for the width and
/// MPS (Tables 3-7..3-9 and 2-46..2-48, in symbol times; a symbol time carries `lanes` bytes).
/// Completions are assumed MPS-sized (a root complex may split them at its 64- or 128-byte
/// read completion boundary, which lowers what is attainable). Gen 3 to 5 only (Gen 6's FLIT
/// mode frames differently); empty for another generation, width or MPS.
std::optional<double> pcie_attainable_gbs(int generation, int lanes, int max_payload_bytes,
                                          PcieDirection direction);

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

/// Little's law for device memory (Notes on CUDA, shared/seeds/002_..., the table "latency x
/// throughput (Little's law)": bytes in flight = latency x throughput; Tuning CUDA Applications
/// for Pascal 1.4.3.1: hiding DRAM latency at HBM bandwidth needs more loads in flight). A launch
/// keeping `in_flight_bytes_per_sm` bytes of loads outstanding on each of `sm_count` SMs, each
/// answered after `latency_ns`, loads sm_count x in_flight / latency bytes per ns (= GB/s); its
/// effective bandwidth counts `moved_per_loaded_byte` bytes per byte loaded (1 for reads only, 2
/// for a copy or an in-place update: guide 8.2.2 counts bytes read plus written). The bound is
/// that, capped at `peak_gbs` (the achievable peak). Throws std::invalid_argument on non-positive
/// input.
double littles_law_bandwidth_gbs(int sm_count, double in_flight_bytes_per_sm, double latency_ns,
                                 double peak_gbs, double moved_per_loaded_byte);

/// The inverse, uncapped: the bytes of loads each SM must keep in flight for `bandwidth_gbs`.
double littles_law_in_flight_bytes_per_sm(double bandwidth_gbs, int sm_count, double latency_ns,
                                          double moved_per_loaded_byte);

/// Floating-point add, multiply or multiply-add results per clock cycle per multiprocessor, i.e.
/// the FP32 and FP64 lanes of one SM.
struct FmaLanesPerSm {
  int fp32 = 0;
  int fp64 = 0;
};

/// The lanes of an SM of compute capability major.minor, from the CUDA C++ Programming Guide,
/// "Arithmetic Instructions", table "Throughput of Native Arithmetic Instructions (Number of
/// Results per Clock Cycle per Multiprocessor)": 7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 12.x.
/// Empty for a capability the table does not cover here (e.g. 10.3, whose FP64 rate differs from
/// 10.0's): apod then states no theoretical FLOP/s rather than guess one.
std::optional<FmaLanesPerSm> fma_lanes_per_sm(int cc_major, int cc_minor);

/// The rows of that same table that instruction_throughput measures, besides the FP32 and FP64
/// ones fma_lanes_per_sm owns.
enum class NativeArithmetic {
  fp16_fma,  ///< "16-bit floating-point add, multiply, multiply-add" (a half2 FMA: 2 results)
  fp32_fma,  ///< "32-bit floating-point add, multiply, multiply-add"
  fp64_fma,  ///< "64-bit floating-point add, multiply, multiply-add"
  int32_mad, ///< "32-bit integer multiply, multiply-add, extended-precision multiply-add"
  /// "32-bit floating-point reciprocal, reciprocal square root, base-2 logarithm (__log2f),
  /// base 2 exponential (exp2f), sine (__sinf), cosine (__cosf)": the special-function unit
  special_function,
};

/// Results per clock cycle per multiprocessor of `row` on compute capability major.minor, from
/// the Programming Guide's table "Throughput of Native Arithmetic Instructions" (section
/// "Arithmetic Instructions" under "Maximize Instruction Throughput"); FP32 and FP64 are
/// fma_lanes_per_sm's. Empty where the figure could not be confirmed against a copy of the table
/// (integer multiply-add past 7.x, the special-function unit on 8.9 and 9.0): no guess. The table
/// has no row for __dp4a; the Pascal Tuning Guide (1.4.2.2) gives it FP32's throughput on 6.1
/// only, so none is stated here.
std::optional<int> native_results_per_clock(NativeArithmetic row, int cc_major, int cc_minor);

/// Peak FLOP/s in GFLOP/s (GFLOP = 1e9 floating-point operations): SM clock x SMs x lanes per SM
/// x 2, an FMA counting as two operations (notes on CUDA, 002_..., "Peak FLOPS"). `sm_clock_khz`
/// is what cudaDevAttrClockRate reports. Throws std::invalid_argument for a non-positive fact.
double peak_gflops(int sm_count, int lanes_per_sm, double sm_clock_khz);

/// Machine balance in FLOP per byte: peak GFLOP/s over GB/s (002_..., "Peak FLOPS / Peak Memory
/// bandwidth": how many operations a kernel must do per byte it moves to be compute-bound).
double machine_balance(double peak_gflops, double bandwidth_gbs);

/// The roofline in GFLOP/s: min(peak, intensity x bandwidth) for a kernel doing
/// `flops_per_byte` FLOPs per byte of DRAM traffic (002_...: achievable GFLOPS = actual bandwidth
/// / GMAC, GMAC being bytes per FLOP, capped by the peak). Throws std::invalid_argument for a
/// negative intensity or a non-positive peak or bandwidth.
double roofline_gflops(double flops_per_byte, double peak_gflops, double bandwidth_gbs);

} // namespace apod
