#include "core/theory.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace apod {

double theoretical_bandwidth_gbs(double memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0)
    throw std::invalid_argument("memory clock and bus width must be positive");
  const double clock_hz = memory_clock_khz * 1e3;
  return clock_hz * (bus_width_bits / 8.0) * 2.0 / 1e9;
}

double effective_bandwidth_gbs(double bytes_read, double bytes_written, double seconds) {
  if (seconds <= 0)
    throw std::invalid_argument("elapsed time must be positive");
  return (bytes_read + bytes_written) / 1e9 / seconds;
}

double bandwidth_gbs_from_ms(double bytes_moved, double elapsed_ms) {
  return effective_bandwidth_gbs(bytes_moved, 0.0, elapsed_ms / 1e3);
}

std::optional<double> pcie_bandwidth_gbs(int generation, int lanes) {
  // Raw rate per lane in GT/s by generation (PCI-SIG base specifications).
  double gt_per_s = 0;
  switch (generation) {
  case 1:
    gt_per_s = 2.5;
    break;
  case 2:
    gt_per_s = 5.0;
    break;
  case 3:
    gt_per_s = 8.0;
    break;
  case 4:
    gt_per_s = 16.0;
    break;
  case 5:
    gt_per_s = 32.0;
    break;
  case 6:
    gt_per_s = 64.0;
    break;
  default:
    return std::nullopt;
  }
  if (lanes <= 0)
    return std::nullopt;
  // Gen6 uses PAM4 with FLIT encoding (242/256 payload); Gen3-5 use 128b/130b; Gen1-2 8b/10b.
  const double efficiency = generation <= 2   ? 8.0 / 10.0
                            : generation <= 5 ? 128.0 / 130.0
                                              : 242.0 / 256.0;
  return gt_per_s * lanes * efficiency / 8.0;
}

namespace {

// The specification's recommended interval, in symbol times, between ACK DLLPs (Ack latency
// limit, Tables 3-7..3-9) and between UpdateFC DLLPs (Tables 2-46..2-48), equal at 8 GT/s and
// above; rows by link width, columns by MPS 128..4096 (as tabulated in pcie-bench/pcie-model).
constexpr int dllp_widths[] = {1, 2, 4, 8, 16, 32};
constexpr int dllp_interval_symbols[6][6] = {
    {333, 512, 655, 1167, 2191, 4239}, // x1
    {224, 313, 385, 641, 1153, 2177},  // x2
    {169, 214, 250, 378, 634, 1146},   // x4
    {163, 203, 182, 246, 374, 630},    // x8
    {144, 168, 182, 246, 374, 630},    // x16
    {129, 141, 148, 180, 244, 372},    // x32
};

std::optional<int> dllp_interval(int lanes, int max_payload_bytes) {
  int row = -1, column = -1;
  for (int i = 0; i < 6; ++i) {
    if (dllp_widths[i] == lanes)
      row = i;
    if ((128 << i) == max_payload_bytes)
      column = i;
  }
  if (row < 0 || column < 0)
    return std::nullopt;
  return dllp_interval_symbols[row][column];
}

} // namespace

std::optional<double> pcie_attainable_gbs(int generation, int lanes, int max_payload_bytes,
                                          PcieDirection direction) {
  if (generation < 3 || generation > 5)
    return std::nullopt;
  const auto line_gbs = pcie_bandwidth_gbs(generation, lanes);
  const auto interval = dllp_interval(lanes, max_payload_bytes);
  if (!line_gbs || !interval)
    return std::nullopt;
  constexpr double skp_share = 1.0 / 371; // 1 SKP block per 370 data blocks
  constexpr double dllp_bytes = 8;        // 2 framing + 4 DLLP + 2 CRC
  constexpr double tlp_framing_bytes = 8; // 4 STP token (with sequence number) + 4 LCRC
  const double header_bytes = direction == PcieDirection::host_to_device ? 12 : 16;
  const double dllp_share = 2 * (dllp_bytes / lanes) / *interval; // an ACK and an UpdateFC
  const double payload = max_payload_bytes;
  return *line_gbs * (1 - skp_share) * (1 - dllp_share) *
         (payload / (payload + tlp_framing_bytes + header_bytes));
}

double amdahl_speedup(double p, double n) {
  if (p < 0 || p > 1 || n <= 0)
    throw std::invalid_argument("need 0 <= P <= 1 and N > 0");
  return 1.0 / ((1.0 - p) + p / n);
}

double amdahl_limit(double p) {
  if (p < 0 || p > 1)
    throw std::invalid_argument("need 0 <= P <= 1");
  return p >= 1.0 ? std::numeric_limits<double>::infinity() : 1.0 / (1.0 - p);
}

double gustafson_speedup(double p, double n) {
  if (p < 0 || p > 1 || n <= 0)
    throw std::invalid_argument("need 0 <= P <= 1 and N > 0");
  return n + (1.0 - p) * (1.0 - n);
}

double measured_speedup(double serial_ms, double base_parallel_ms, double parallel_ms) {
  if (serial_ms < 0 || base_parallel_ms < 0 || parallel_ms < 0 || serial_ms + parallel_ms <= 0)
    throw std::invalid_argument("need non-negative times and a positive time on N");
  return (serial_ms + base_parallel_ms) / (serial_ms + parallel_ms);
}

double parallel_efficiency(double speedup, double n) {
  if (n <= 0)
    throw std::invalid_argument("need N > 0");
  return speedup / n;
}

