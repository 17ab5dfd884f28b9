// Host arithmetic of the allocation experiment (allocation.cu): the APIs and sizes measured, the
// safe fraction of device and host memory a point may take, how each point is sampled, and the
// cost per GiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod::alloc {

inline constexpr size_t kib = 1024, mib = kib * 1024, gib = mib * 1024;

/// One allocator: its name (the `api` param), whether it hands out host memory, and whether
/// its cost grows with the size so that a cost per GiB means something.
struct Api {
  std::string name;
  bool host = false;
  bool scales_with_size = true;
};

/// host_alloc (cudaHostAlloc + cudaFreeHost), host_register (cudaHostRegister + Unregister of
/// malloc'ed, touched memory), malloc (cudaMalloc + cudaFree), pool_warm (cudaMallocAsync +
/// cudaFreeAsync served from memory the pool keeps), pool_cold (the same after the pool was
/// trimmed to nothing): Best Practices Guide 9.1.1 and 9.3.
const std::vector<Api>& apis();

/// The sizes measured for `api`. Default: 4 KiB, 1 MiB, 64 MiB, and 1 GiB for the device
/// allocators; the host ones stop at 64 MiB (pinning 1 GiB took 0.7 s a pair on the first H100
/// run, 2.2 s for three samples, and cost the same per GiB as 64 MiB). Full: 4 KiB to 1 GiB in
/// powers of 4 for every allocator (the default's sizes among them); quick: 4 KiB, 1 MiB, 16 MiB.
std::vector<size_t> sizes(const Api& api, bool quick, bool full);

/// Sizes above this are planned with a condition: they are measured only where safe_size holds.
inline constexpr size_t conditional_bytes = 256 * mib;

/// Whether `bytes` may be allocated: at most a quarter of the device's free memory (device
/// APIs) or an eighth of the host's available memory (host APIs), so that the point never
/// presses the card or the host (pinned memory is "a scarce resource", guide 9.1.1).
bool safe_size(const Api& api, size_t bytes, size_t device_free_bytes, size_t host_available_bytes);

/// Whether a point records the cost per GiB: an API whose cost grows with the size, at 1 MiB
/// and above (under it the call's fixed cost is all there is).
bool per_gib_point(const Api& api, size_t bytes);

/// Milliseconds per GiB of an allocate-and-free pair that took `pair_us` for `bytes`.
double ms_per_gib(double pair_us, size_t bytes);

/// Untimed allocate-and-free pairs before the samples: the policy's warm-up for small sizes, one
/// from 64 MiB on (the smaller sizes before it warmed the driver's paths); the last one's time
/// sets the point's least samples (min_samples).
int warmup_pairs(size_t bytes, int policy_warmup);
/// The least samples a point takes: the policy's, fewer where that many pairs of `pair_s` each
/// would overrun the point's cap, never under 3 (a 64 MiB cudaHostAlloc pair takes ~40 ms).
/// pair_s <= 0 (not measured): the policy's.
int min_samples(double pair_s, double cap_s, int policy_min);
/// A point's time cap in seconds: 0.05 under 64 MiB, 0.15 from 64 MiB on, never over the
/// policy's (about 20 points in 3 s).
double point_cap_s(size_t bytes, double policy_cap_s);

/// The byte pattern of sample `i`: never zero, different from one sample to the next.
uint8_t pattern_byte(size_t i);

/// Offsets of the probes checked in an allocation of `bytes`: its first, middle and last
/// `probe` bytes (fewer, overlapping, when the allocation is smaller).
std::vector<size_t> probe_offsets(size_t bytes, size_t probe);

/// Whether device memory came back: free memory after the point at least as much as before less
/// `slack` (the driver keeps small reservations: 2 MiB pages, a pool's bookkeeping).
bool freed(size_t free_before, size_t free_after, size_t slack);

} // namespace apod::alloc
