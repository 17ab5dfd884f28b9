// Host-side arithmetic of the local_memory experiment (local_memory.cu): the per-thread work both
// kernels of a pair do (shared with the device, so the register and the local-memory version
// compute the same words), the host's answers every thread is checked against, and the rates
// and cost ratio.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define APOD_LOCAL_HD __host__ __device__
#else
#define APOD_LOCAL_HD
#endif

namespace apod::local_memory {

/// Threads start from one of this many states (thread index mod start_classes), so the host
/// computes each answer once and checks every thread against it.
inline constexpr uint32_t start_classes = 64;

/// Word i of a thread's array (or live value i) at the start, for start class c.
APOD_LOCAL_HD constexpr uint32_t start_word(uint32_t c, uint32_t i) {
  return (c + 1u) * 0x9E3779B1u + i * 0x85EBCA6Bu;
}

/// One step of the indexed-array kernel on word i: a[i] <- 5 a[i] + acc; acc <- acc XOR a[i].
/// Every step reads and writes the array at a run-time index, and acc carries all of them (an
/// add instead of the XOR would double acc's factor of two every step and drive it to 0).
APOD_LOCAL_HD constexpr void array_step(uint32_t& word, uint32_t& acc) {
  word = word * 5u + acc;
  acc ^= word;
}

/// One update of the register-pressure kernel: v[c] <- 5 v[c] + v[(c + 1) mod live], in order
/// c = 0 .. live - 1, so all `live` values stay live across the loop.
APOD_LOCAL_HD constexpr uint32_t pressure_update(uint32_t value, uint32_t next) {
  return value * 5u + next;
}

/// The answer of an indexed-array thread of start class c: `words` words, `steps` steps, step s
/// on word s mod words (the local kernel's index is (s + offset) mod words with offset 0 at run
/// time, the register kernel's s mod words known at compile time), returning acc.
uint32_t array_answer(uint32_t c, uint32_t words, uint32_t steps);

/// The answer of a register-pressure thread of start class c: `live` values, `trips` trips of
/// `live` updates each, returning the sum of the values.
uint32_t pressure_answer(uint32_t c, uint32_t live, uint32_t trips);

/// Word updates per second in G/s: threads x updates per thread over the time in ms.
double update_rate_g(double threads, double updates_per_thread, double ms);

/// time(local) / time(registers) for the same work: the register version's rate over the local
/// one's. Throws std::invalid_argument for rates that are not positive.
double cost_vs_registers(double register_rate, double local_rate);

} // namespace apod::local_memory
