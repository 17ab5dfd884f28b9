// What the concurrency experiment's two parts share: the batch's sizes and sampling, the calibrated
// kernel length and the context created beside the primary one.
#pragma once

#include "core/experiment.hpp"
#include "core/green_context.cuh"
#include "kernels.cuh"

namespace apod::concurrency {

struct Setup {
  /// The monitor's flags for the round just run (0 without a policy or a monitor).
  uint8_t check_round() const { return policy ? policy->check_sample() : 0; }
  int ordinal = 0;          ///< the device
  int kernels = 128;        ///< kernels of a streams batch
  int sharing_kernels = 32; ///< kernels in a row of each sharing workload
  int steps = 0;            ///< chain steps of every kernel (calibrate_steps)
  int warmup = 1;           ///< rounds not kept
  int samples = 7;
  /// The run's sampling policy: its monitor is asked about every kept round (a low clock or
  /// throttling flags the round's samples, which are kept but not used).
  const SamplingPolicy* policy = nullptr; ///< rounds kept
};

/// Two equal workloads sharing the GPU as two streams of the primary context and as two green
/// contexts on disjoint SMs (where the driver has them); records those sharing points.
void measure_sharing_in_one_context(ExperimentContext& ctx, Batch& batch, const Setup& setup);

/// The same workloads as two ordinary contexts: the primary one and `created`.
void measure_sharing_contexts(ExperimentContext& ctx, Batch& batch, const Setup& setup,
                              const CreatedContext& created);

} // namespace apod::concurrency
