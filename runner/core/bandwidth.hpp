// Turns timed samples of a memory-bound operation into a bandwidth measurement.
#pragma once

#include "core/measurement.hpp"
#include "core/sampling.hpp"

#include <vector>

namespace apod {

/// A measurement of effective bandwidth (GB/s) from per-sample times in ms and the bytes each
/// sample moved (read + written, as the experiment counts them). Records bytes_moved in extra.
Measurement bandwidth_measurement(json params, double bytes_moved, const std::vector<double>& samples_ms);

/// Same, from the timing core's result: also carries its exclusions and stop reason.
Measurement bandwidth_measurement(json params, double bytes_moved, const TimedSamples& samples);

}  // namespace apod
