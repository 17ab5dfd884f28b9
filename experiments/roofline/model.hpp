// Host-side arithmetic of the roofline experiment (roofline.cu): what its kernel does per element
// (FLOPs and bytes of DRAM traffic, so the arithmetic intensity is data, not a guess), which FMA
// counts the sweep takes on a device, and the host's own FMA chains that check every output.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

namespace apod {

/// The kernel's step y <- y x multiplier + addend (one fused multiply-add). The multiplier is
/// 1 - 2^-12 and the addend 1.5 x 2^-12: both exact in FP32 and FP64, and the map contracts
/// towards 1.5 so slowly that each of up to 4096 steps moves an input from [1, 1.25) by far more
/// than its rounding: a chain one FMA short or long gives a different answer.
inline constexpr double chain_multiplier = 1.0 - 1.0 / 4096;
inline constexpr double chain_addend = 1.5 / 4096;

/// Element i of the input holds one of this many distinct values (the kernel reads
/// table[hash(i) mod size]): the host computes each value's chain once and every output is
/// checked against its value's chain.
inline constexpr size_t chain_table_size = 4096;

/// The sweep's bounds on FMAs per element.
inline constexpr int min_fma_per_element = 1;
inline constexpr int max_fma_per_element = 4096;

/// FLOPs per element for `fma_per_element` FMAs: 2 each (a multiply and an add).
double flops_per_element(int fma_per_element);

/// Bytes of DRAM traffic per element of `element_bytes`: read once, written once.
double bytes_per_element(int element_bytes);

/// Arithmetic intensity: flops_per_element / bytes_per_element, FLOPs per byte.
double flops_per_byte(int fma_per_element, int element_bytes);

/// The FMA counts the sweep takes: powers of two from 1 up to the first whose intensity is at
/// least 8x the machine balance (so the last points are well past the ridge even against an
/// achievable bandwidth below the theoretical one), kept within [64, max_fma_per_element]; up to
/// 1024 when the balance is unknown. Quick: 1, 16 and the last.
std::vector<int> fma_counts(std::optional<double> balance_flops_per_byte, int element_bytes,
                            bool quick);

/// The chains' inputs: chain_table_size values in [1, 1.25) (a Weyl sequence), as T.
template <class T> std::vector<T> chain_inputs();

/// `x` after `steps` steps y <- fma(y, multiplier, addend) in T: the same correctly rounded
/// fused operations, in the same order, as the kernel, so the answer is equal bit for bit.
template <class T> T fma_chain(T x, int steps) {
  const T multiplier = T(chain_multiplier), addend = T(chain_addend);
  for (int k = 0; k < steps; ++k)
    x = std::fma(x, multiplier, addend);
  return x;
}

/// The sweep keeps doubling k past fma_counts' last until the last two points agree within
/// this (relative): a peak is where the curve is flat, not where the sweep stopped.
inline constexpr double flat_tolerance = 0.015;

/// Whether two successive medians agree within flat_tolerance.
bool curve_flat(double previous, double last);

/// The next FMA count once `counts` are measured with `medians` (as many, both in sweep order):
/// twice the last while the last two are not flat and that stays within max_fma_per_element;
/// nothing when the curve is flat, or the cap is reached, or fewer than two points exist.
std::optional<int> next_fma_count(const std::vector<int>& counts,
                                  const std::vector<double>& medians);

/// The fraction of the resident warps that must wait on loads at once to keep DRAM at
/// `bandwidth_gbs`: Little's law's bytes in flight, bandwidth x `latency_ns`, over what the
/// resident warps hold when all of them wait (`sms` x `warps_per_sm` x `bytes_per_warp`), at most
/// 1. While that share of the warps waits, it cannot compute: the part of the shorter phase no
/// other warp hides.
double waiting_share(double bandwidth_gbs, double latency_ns, int sms, int warps_per_sm,
                     double bytes_per_warp);

/// The soft-knee roofline (GFLOP/s): per FLOP, t = max(tm, tc) + share x min(tm, tc), with
/// tm = 1 / (intensity x bandwidth) and tc = 1 / peak; share 0 is the classic roofline
/// min(peak, intensity x bandwidth), share 1 no overlap at all (tm + tc).
double soft_roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs,
                            double share);

/// fma_chain of every input.
template <class T> std::vector<T> chain_outputs(const std::vector<T>& inputs, int steps);

} // namespace apod
