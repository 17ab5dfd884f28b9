// Host-side arithmetic of the littles_law experiment: the launch shapes swept (access width x
// independent loads per thread x resident threads per SM) and the bytes in flight per SM at which
// the measured curve reaches a bandwidth (the "90% of the achievable peak" point).
#pragma once

#include <optional>
#include <vector>

namespace apod {

/// Threads per block of the swept copy kernel; resident threads per SM are multiples of it.
inline constexpr int flight_block_size = 128;

struct FlightShape {
  int word_bytes = 4;       ///< access width: 4, 8 or 16 bytes per load
  int loads_per_thread = 1; ///< independent loads issued before the first store
  int threads_per_sm = 128; ///< resident: a persistent grid of threads_per_sm / 128 blocks per SM
  /// Bytes of loads each SM keeps in flight: threads x loads x width.
  int in_flight_bytes() const { return threads_per_sm * loads_per_thread * word_bytes; }
};

/// The shapes swept: widths 4, 8, 16 x loads 1, 2, 4, 8 x threads per SM 128, 256, 512, 768,
/// 1024, 1536, 2048 (up to the device's limit): 512 B to 256 KiB in flight per SM, with values
/// between the powers of two (x1.5) where the curve bends towards its plateau. Quick mode: widths 4
/// and 16, loads 1 and 8, threads 128 and 1024.
std::vector<FlightShape> flight_shapes(int max_threads_per_sm, bool quick);

struct InFlightPoint {
  double in_flight_bytes = 0;
  double gbs = 0;
};

/// The bytes in flight per SM at which the measured curve first reaches `target_gbs`. The curve
/// is the envelope of the points: for each distinct bytes-in-flight value, the best bandwidth any
/// shape reached with it. Between the last value below the target and the first at or above it,
/// the crossing is interpolated linearly in bandwidth against log2(bytes in flight) (the values
/// are powers of two apart). When the smallest value already reaches the target, that value is
/// returned (an upper bound). Empty when no point reaches the target.
std::optional<double> in_flight_for_bandwidth(std::vector<InFlightPoint> points, double target_gbs);

} // namespace apod
