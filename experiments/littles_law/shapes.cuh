// littles_law's launches: a copy kernel run on a persistent grid for every shape of
// in_flight.hpp's flight_shapes(), and the guide's offsetCopy launch, each timed and checked.
#pragma once

#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "declaration.hpp"

#include <vector>

namespace apod {

using littles::guide_launch;
using littles::persistent_launch;

/// The copy's input (filled from `seed`) and output, and a device counter for the check.
struct CopyBuffers {
  DeviceBuffer<uint64_t> in, out;
  uint64_t seed = 0;
  DeviceBuffer<unsigned long long> wrong{1};
  size_t bytes() const { return in.bytes(); }

  /// Words of the output that differ from the input: every word on the device, and the first
  /// and last 64 Ki words again on the host.
  size_t words_wrong(int sm_count);
};

/// One launch shape, timed (fixed count: the 90% point pairs the i-th sample of every shape)
/// and checked.
struct ShapePoint {
  json params; ///< launch, word_bytes, loads_per_thread, threads_per_sm, in_flight_bytes
  double in_flight_bytes = 0; ///< per SM
  bool persistent = true;     ///< false: the guide's launch, left out of the 90% point
  Series ms;
  size_t wrong = 0;
  json kernel; ///< kernel_facts
};

/// Every shape the device can hold resident, then the guide's launch. Each sample copies
/// `buf.bytes()` bytes (read) into `buf.out` (written). The shapes whose blocks cannot all be
/// resident (the occupancy API) are skipped and listed in `not_resident`.
std::vector<ShapePoint> measure_shapes(ExperimentContext& ctx, CopyBuffers& buf,
                                       json& not_resident);

} // namespace apod
