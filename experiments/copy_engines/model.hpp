// Host-side arithmetic of copy_engines (copy_engines.cu): the overlap fraction of the guide's
// cpuFunction() example, the kernel's pass count, the host loop that stands for cpuFunction()
// with the closed form that checks it, and staged_copy's model at a measured copy rate.
#pragma once

#include <cstdint>

namespace apod::engines {

/// Best Practices Guide 9.1.2: cpuFunction() runs while the asynchronous copy and the kernel
/// run. With the host part alone taking `cpu_ms`, the device part alone `gpu_ms` and both issued
/// together `both_ms`, the share of the shorter part hidden behind the longer:
/// (cpu + gpu - both) / min(cpu, gpu); 1 when both = max(cpu, gpu), 0 when both = cpu + gpu.
/// Not clamped: timing noise may put it a little outside [0, 1]. Throws std::invalid_argument
/// unless every time is positive.
double overlap_fraction_of(double cpu_ms, double gpu_ms, double both_ms);

/// Both copies' total rate over the sum of each direction's rate alone: 1 when two copy engines
/// each keep their rate (the guide: two engines copy both ways at once), 0.5 when they take
/// turns. Throws std::invalid_argument unless every rate is positive.
double bidirectional_ratio_of(double total_gbs, double h2d_alone_gbs, double d2h_alone_gbs);

/// Kernel launches (passes over its buffer) that make it last about `target_ms` when one takes
/// `pass_ms`: at least 1, at most `max_passes`. Throws std::invalid_argument unless both times
/// are positive.
int passes_for(double pass_ms, double target_ms, int max_passes);

/// x -> multiplier * x + increment (mod 2^64), Knuth's MMIX LCG when the defaults are kept.
struct Lcg64 {
  uint64_t multiplier = 6364136223846793005ull;
  uint64_t increment = 1442695040888963407ull;
};

/// The stand-in for the guide's cpuFunction(): `iterations` dependent steps of `step` from `x`,
/// each waiting for the last (a multiply-add chain, a few ns a step), so its time is set by the
/// count and the result proves every step ran.
uint64_t cpu_function(uint64_t x, uint64_t iterations, Lcg64 step);

/// What cpu_function returns, in O(log iterations): the step's `iterations`-fold composition,
/// again affine, applied once.
uint64_t cpu_function_closed_form(uint64_t x, uint64_t iterations, Lcg64 step);

/// Steps that make cpu_function last about `target_ms`, from `measured_iterations` taking
/// `measured_ms`; at least 1. Throws std::invalid_argument unless the inputs are positive.
uint64_t iterations_for_ms(uint64_t measured_iterations, double measured_ms, double target_ms);

/// staged_copy's model (the guide's estimate, staged_copy/model.hpp) for `n_streams` stages
/// with its copy slowed by `copy_slowdown` (a copy's time beside other work over its time
/// alone): tT(n) = nStreams x `chunk_ms` x slowdown, tE = `kernel_ms`.
double staged_model_at_rate_ms(double chunk_ms, double copy_slowdown, double kernel_ms,
                               int n_streams);

} // namespace apod::engines
