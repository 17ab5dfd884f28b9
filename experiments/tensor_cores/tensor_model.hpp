// Host arithmetic of the tensor-core experiment (tensor_cores.cu, cublaslt_gemm.cu): the dense
// tensor rate per precision and compute capability (from NVIDIA's published figures), a GEMM's
// FLOPs, bytes and arithmetic intensity, the small-integer inputs both methods multiply and their
// bit patterns, the fragment layouts of the mma.sync shapes (to build the host's reference of a
// warp's result) and the tolerance each precision's result is checked with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#ifdef __CUDACC__
#define APOD_TC_HD __host__ __device__
#else
#define APOD_TC_HD
#endif

namespace apod::tensor {

/// The input precisions measured. fp16 and bf16 accumulate in FP32, fp8_e4m3 and tf32 too, int8
/// in INT32, fp64 in FP64.
enum class Precision { fp16, bf16, fp8_e4m3, tf32, int8, fp64 };

inline constexpr Precision all_precisions[] = {Precision::fp16,     Precision::bf16,
                                               Precision::fp8_e4m3, Precision::tf32,
                                               Precision::int8,     Precision::fp64};

/// "fp16", "bf16", "fp8_e4m3", "tf32", "int8", "fp64": the stored param value.
const char* precision_name(Precision p);

/// Bytes of one input element as stored (tf32 inputs are FP32 words).
int input_bytes(Precision p);
/// Bytes of one output element (FP32 for the floating types but fp64, INT32 for int8).
int output_bytes(Precision p);

/// Dense tensor-core operations per clock per SM (an FMA counting two, as NVIDIA counts FLOPS and
/// INT8 TOPS), derived from NVIDIA's published dense peaks, SM counts and the clocks they were
/// stated at (tensor_model.cpp cites each). Empty where no such figure is known here (consumer
/// parts, whose FP32-accumulate rates differ from the data-centre ones, and capabilities not
/// covered): apod then states no theoretical rate rather than guess one.
std::optional<int> dense_ops_per_clock_per_sm(Precision p, int cc_major, int cc_minor);

/// Theoretical dense rate in TFLOP/s (TOP/s for int8): SM clock x SMs x ops per clock per SM.
/// Throws std::invalid_argument for a non-positive input.
double peak_tflops(int sm_count, int ops_per_clock_per_sm, double sm_clock_khz);

/// Whether a device of compute capability major.minor can run the precision's mma.sync shape
/// (PTX ISA, "Warp-level matrix multiply-accumulate instructions": the shapes used here need
/// sm_80, e4m3 needs sm_89).
bool mma_supported(Precision p, int cc_major, int cc_minor);
/// Whether cuBLASLt offers the precision on such a device (FP16 and INT8 tensor cores from
/// cc 7.5 here; BF16, TF32 and FP64 from 8.0; FP8 e4m3 from 8.9).
bool library_supported(Precision p, int cc_major, int cc_minor);

/// A GEMM's operations: 2 n^3 (n^3 multiply-adds).
double gemm_flops(int n);
/// Its DRAM bytes at best: A and B read once, D written once (beta = 0: C is not read).
double gemm_bytes(int n, Precision p);
/// gemm_flops / gemm_bytes.
double gemm_flops_per_byte(int n, Precision p);

/// An mma.sync shape: M x N x K and the per-lane register counts of its A, B and C fragments
/// (32-bit registers for all but fp64, whose fragments are one double each of A and B and two of
/// C).
struct MmaShape {
  int m = 0, n = 0, k = 0;
  int a_elements = 0, b_elements = 0, c_elements = 0; ///< per lane
  double flops() const { return 2.0 * m * n * k; }
};
/// m16n8k16 (fp16, bf16), m16n8k32 (fp8_e4m3, int8), m16n8k8 (tf32), m8n8k4 (fp64).
MmaShape mma_shape(Precision p);

/// Row and column of fragment element `e` of lane `lane` (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16/k8/k32" and "mma.m8n8k4 with .f64": groupID = lane / 4, threadID_in_group =
/// lane % 4). A is M x K (row major), B is K x N (column major), C is M x N.
struct RowCol {
  int row = 0, col = 0;
};
RowCol a_position(Precision p, int lane, int e);
RowCol b_position(Precision p, int lane, int e);
RowCol c_position(Precision p, int lane, int e);

/// SplitMix64 (the same as core's fill_value, which is device code): the hash of index i.
APOD_TC_HD inline uint64_t input_hash(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Every input is an integer in [-2, 2]: exact in every format here (e4m3 included), so each
/// product is exact and the only rounding is the accumulator's, which the tolerance bounds.
APOD_TC_HD inline int input_value(uint64_t seed, uint64_t i) {
  return int(input_hash(seed, i) % 5) - 2;
}

/// The bit pattern of a small integer v (|v| <= 2) in the precision's input format: sign,
/// exponent (bias + 0 for 1, bias + 1 for 2) and a zero mantissa; two's complement for int8.
APOD_TC_HD inline uint64_t encode_bits(Precision p, int v) {
  int total = 0, mantissa = 0, bias = 0;
  switch (p) {
  case Precision::int8:
    return uint64_t(uint8_t(int8_t(v)));
  case Precision::fp16:
    total = 16, mantissa = 10, bias = 15;
    break;
  case Precision::bf16:
    total = 16, mantissa = 7, bias = 127;
    break;
  case Precision::fp8_e4m3:
    total = 8, mantissa = 3, bias = 7;
    break;
  case Precision::tf32:
    total = 32, mantissa = 23, bias = 127;
    break;
  case Precision::fp64:
    total = 64, mantissa = 52, bias = 1023;
    break;
  }
  if (v == 0)
    return 0;
  const uint64_t sign = v < 0 ? uint64_t(1) << (total - 1) : 0;
  const int magnitude = v < 0 ? -v : v;
  return sign | (uint64_t(bias + magnitude - 1) << mantissa);
}

/// The largest error the host accepts in an output that is the sum of k products of inputs
/// whose absolute products sum to `abs_sum`. The inputs are integers, so every product and every
/// partial sum, in whatever order the library adds them, is an integer of magnitude at most
/// abs_sum: below 2^24 (FP32 accumulators: fp16, bf16, tf32 and fp8, whose cuBLASLt GEMM, without
/// CUBLASLT_MATMUL_DESC_FAST_ACCUM, accumulates in FP32) or 2^53 (fp64) each addition is exact and
/// the tolerance is 0, as it always is for int8. Past that, 2 k u abs_sum: the classical bound of
/// recursive summation (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1: gamma_k =
/// k u / (1 - k u)) with a margin of 2, u = 2^-24 or 2^-53.
double tolerance(Precision p, int k, double abs_sum);

/// The reference of a warp's mma peak loop (tensor_cores.cu): `chains` accumulators each end at
/// A x B, summed into one; per lane and C fragment element, lane-major. `a` and `b` are the small
/// integers of A (M x K, row major) and B (K x N, B[k][n] at k * N + n).
std::vector<double> mma_reference(Precision p, const std::vector<int>& a, const std::vector<int>& b,
                                  int chains);

} // namespace apod::tensor
