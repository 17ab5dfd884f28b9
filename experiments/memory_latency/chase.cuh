// A dependent-load chase by one thread over a random chain in device memory: each load's address
// is the value the previous load returned, so the loads cannot overlap and each step takes one
// full latency of the level that holds the chain. memory_latency sweeps it over working-set
// sizes; littles_law uses it for a DRAM latency when it runs without memory_latency.
#pragma once

#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"

#include <cstddef>
#include <cstdint>

namespace apod {

/// How one working set is chased (chain.hpp chooses the counts).
struct ChasePlan {
  uint32_t timed_steps = 4096;
  uint32_t warm_steps = 0; ///< untimed steps first, in the same launch (fills the SM's L1)
  bool warm_l2 = false;    ///< read the whole chain into the L2 before each sample
};

/// Per sample: nanoseconds (%globaltimer) and SM cycles (clock64) per step, with the monitor's
/// flags; whether every sample ended on the node the host's walk of the chain ends on; and the
/// facts of the chain (seed, nodes, steps, the clock the cycles imply).
struct ChaseFigures {
  Series ns_per_step, cycles_per_step;
  bool verified = false;
  json facts = json::object();
};

struct ChaseOut {
  unsigned long long last_address;
  long long cycles;
  unsigned long long ns;
  unsigned sm; ///< %smid of the SM that chased
};

/// How the ladder chases one working set (measure_laps): one untimed lap, then `samples` timed
/// samples of ladder.hpp's lap_steps(bytes, min_steps) steps each (a full lap at least), each
/// resuming where the last stopped, all on one SM.
struct LapPlan {
  uint64_t min_steps = 16384;
  int samples = 3;
};

class PointerChase {
public:
  /// Device memory for chains of up to `max_bytes` (whole chain_line_bytes lines).
  explicit PointerChase(size_t max_bytes);

  /// Links a random cyclic chain over `working_set_bytes` from `seed` (chain.hpp's ChainOrder,
  /// one node per line) and chases it from its first node: policy.warmup untimed launches, then
  /// samples until the policy's stopping rule (per-point time capped at `max_point_s`).
  ChaseFigures measure(size_t working_set_bytes, uint64_t seed, const ChasePlan& plan,
                       SamplingPolicy policy, double max_point_s);

  /// The latency ladder's measurement: a full traversal of the working set per sample (every
  /// line once per lap, each line last touched one lap before), pinned to one SM: every launch
  /// runs on the SM the first launch found (%smid), so the near and far L2 partitions are the
  /// same for every set. Samples are a fixed count (finish_fixed); facts add the SM and laps.
  ChaseFigures measure_laps(size_t working_set_bytes, uint64_t seed, const LapPlan& plan,
                            const SamplingPolicy& policy);

  /// The SM every measure_laps launch runs on (-1 before the first).
  int pinned_sm() const { return pinned_sm_; }

private:
  /// One launch on the pinned SM from `at`: `warm` untimed steps, then `steps` timed ones.
  ChaseOut pinned_launch(const unsigned long long* at, uint32_t warm, uint32_t steps);

  int pinned_sm_ = -1;
  int sm_count_ = 0;
  DeviceBuffer<unsigned> claim_{1};
  DeviceBuffer<unsigned long long> chain_; ///< one pointer at the start of each line
  DeviceBuffer<ChaseOut> out_{1};
  DeviceBuffer<unsigned long long> sink_{1};
};

} // namespace apod
