// Host arithmetic of the occupancy experiment (occupancy.cu): theoretical occupancy computed by
// apod itself from the SM's limits and a kernel's resources (Best Practices Guide 10.1.1), which
// the run holds equal to the occupancy API's answer at every point; the achieved occupancy read
// from each warp's residency on its SM; and the FMA chains the spill kernels' outputs are checked
// against.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod::occupancy {

/// What bounds the blocks resident on one SM (CUDA C++ Programming Guide, "Features and Technical
/// Specifications", table "Technical Specifications per Compute Capability"; the allocation
/// granularities from the toolkit's occupancy calculator, cuda_occupancy.h, which
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers like).
struct SmLimits {
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 65536;          ///< 64 Ki 32-bit registers (every 7.x-9.0 SM)
  int max_registers_per_block = 65536;   ///< a block may use the whole register file
  int max_registers_per_thread = 255;    ///< what the compiler may give one thread
  int register_allocation_unit = 256;    ///< registers per warp are rounded up to this (10.1.1)
  int register_sub_partitions = 4;       ///< the register file is split among 4 schedulers
  int64_t shared_bytes_per_sm = 0;       ///< the most shared memory an SM can carve out
  int64_t shared_bytes_per_block = 0;    ///< the opt-in maximum for one block
  int64_t reserved_shared_per_block = 0; ///< the driver's own share of each block (8.0+: 1 KiB)
  int64_t shared_allocation_unit = 0;    ///< shared memory is allocated in these steps

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

/// The limits of compute capability major.minor (7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0); nothing for
/// another, where apod states no arithmetic of its own rather than guess one.
std::optional<SmLimits> sm_limits(int cc_major, int cc_minor);

/// A kernel launch's resources, as cudaFuncGetAttributes and the launch give them.
struct KernelResources {
  int block_threads = 0;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
};

/// Blocks per SM under each limit and what they give.
struct Occupancy {
  int blocks_per_sm = 0;
  int by_warps = 0;       ///< max warps per SM / warps per block
  int by_block_limit = 0; ///< max blocks per SM
  int by_registers = 0;   ///< warps whose registers fit each sub-partition, over warps per block
  int by_shared = 0;      ///< shared memory per SM / shared memory allocated per block
  int warps_per_block = 0;
  int registers_per_warp = 0;   ///< registers x warp size, rounded up to the allocation unit
  int64_t shared_per_block = 0; ///< static + dynamic + reserved, rounded up to the unit
  int resident_warps = 0;       ///< blocks_per_sm x warps_per_block
  double occupancy = 0;         ///< resident warps / max warps per SM (10.1)
  /// The most warps an SM can hold at once counting blocks that are partly done: registers are
  /// held per warp (each sub-partition whole warps' worth), block slots and shared memory per
  /// block. A block may start while the last warps of another still run, so more warps than
  /// resident_warps can be seen at once: on an H100, 48 warps of 320-thread blocks at 36
  /// registers, where the API's 4 whole blocks are 40 (the first device run). min(max warps,
  /// register-limited warps, blocks by shared memory x warps per block, block limit x warps).
  int warp_capacity = 0;
  std::string limiter; ///< "warps", "blocks", "registers" or "shared memory"
};

/// Theoretical occupancy of a launch (Best Practices Guide 10.1.1; the occupancy calculator's
/// arithmetic for the default shared-memory carveout): blocks per SM is the least of max warps /
/// warps per block, the block limit, the register limit (registers per warp = registers x 32
/// rounded up to 256; each of the 4 sub-partitions holds 16 Ki registers' worth of whole warps)
/// and the shared-memory limit (per block: static + dynamic + reserved, rounded up to the
/// allocation unit). 0 blocks when a block cannot fit at all. Throws std::invalid_argument for a
/// block of no threads or more than the SM holds.
Occupancy theoretical_occupancy(const SmLimits& limits, const KernelResources& kernel);

/// One warp's stay on its SM: the SM's cycle counter (clock64) when the warp started and when it
/// had issued its last store.
struct WarpSpan {
  uint32_t sm = 0;
  uint64_t start = 0, end = 0;
};

/// The achieved occupancy of one launch from every warp's span: on each SM, the warp-cycles
/// resident (the sum of its warps' spans) over the cycles from its first warp's start to its
/// last warp's end, i.e. the mean resident warps, summed over SMs and divided by the SMs' cycles
/// and the max warps per SM (Nsight Compute's "achieved occupancy": active warps per active
/// cycle over the maximum). Cycle counters are per SM, so spans are compared only within one.
struct Achieved {
  double occupancy = 0;
  int max_resident_warps = 0; ///< the most warps whose spans overlapped on one SM
  int sms = 0;                ///< SMs that ran a warp
};
/// Throws std::invalid_argument for no warps, a span that ends before it starts, or a max of
/// warps per SM that is not positive.
Achieved achieved_occupancy(const std::vector<WarpSpan>& warps, int max_warps_per_sm);

/// The spill kernel's arithmetic (occupancy.cu): each thread keeps `spill_chains` accumulators,
/// chain c starting at input_value + c / 64, and applies acc = fma(acc, multiplier, addend) to
/// each for `steps` steps; its output is the chains summed in order. The host's answer for one
/// input value.
inline constexpr int spill_chains = 64;
inline constexpr float spill_multiplier = 0.999f;
inline constexpr float spill_addend = 0.0015f;
inline constexpr int spill_inputs = 64; ///< thread t starts from input_value(t % spill_inputs)
/// 1 + v / 64: exact in float, the same on host and device.
constexpr float input_value(int v) {
  return 1.0f + float(v) / 64.0f;
}
float spill_chains_sum(float x, int steps);

} // namespace apod::occupancy
