// The small kernel of the concurrency experiment and the batch it runs in: one warp's chain of
// dependent multiply-adds, held at a gate in mapped host memory until every kernel of the batch
// is queued, timing itself with the globaltimer. Outputs, windows and the gate live in mapped,
// portable host memory, which every context (primary, created, green) reaches at the same address.
#pragma once

#include "core/cuda_memory.cuh"
#include "model.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace apod::concurrency {

/// What a kernel writes when it ends: its window on the globaltimer, its SM, and whether it left
/// the gate by the timeout rather than seeing it open.
struct KernelRecord {
  unsigned long long start_ns = 0, end_ns = 0;
  uint32_t sm = 0, gate_timed_out = 0;
};

/// The batch's memory and its launches. Kernel i writes output words [32 i, 32 i + 32) and
/// record i.
class Batch {
public:
  explicit Batch(size_t max_kernels);
  ~Batch(); ///< opens the gate, so no queued kernel waits past the batch

  /// Closes the gate and poisons `kernels` outputs and records (a kernel that did not run fails).
  void reset(size_t kernels);
  /// Queues kernel `index` (< max_kernels) on `stream`; it waits at the gate, then runs `steps`.
  void launch(cudaStream_t stream, uint32_t index, int steps) const;
  /// Opens the gate: the queued kernels run.
  void open();
  /// The windows of kernels [0, kernels), each in the group `group_of(index)` says.
  std::vector<Window> windows(size_t kernels, const std::function<int(size_t)>& group_of) const;
  /// Output words of kernels [0, kernels) that differ from the host's chain of `steps`.
  size_t count_wrong(size_t kernels, int steps) const;
  /// Kernels of [0, kernels) that left the gate by its timeout.
  size_t gate_timeouts(size_t kernels) const;
  /// Median window of kernels [0, kernels), ns.
  double median_window_ns(size_t kernels) const;

private:
  size_t max_kernels_;
  PinnedBuffer<int> gate_;
  PinnedBuffer<uint32_t> out_;
  PinnedBuffer<KernelRecord> records_;
};

/// Resident blocks of the kernel per SM (the occupancy API), for the model's block limit.
int kernel_blocks_per_sm();

/// Chain steps that make one kernel take about `target_ns` on this device: one kernel of a
/// known length is timed alone (twice, the first a warm-up) and scaled. Throws CudaError.
int calibrate_steps(Batch& batch, cudaStream_t stream, double target_ns);

} // namespace apod::concurrency
