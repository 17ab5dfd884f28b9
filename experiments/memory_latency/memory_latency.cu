// Memory latency by pointer chase: one thread follows a random cyclic chain (one node per
// 128-byte line, in an order drawn from a recorded seed: chain.hpp) through working sets from well
// inside the L1 to 16x the L2, so every load waits for the one before and no prefetcher can guess
// the next line. Stich's slides put global-memory latency at 400-800 cycles on GT200 ("Launch
// Configuration"); Notes on CUDA's Little's-law table uses 800 cycles (shared/seeds/001_, 002_).
// littles_law reads this experiment's DRAM figure for its model.
#include "chain.hpp"
#include "chase.cuh"
#include "core/cuda_check.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "declaration.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace apod {
namespace {

constexpr uint64_t seed = 0x1A7E4C7;     // each working set's chain: seed XOR its size in bytes
constexpr double point_time_cap_s = 0.1; // ~21 sets; a chase sample is a few ms at most
constexpr double flat_within = 0.10;     // a plateau: the next-smaller set within 10%

void record_pair(ExperimentContext& ctx, const json& params, const ChaseFigures& f,
                 const json& extra) {
  ctx.record(make_measurement(params, latency::ns, f.ns_per_step, f.verified, extra));
  ctx.record(make_measurement(params, latency::cycles, f.cycles_per_step, f.verified, extra));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  int shared_per_sm = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                   ctx.device.ordinal));
  const bool quick = ctx.options.quick;
  const int64_t l2 = ctx.device.l2_bytes;
  const LatencyProbes probes = latency_probes(shared_per_sm, l2, quick);
  PointerChase chase(probes.dram_bytes);

  double smaller_median_ns = 0; // the next-smaller working set's figure
  for (const size_t bytes : working_sets(probes, quick)) {
    const ChasePlan plan{timed_steps(bytes, l2, quick), warm_steps(bytes, l2), bytes <= size_t(l2)};
    const ChaseFigures f =
        chase.measure(bytes, seed ^ bytes, plan, ctx.options.sampling, point_time_cap_s);
    json extra = f.facts;
    extra["experiment_seed"] = seed;
    record_pair(ctx,
                {{latency::level.key, latency::sweep_level}, {latency::working_set.key, bytes}}, f,
                extra);

    const double median_ns = f.ns_per_step.summary().median;
    const std::string level = level_of(probes, bytes);
    if (!level.empty()) {
      // The level's figure is its probe's; whether the curve is flat there is stated, not
      // assumed: the step from the next-smaller set, and flat when within 10%.
      const double step = smaller_median_ns > 0 ? median_ns / smaller_median_ns - 1 : 0.0;
      extra["plateau_step_from_smaller"] = smaller_median_ns > 0 ? json(step) : json(nullptr);
      extra["plateau_flat"] = smaller_median_ns > 0 && std::abs(step) <= flat_within;
      extra[keys::headline] = level == latency::dram_level; // the figure Little's law reads
      record_pair(ctx, {{latency::level.key, level}, {latency::working_set.key, bytes}}, f, extra);
    }
    smaller_median_ns = median_ns;
  }
}

} // namespace

APOD_EXPERIMENT(latency::experiment, run);

} // namespace apod
