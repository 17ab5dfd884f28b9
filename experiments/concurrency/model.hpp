// Host-side arithmetic of the concurrency experiment (concurrency.cu, sharing.cu): the chain of
// integer steps each small kernel runs (shared with the device, so every output is checked
// exactly), the reading of the kernels' own globaltimer windows (how many ran at once, the mean
// concurrency, how long two groups of kernels ran together), the connection count in effect
// (CUDA_DEVICE_MAX_CONNECTIONS) and the concurrency model min(streams, connections, kernels,
// resident grids, resident blocks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#ifdef __CUDACC__
#define APOD_CONCURRENCY_HD __host__ __device__
#else
#define APOD_CONCURRENCY_HD
#endif

namespace apod::concurrency {

/// Threads of each small kernel: one warp in one block, a small part of one SM.
inline constexpr int kernel_threads = 32;

/// The linear congruential step x <- a x + c (mod 2^32; Numerical Recipes' constants): one
/// dependent integer multiply-add per step, so a chain's time is its length times the latency.
inline constexpr uint32_t chain_multiplier = 1664525u;
inline constexpr uint32_t chain_addend = 1013904223u;

/// Lane `lane` of kernel `kernel`'s first value: distinct for every (kernel, lane).
APOD_CONCURRENCY_HD inline uint32_t chain_seed(uint32_t kernel, uint32_t lane) {
  return kernel * 0x9E3779B9u + lane * 0x85EBCA6Bu + 1u;
}

/// `steps` steps of the chain from `x` (the host's answer for a thread), in O(log steps): the
/// steps compose into one affine map x -> mul x + add (mod 2^32), built by repeated squaring.
uint32_t chain(uint32_t x, int steps);
/// The same, one step at a time (the definition chain() is tested against).
uint32_t chain_stepwise(uint32_t x, int steps);

/// One kernel's execution window on the GPU's globaltimer (ns), and which group (a stream, a
/// context) launched it.
struct Window {
  uint64_t start_ns = 0, end_ns = 0;
  int group = 0;
};

/// The most windows open at one instant (a window ending when another starts does not overlap
/// it). 0 for none.
int peak_overlap(const std::vector<Window>& windows);

/// The kernels' busy time over the span they cover: the sum of the windows' lengths over (last
/// end - first start), the mean number running at once. Throws std::invalid_argument for no
/// windows or a span that is not positive.
double mean_concurrency(const std::vector<Window>& windows);

/// From the first start to the last end, in ns; 0 for no windows.
uint64_t span_ns(const std::vector<Window>& windows);

/// The share of the time some window is open during which windows of group 0 and of group 1
/// are both open: 1 when two equal groups run side by side, 0 when they take turns (time
/// slicing). Throws std::invalid_argument for no windows.
double cross_overlap(const std::vector<Window>& windows);

/// The connection count a context takes from CUDA_DEVICE_MAX_CONNECTIONS's value (`value`
/// null: unset): the number when it is an integer in 1..32, else the driver's default of 8
/// (CUDA Programming Guide, "CUDA Environment Variables"; the Notes on CUDA (seed 002): "up to
/// 32 ... Default ... limited to eight").
int connections_in_effect(const char* value);
inline constexpr int default_connections = 8;
inline constexpr int max_connections = 32;

/// The connection count to request for a created context: 32, or 8 where 32 is already in
/// effect, so that the plateau has somewhere to move.
int connections_to_request(int in_effect);

/// Grids that may be resident on a device at once (the Programming Guide's table of compute
/// capabilities, "Maximum number of resident grids per device (Concurrent Kernel Execution)"):
/// 128 for compute capabilities 7.0, 7.5, 8.0, 8.6, 8.9 and 9.0 (the builds' sm_75, sm_80,
/// sm_90 among them); nothing for others, whose entry apod does not carry.
std::optional<int> resident_grid_limit(int cc_major, int cc_minor);

/// The model of how many of `kernels` independent one-block kernels, launched breadth-first
/// round robin onto `streams` streams, run at once: each stream is a queue; streams share
/// `connections` hardware queues, so at most that many queues' heads run (the Notes on CUDA);
/// the device holds at most `resident_grids` grids (when known) and `resident_blocks` blocks.
/// `depth_first`: each stream's kernels were queued in a row, so a queue holds one stream's
/// dependent chain and the streams behind it wait (at most one kernel per connection). Round
/// robin (not depth-first), neighbours in a queue are independent and start together, so the
/// connections do not bind (the H100's first run: 32 at once on 32 streams with 8 connections).
int concurrency_model(int streams, int connections, int kernels, std::optional<int> resident_grids,
                      int resident_blocks, bool depth_first);

/// The slowdown of two equal workloads run together over one alone: 1 where they run side by
/// side (streams of one context; green contexts on disjoint SMs), 2 where the GPU time-slices
/// them (two ordinary contexts: Best Practices Guide 10.6, "only one of these contexts can
/// execute work at any given moment").
double sharing_model(bool time_sliced);

/// The share of the time two independent workloads, each running a kernel a fraction `busy_a`
/// and `busy_b` of its span, both run one, over the time either does: a b / (a + b - a b). 1
/// only with no gaps between a workload's kernels; 0 for either never busy.
double side_by_side_overlap(double busy_a, double busy_b);

/// Sets an environment variable for its lifetime and puts back what was there (the value, or
/// unset), also when the code between throws.
class ScopedEnvironmentVariable {
public:
  ScopedEnvironmentVariable(std::string name, const std::string& value);
  ~ScopedEnvironmentVariable();
  ScopedEnvironmentVariable(const ScopedEnvironmentVariable&) = delete;
  ScopedEnvironmentVariable& operator=(const ScopedEnvironmentVariable&) = delete;

private:
  std::string name_;
  std::optional<std::string> saved_;
};

} // namespace apod::concurrency