double sm_bandwidth_model_gbs(double sm_count, double per_sm_gbs, double limit_gbs) {
  if (sm_count < 0 || per_sm_gbs <= 0 || limit_gbs <= 0)
    throw std::invalid_argument("need SMs >= 0 and positive per-SM bandwidth and limit");
  return std::min(sm_count * per_sm_gbs, limit_gbs);
}

double bandwidth_knee_sm_count(double per_sm_gbs, double limit_gbs) {
  if (per_sm_gbs <= 0 || limit_gbs <= 0)
    throw std::invalid_argument("need positive per-SM bandwidth and limit");
  return limit_gbs / per_sm_gbs;
}

double littles_law_bandwidth_gbs(int sm_count, double in_flight_bytes_per_sm, double latency_ns,
                                 double peak_gbs, double moved_per_loaded_byte) {
  if (sm_count <= 0 || in_flight_bytes_per_sm <= 0 || latency_ns <= 0 || peak_gbs <= 0 ||
      moved_per_loaded_byte <= 0)
    throw std::invalid_argument(
        "Little's law needs positive SMs, bytes in flight, latency and peak");
  // Bytes per nanosecond are GB/s (10^9 bytes per 10^9 ns).
  const double loaded_gbs = sm_count * in_flight_bytes_per_sm / latency_ns;
  return std::min(peak_gbs, moved_per_loaded_byte * loaded_gbs);
}

double littles_law_in_flight_bytes_per_sm(double bandwidth_gbs, int sm_count, double latency_ns,
                                          double moved_per_loaded_byte) {
  if (bandwidth_gbs <= 0 || sm_count <= 0 || latency_ns <= 0 || moved_per_loaded_byte <= 0)
    throw std::invalid_argument("Little's law needs positive bandwidth, SMs and latency");
  return bandwidth_gbs / moved_per_loaded_byte * latency_ns / sm_count;
}

std::optional<FmaLanesPerSm> fma_lanes_per_sm(int cc_major, int cc_minor) {
  // CUDA C++ Programming Guide, "Arithmetic Instructions", throughput table: rows "32-bit
  // floating-point add, multiply, multiply-add" and "64-bit ..."; 7.x's FP64 column reads 32 with
  // a footnote giving 2 for 7.5. FP64 is a data-centre feature (8.0, 9.0, 10.0); the other parts
  // of a generation keep 2 FP64 lanes per SM.
  const int cc = cc_major * 10 + cc_minor;
  switch (cc) {
  case 70:
  case 80:
    return FmaLanesPerSm{64, 32};
  case 75:
    return FmaLanesPerSm{64, 2};
  case 86:
  case 87:
  case 89:
    return FmaLanesPerSm{128, 2};
  case 90:
  case 100:
    return FmaLanesPerSm{128, 64};
  default:
    break;
  }
  if (cc_major == 12)
    return FmaLanesPerSm{128, 2};
  return std::nullopt;
}

std::optional<int> native_results_per_clock(NativeArithmetic row, int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  switch (row) {
  case NativeArithmetic::fp32_fma:
  case NativeArithmetic::fp64_fma: {
    const auto lanes = fma_lanes_per_sm(cc_major, cc_minor);
    if (!lanes)
      return std::nullopt;
    return row == NativeArithmetic::fp32_fma ? lanes->fp32 : lanes->fp64;
  }
  case NativeArithmetic::fp16_fma:
    // The 7.x column reads 128 (twice the 64 FP32 lanes); 8.0, 8.6 and 9.0 read 256 and 8.9 128
    // (the table as of CUDA 12.6, Table 4). A half2 instruction counts two results.
    switch (cc) {
    case 70:
    case 72:
    case 75:
    case 89:
      return 128;
    case 80:
    case 86:
    case 90:
      return 256;
    default:
      return std::nullopt;
    }
  case NativeArithmetic::int32_mad:
    // 64 in the 7.x column ("multiple instructions" on 5.x and 6.x); later columns unconfirmed.
    if (cc_major == 7)
      return 64;
    return std::nullopt;
  case NativeArithmetic::special_function:
    // 16 in the 7.x, 8.0 and 8.6 columns (32 on 5.x, 6.1 and 6.2); 8.9 and 9.0 unconfirmed.
    if (cc_major == 7 || cc == 80 || cc == 86)
      return 16;
    return std::nullopt;
  }
  return std::nullopt;
}

double peak_gflops(int sm_count, int lanes_per_sm, double sm_clock_khz) {
  if (sm_count <= 0 || lanes_per_sm <= 0 || sm_clock_khz <= 0)
    throw std::invalid_argument("SM count, lanes per SM and SM clock must be positive");
  return sm_clock_khz * 1e3 * sm_count * lanes_per_sm * 2.0 / 1e9;
}

double machine_balance(double peak_gflops, double bandwidth_gbs) {
  if (peak_gflops <= 0 || bandwidth_gbs <= 0)
    throw std::invalid_argument("peak FLOP/s and bandwidth must be positive");
  return peak_gflops / bandwidth_gbs;
}

double roofline_gflops(double flops_per_byte, double peak_gflops, double bandwidth_gbs) {
  if (flops_per_byte < 0 || peak_gflops <= 0 || bandwidth_gbs <= 0)
    throw std::invalid_argument("need intensity >= 0 and a positive peak and bandwidth");
  return std::min(peak_gflops, flops_per_byte * bandwidth_gbs);
}

} // namespace apod
