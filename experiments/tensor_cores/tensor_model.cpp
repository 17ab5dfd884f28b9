// Host arithmetic of the tensor-core experiment; see tensor_model.hpp.
#include "tensor_model.hpp"

#include <cmath>
#include <stdexcept>

namespace apod::tensor {

const char* precision_name(Precision p) {
  switch (p) {
  case Precision::fp16:
    return "fp16";
  case Precision::bf16:
    return "bf16";
  case Precision::fp8_e4m3:
    return "fp8_e4m3";
  case Precision::tf32:
    return "tf32";
  case Precision::int8:
    return "int8";
  case Precision::fp64:
    return "fp64";
  }
  return "?";
}

int input_bytes(Precision p) {
  switch (p) {
  case Precision::fp16:
  case Precision::bf16:
    return 2;
  case Precision::fp8_e4m3:
  case Precision::int8:
    return 1;
  case Precision::tf32:
    return 4;
  case Precision::fp64:
    return 8;
  }
  return 0;
}

int output_bytes(Precision p) {
  return p == Precision::fp64 ? 8 : 4;
}

// Dense (not 2:4 sparse) operations per clock per SM, each derived as published TFLOPS / (SMs x
// the boost clock the figure was stated at), an FMA counting two:
// - cc 8.0, A100 SXM4 (108 SMs, 1410 MHz): NVIDIA A100 Tensor Core GPU Architecture whitepaper
//   (2020), "A100 GPU hardware architecture", table comparing V100 and A100: FP16 and BF16 312
//   TFLOPS, TF32 156, INT8 624 TOPS, FP64 tensor 19.5: 2048, 2048, 1024, 4096 and 128 per clock
//   per SM (312e12 / (108 x 1.41e9) = 2049, the published figure being rounded).
// - cc 9.0, H100 SXM5 (132 SMs): NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table
//   "Comparison of NVIDIA A100 and H100 Data Center GPUs": FP16 and BF16 989.4 TFLOPS dense, TF32
//   494.7, FP8 1978.9, INT8 1978.9 TOPS, stated at 1830 MHz (132 x 1.83e9 x 4096 = 989.4e12
//   exactly), FP64 tensor 66.9 TFLOPS stated at 1980 MHz, like the FP32 and FP64 CUDA-core figures
//   (132 x 1.98e9 x 256 = 66.9e12): 4096, 4096, 2048, 8192, 8192 and 256 per clock per SM, twice
//   A100's per SM for every type, as the whitepaper states ("2x the MMA rates of the A100 SM on
//   equivalent data types"). The H200 is the same GH100 SM.
// Other capabilities are left empty: the GeForce and workstation parts of 8.6 and 8.9 run FP16
// with FP32 accumulation at a different rate from the data-centre parts of the same capability,
// and 10.x figures are not checked here.
std::optional<int> dense_ops_per_clock_per_sm(Precision p, int cc_major, int cc_minor) {
  int a100 = 0;
  switch (p) {
  case Precision::fp16:
  case Precision::bf16:
    a100 = 2048;
    break;
  case Precision::tf32:
    a100 = 1024;
    break;
  case Precision::int8:
    a100 = 4096;
    break;
  case Precision::fp64:
    a100 = 128;
    break;
  case Precision::fp8_e4m3:
    a100 = 0; // A100 has no FP8 tensor cores
    break;
  }
  if (cc_major == 8 && cc_minor == 0)
    return a100 > 0 ? std::optional<int>(a100) : std::nullopt;
  if (cc_major == 9 && cc_minor == 0)
    return p == Precision::fp8_e4m3 ? 8192 : 2 * a100;
  return std::nullopt;
}

double peak_tflops(int sm_count, int ops_per_clock_per_sm, double sm_clock_khz) {
  if (sm_count <= 0 || ops_per_clock_per_sm <= 0 || !(sm_clock_khz > 0))
    throw std::invalid_argument("peak_tflops: SMs, ops per clock and clock must be positive");
  return double(sm_count) * ops_per_clock_per_sm * sm_clock_khz * 1e3 / 1e12;
}

namespace {
int cc(int major, int minor) {
  return 10 * major + minor;
}
} // namespace

bool mma_supported(Precision p, int cc_major, int cc_minor) {
  return cc(cc_major, cc_minor) >= (p == Precision::fp8_e4m3 ? 89 : 80);
}

bool library_supported(Precision p, int cc_major, int cc_minor) {
  const int c = cc(cc_major, cc_minor);
  switch (p) {
  case Precision::fp16:
  case Precision::int8:
    return c >= 75;
  case Precision::fp8_e4m3:
    return c >= 89;
  default:
    return c >= 80;
  }
}

double gemm_flops(int n) {
  return 2.0 * double(n) * n * n;
}

double gemm_bytes(int n, Precision p) {
  return double(n) * n * (2.0 * input_bytes(p) + output_bytes(p));
}

double gemm_flops_per_byte(int n, Precision p) {
  return gemm_flops(n) / gemm_bytes(n, p);
}

MmaShape mma_shape(Precision p) {
  switch (p) {
  case Precision::fp16:
  case Precision::bf16:
    return {16, 8, 16, 8, 4, 4};
  case Precision::tf32:
    return {16, 8, 8, 4, 2, 4};
  case Precision::fp8_e4m3:
  case Precision::int8:
    return {16, 8, 32, 16, 8, 4};
  case Precision::fp64:
    return {8, 8, 4, 1, 1, 2};
  }
  return {};
}

RowCol a_position(Precision p, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  switch (p) {
  case Precision::fp16:
  case Precision::bf16:
    return {g + 8 * ((e >> 1) & 1), t * 2 + (e & 1) + (e >= 4 ? 8 : 0)};
  case Precision::tf32:
    return {g + 8 * (e & 1), t + (e >= 2 ? 4 : 0)};
  case Precision::fp8_e4m3:
  case Precision::int8:
    return {g + 8 * ((e >> 2) & 1), t * 4 + (e & 3) + (e >= 8 ? 16 : 0)};
  case Precision::fp64:
    return {g, t};
  }
  return {};
}

RowCol b_position(Precision p, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  switch (p) {
  case Precision::fp16:
  case Precision::bf16:
    return {t * 2 + (e & 1) + (e >= 2 ? 8 : 0), g};
  case Precision::tf32:
    return {t + 4 * e, g};
  case Precision::fp8_e4m3:
  case Precision::int8:
    return {t * 4 + (e & 3) + (e >= 4 ? 16 : 0), g};
  case Precision::fp64:
    return {t, g};
  }
  return {};
}

RowCol c_position(Precision p, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  if (p == Precision::fp64)
    return {g, t * 2 + e};
  return {g + (e >= 2 ? 8 : 0), t * 2 + (e & 1)};
}

double tolerance(Precision p, int k, double abs_sum) {
  if (p == Precision::int8)
    return 0;
  const int digits = p == Precision::fp64 ? 53 : 24;
  if (abs_sum < std::ldexp(1.0, digits))
    return 0; // every partial sum is an integer the accumulator holds exactly
  return 2.0 * k * std::ldexp(1.0, -digits) * abs_sum;
}

std::vector<double> mma_reference(Precision p, const std::vector<int>& a, const std::vector<int>& b,
                                  int chains) {
  const MmaShape s = mma_shape(p);
  if (a.size() != size_t(s.m * s.k) || b.size() != size_t(s.k * s.n))
    throw std::invalid_argument("mma_reference: A must be M x K and B K x N");
  std::vector<double> out(size_t(32) * s.c_elements);
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < s.c_elements; ++e) {
      const RowCol rc = c_position(p, lane, e);
      double sum = 0;
      for (int k = 0; k < s.k; ++k)
        sum += double(a[rc.row * s.k + k]) * b[k * s.n + rc.col];
      out[size_t(lane) * s.c_elements + e] = chains * sum;
    }
  return out;
}

} // namespace apod::tensor
