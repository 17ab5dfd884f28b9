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

} // namespace apod
