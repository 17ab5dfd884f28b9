// The three GPU phases the scaling experiment runs on SM partitions, one per class of limit:
// compute-bound (dependent FMA chains over many waves of blocks), memory-bound (a stream over
// arrays far larger than the L2: read one, write the other) and latency-bound (a fixed, small
// set of dependent pointer chases through DRAM). Each launches on the stream it is given, so the
// green context behind the stream decides how many SMs run it, and each checks its own output
// against the host's answer after poisoning it.
#pragma once

#include "core/cuda_memory.cuh"
#include "core/measurement.hpp"
#include "model.hpp"

#include <cstddef>
#include <cstdint>

namespace apod::scaling {

inline constexpr int block_size = 256;

/// Compute-bound: out[i] = `iterations` dependent fmaf(x, a, b) from in[i] (in [1, 2)): one load
/// and one store per chain, so the FMA pipes, not memory, set the time; every result is
/// reproducible bit for bit on the host with std::fmaf.
class ComputeWorkload {
public:
  ComputeWorkload(size_t max_elements, int iterations);
  /// Blocks of the FMA kernel one SM holds at once (the occupancy calculator's answer).
  static int resident_blocks_per_sm();
  /// Elements one wave of blocks covers on one SM (resident blocks x block size).
  static size_t elements_per_sm_wave() { return size_t(resident_blocks_per_sm()) * block_size; }
  int iterations() const { return iterations_; }
  /// The FMA's multiplier: the serial phase's result, as a setup step feeds a parallel one.
  void set_multiplier(float a) { multiplier_ = a; }
  void launch(cudaStream_t stream, size_t elements) const;
  /// Poisons the output, runs once, then checks every element was written and 1024 of them
  /// (spread over the range, the last included) equal the host's chain bit for bit.
  bool verify(cudaStream_t stream, size_t elements) const;

private:
  DeviceBuffer<float> in_, out_;
  int iterations_;
  float multiplier_ = 0.999f;
};

/// Memory-bound: out = in XOR a key, 16-byte vectors, four loads in flight per thread before any
/// store (HOPPER.md), one tile per block. Bytes moved: read plus written.
class StreamWorkload {
public:
  explicit StreamWorkload(size_t bytes_each);
  double bytes_moved() const { return 2.0 * double(in_.bytes()); }
  void launch(cudaStream_t stream) const;
  /// Poisons the output, runs once, counts on the device the 8-byte words that differ from
  /// the fill formula XOR the key (every word: a GiB read back per point would cost more than
  /// measuring it).
  bool verify(cudaStream_t stream) const;

private:
  DeviceBuffer<uint64_t> in_, out_;
  DeviceBuffer<unsigned long long> wrong_{1};
};

/// Latency-bound: `chains` threads (one one-thread block each: one lane per warp), each following
/// `steps` links of a full-period LCG chain stored in a table of 2^26 indices (256 MiB, four
/// times a Hopper L2 and more), each link a load whose address is the previous load's value.
/// Each launch takes the next group of disjoint chain segments, so no launch finds in the L2
/// what the launches just before it loaded.
class ChaseWorkload {
public:
  ChaseWorkload(int chains, uint32_t steps);
  int chains() const { return chains_; }
  uint32_t steps() const { return steps_; }
  size_t table_bytes() const { return table_.bytes(); }
  /// The `launch_index`-th launch: segment group launch_index mod the number of groups.
  void launch(cudaStream_t stream, int launch_index) const;
  /// Poisons the output, runs launch `launch_index` once, and checks that every chain ended
  /// where the next segment starts (model.hpp's chase_segment_starts).
  bool verify(cudaStream_t stream, int launch_index) const;

private:
  size_t first_segment(int launch_index) const;
  ChaseChain chain_;
  int chains_;
  uint32_t steps_;
  size_t groups_ = 0;
  std::vector<uint32_t> starts_;
  DeviceBuffer<uint32_t> table_, starts_device_, out_;
};

} // namespace apod::scaling
