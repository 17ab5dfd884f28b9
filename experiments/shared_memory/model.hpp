// Host-side arithmetic of the shared_memory experiment: the theoretical shared-memory bandwidth
// per SM and per GPU, GB/s from bytes and times, measured wavefronts from a rate and the clock,
// the expected checksums, the slides' stencil and the pointer chase of the latency points. The
// bank rule itself (wavefronts a request takes) has one owner: bank_conflicts/model.hpp.
#pragma once

#include <cstdint>
#include <vector>

namespace apod::smem {

/// Theoretical shared-memory bandwidth of one SM in GB/s: 32 banks x 4 bytes per clock (CUDA C++
/// Programming Guide, compute capability 5.x and later, "Shared Memory") at `sm_clock_khz`.
double limit_gbs_per_sm(double sm_clock_khz);
/// The same for the whole GPU: per SM x SMs.
double limit_gbs_per_gpu(int sm_count, double sm_clock_khz);

/// GB/s from bytes and milliseconds (1 GB = 1e9 bytes). Throws std::invalid_argument for a time
/// that is not positive.
double gbs(double bytes, double ms);

/// The clocks a warp's request took, read from a measured rate: a request moves 32 x
/// access_bytes bytes, the SM moved `gbs_per_sm` at `sm_clock_mhz`, so it took 32 x
/// access_bytes / (bytes per clock). With one wavefront per clock this is the wavefronts per
/// request the bank model predicts (bank_conflicts/model.hpp). Throws for a rate or clock that
/// is not positive.
double measured_wavefronts(int access_bytes, double gbs_per_sm, double sm_clock_mhz);

/// The model's bandwidth: the conflict-free figure of the same width scaled by its wavefronts
/// over the point's (the fewest wavefronts over the point's wavefronts).
double wavefront_model_gbs(double conflict_free_gbs, int min_wavefronts, int wavefronts);

/// Reads per thread of a strided point so that every point takes about as many clocks as the
/// 4-byte conflict-free one with `base` reads: base x 4 / access_bytes / (wavefronts /
/// min_wavefronts), rounded down to a multiple of `unroll`, at least 8 x unroll.
int reads_per_thread(int base, int access_bytes, int wavefronts, int min_wavefronts, int unroll);

/// Sums (mod 2^32) of `count` consecutive elements of a circular array, each element the sum of
/// its 32-bit words: what a thread that reads elements (start + i) mod size adds up.
class ElementSums {
public:
  /// `words` holds the array as 32-bit words; `words_per_element` of them make an element.
  ElementSums(const std::vector<uint32_t>& words, int words_per_element);
  uint32_t sum(uint64_t start, uint64_t count) const;
  uint64_t elements() const { return prefix_.size() - 1; }

private:
  std::vector<uint32_t> prefix_;
};

/// The slides' 1-D stencil ("Example of Using Shared Memory"): out[i] = in[i] + ... +
/// in[i + 2 radius], the sum of the 2 radius + 1 inputs centred on output i of an input that
/// carries `radius` halo elements on each side (in.size() - 2 radius outputs; 32-bit adds that
/// wrap, as the kernel's). Throws std::invalid_argument when the input is shorter than its halo.
std::vector<uint32_t> stencil_reference(const std::vector<uint32_t>& in, int radius);

/// A random single cycle over n slots (the slots in a shuffled order, each linked to the next):
/// next[i] is the slot after i, every slot is visited once per n steps, so a dependent chase
/// neither settles in a short loop nor walks a pattern a prefetcher could follow.
std::vector<uint32_t> chase_cycle(uint32_t n, uint64_t seed);
/// The slot a chase starting at `start` reaches after `steps` steps.
uint32_t chase_end(const std::vector<uint32_t>& next, uint32_t start, uint64_t steps);

} // namespace apod::smem
