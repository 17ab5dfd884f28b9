// Little's law with the latency the loads see under load (the Intel Memory Latency Checker's
// "loaded latency": a dependent-load chase timed while other threads stream at a throttled
// rate). The curve is measured (loaded.cu): for each throttle level, the bandwidth the
// background copy reached and the chase's latency at that bandwidth. A launch that keeps X bytes
// of loads in flight on each of S SMs then runs at the bandwidth B that solves
//   B = moved x S x X / L(B)
// (Little's law, throughput = bytes in flight / latency, with the latency read off the curve at
// the bandwidth it causes): a fixed point on the measured curve, not a fit to the launch sweep.
#pragma once

#include <optional>
#include <vector>

namespace apod {

/// One throttle level of the loaded-latency measurement: the background copy's effective
/// bandwidth (bytes read plus written per ns) and the chase's latency per dependent load.
struct LoadedPoint {
  double gbs = 0;
  double ns = 0;
};

/// The throttle ladder: the cycles each background warp waits between two copy iterations.
/// Denser where a 1024-thread-per-SM copy of 2 x 16-byte loads per thread passes 80-97% of an
/// H100's or H200's DRAM bandwidth (1,500 to 5,000 cycles), sparse towards no load.
std::vector<int> background_delays_cycles();

/// The latency-against-bandwidth curve: the points sorted by bandwidth, each latency raised to
/// the highest seen at any lower bandwidth (queueing never shortens a load's wait; a noisy dip
/// would make the fixed point ambiguous). Points with a negative bandwidth or a non-positive
/// latency are dropped; the idle point (no background, 0 GB/s) is the curve's start.
std::vector<LoadedPoint> loaded_curve(std::vector<LoadedPoint> points);

/// The curve's latency at bandwidth `gbs`, linear between its points; the lowest point's below
/// it; empty above the highest point (the curve is never extrapolated).
std::optional<double> latency_at(const std::vector<LoadedPoint>& curve, double gbs);

/// Little's law on the curve: the bandwidth B at which moved x sm_count x in_flight_bytes_per_sm
/// / L(B) = B (bisection; the left side falls as B rises). When even the highest point's latency
/// lets more through than that point's bandwidth, the launch is past the curve: the answer is
/// moved x S x X / L(highest), the most that latency allows (the caller caps it at the peak).
/// Empty for an empty curve.
std::optional<double> littles_fixed_point_gbs(const std::vector<LoadedPoint>& curve, int sm_count,
                                              double in_flight_bytes_per_sm,
                                              double moved_per_loaded_byte);

/// The inverse at one bandwidth: the bytes of loads each SM must keep in flight to run at
/// `gbs`, gbs x L(gbs) / (moved x S). Empty when the curve does not reach `gbs`.
std::optional<double> littles_in_flight_bytes_per_sm(const std::vector<LoadedPoint>& curve,
                                                     double gbs, int sm_count,
                                                     double moved_per_loaded_byte);

} // namespace apod
