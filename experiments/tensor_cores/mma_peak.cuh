// The instruction peak of the tensor cores: a register-resident loop of mma.sync per warp
// (mma_peak.cu), timed and checked against the host's A x B.
#pragma once

#include "core/experiment.hpp"
#include "core/series.hpp"
#include "tensor_model.hpp"

#include <optional>

namespace apod::tensor {

/// One precision's mma.sync peak, before it becomes a record.
struct MmaPoint {
  Series ms; ///< per launch
  double flops_per_launch = 0;
  bool verified = false;
  json facts; ///< elements checked and wrong, iterations, warps, chains, shape, kernel, monitor
  std::optional<double> watts; ///< step-aligned power over the sampling (power_window.hpp)
  double energy_span_s = 0;
};

/// Measures the precision's loop for about `sample_ms` per launch (a sample is one launch);
/// the device must support it (mma_supported).
MmaPoint measure_mma(const ExperimentContext& ctx, Precision p, double sample_ms);

} // namespace apod::tensor
