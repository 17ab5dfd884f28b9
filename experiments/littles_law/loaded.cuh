// littles_law's loaded-latency measurement (the Intel Memory Latency Checker's method on a GPU):
// one thread chases pointers through DRAM while every SM runs a background copy throttled by a
// delay between its iterations; each throttle level gives the copy's bandwidth and the chase's
// latency at that bandwidth (loaded.hpp turns them into Little's law).
#pragma once

#include "core/experiment.hpp"
#include "core/series.hpp"
#include "shapes.cuh"

#include <vector>

namespace apod {

/// One throttle level, every sample: the chase's ns and cycles per dependent load and the
/// background copy's bandwidth over the chase's timed steps (bytes read plus written).
struct LoadedLevel {
  bool background = true; ///< false: the idle point, no copy running
  int delay_cycles = 0;   ///< each background warp's wait between two iterations
  Series ns, cycles, gbs;
  Series iteration_ns; ///< the background warps' own load-to-store time per iteration
  size_t wrong = 0;    ///< chase end positions or copied words that differ from the host's answer
  std::string error;
};

/// Every level of background_delays_cycles() and the idle point (first), on `buf` (the copy's
/// input and output; its output is left holding a partial copy: callers memset it before use).
/// `facts` receives the launch's shape (grid, threads, loads in flight per SM, chase buffer).
std::vector<LoadedLevel> measure_loaded_latency(ExperimentContext& ctx, CopyBuffers& buf,
                                                json& facts);

} // namespace apod
