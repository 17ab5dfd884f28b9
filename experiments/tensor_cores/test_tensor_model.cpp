// The tensor-core experiment's host arithmetic (tensor_model.cpp): the theoretical dense rates
// against NVIDIA's published figures, the GEMM's intensity, the input encodings, the mma.sync
// fragment layouts, the tolerance, and the plan of points per device.
#include "declaration.hpp"
#include "tensor_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <utility>

using namespace apod::tensor;

namespace {
double at(Precision p, int major, int minor, int sms, double mhz) {
  return peak_tflops(sms, *dense_ops_per_clock_per_sm(p, major, minor), mhz * 1000);
}
} // namespace

TEST(TensorTheory, H100FiguresAreTheWhitepapersAtTheClocksTheyWereStatedAt) {
  // H100 SXM5, 132 SMs: 989.4 TFLOPS FP16/BF16, 494.7 TF32, 1978.9 FP8 and INT8 at 1830 MHz;
  // FP64 tensor 66.9 at 1980 MHz.
  EXPECT_NEAR(at(Precision::fp16, 9, 0, 132, 1830), 989.4, 0.1);
  EXPECT_NEAR(at(Precision::bf16, 9, 0, 132, 1830), 989.4, 0.1);
  EXPECT_NEAR(at(Precision::tf32, 9, 0, 132, 1830), 494.7, 0.1);
  EXPECT_NEAR(at(Precision::fp8_e4m3, 9, 0, 132, 1830), 1978.9, 0.1);
  EXPECT_NEAR(at(Precision::int8, 9, 0, 132, 1830), 1978.9, 0.1);
  EXPECT_NEAR(at(Precision::fp64, 9, 0, 132, 1980), 66.9, 0.1);
}

TEST(TensorTheory, A100FiguresAreTheWhitepapersAt1410MHz) {
  // A100 SXM4, 108 SMs: 312 TFLOPS FP16/BF16, 156 TF32, 624 TOPS INT8, 19.5 FP64 tensor.
  EXPECT_NEAR(at(Precision::fp16, 8, 0, 108, 1410), 312, 0.5);
  EXPECT_NEAR(at(Precision::bf16, 8, 0, 108, 1410), 312, 0.5);
  EXPECT_NEAR(at(Precision::tf32, 8, 0, 108, 1410), 156, 0.5);
  EXPECT_NEAR(at(Precision::int8, 8, 0, 108, 1410), 624, 1);
  EXPECT_NEAR(at(Precision::fp64, 8, 0, 108, 1410), 19.5, 0.1);
}

TEST(TensorTheory, NoFigureIsGuessedWhereNoneIsPublishedHere) {
  EXPECT_FALSE(dense_ops_per_clock_per_sm(Precision::fp8_e4m3, 8, 0)); // A100 has no FP8
  EXPECT_FALSE(dense_ops_per_clock_per_sm(Precision::fp16, 8, 6));     // consumer Ampere
  EXPECT_FALSE(dense_ops_per_clock_per_sm(Precision::fp16, 8, 9));
  EXPECT_FALSE(dense_ops_per_clock_per_sm(Precision::fp16, 7, 5));
  EXPECT_FALSE(dense_ops_per_clock_per_sm(Precision::fp16, 10, 0));
  EXPECT_THROW(peak_tflops(0, 4096, 1e6), std::invalid_argument);
  EXPECT_THROW(peak_tflops(132, 4096, 0), std::invalid_argument);
}

TEST(TensorTheory, DeviceSupportFollowsThePtxTargets) {
  EXPECT_TRUE(mma_supported(Precision::fp16, 8, 0));
  EXPECT_FALSE(mma_supported(Precision::fp16, 7, 5));
  EXPECT_FALSE(mma_supported(Precision::fp8_e4m3, 8, 6));
  EXPECT_TRUE(mma_supported(Precision::fp8_e4m3, 8, 9));
  EXPECT_TRUE(mma_supported(Precision::fp64, 9, 0));
  EXPECT_TRUE(library_supported(Precision::int8, 7, 5));
  EXPECT_FALSE(library_supported(Precision::bf16, 7, 5));
  EXPECT_FALSE(library_supported(Precision::fp8_e4m3, 8, 0));
}

TEST(TensorGemm, IntensityIsTwoNCubedOverTheBytesOfABAndD) {
  // n = 1024 FP16 in, FP32 out: 2 n^3 / (n^2 (2 + 2 + 4)) = n / 4.
  EXPECT_DOUBLE_EQ(gemm_flops(1024), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(gemm_flops_per_byte(1024, Precision::fp16), 256);
  EXPECT_DOUBLE_EQ(gemm_flops_per_byte(1024, Precision::int8), 2.0 * 1024 / 6);
  EXPECT_DOUBLE_EQ(gemm_flops_per_byte(1024, Precision::fp64), 2.0 * 1024 / 24);
  EXPECT_DOUBLE_EQ(gemm_bytes(8, Precision::tf32), 64.0 * 12);
}

TEST(TensorInputs, SmallIntegersEncodeExactlyInEveryFormat) {
  float f = 0;
  uint32_t bits = uint32_t(encode_bits(Precision::tf32, -2));
  std::memcpy(&f, &bits, 4);
  EXPECT_EQ(f, -2.0f);
  double d = 0;
  uint64_t wide = encode_bits(Precision::fp64, 1);
  std::memcpy(&d, &wide, 8);
  EXPECT_EQ(d, 1.0);
  EXPECT_EQ(encode_bits(Precision::fp16, 1), 0x3C00u);
  EXPECT_EQ(encode_bits(Precision::fp16, -2), 0xC000u);
  EXPECT_EQ(encode_bits(Precision::bf16, 1), 0x3F80u);
  EXPECT_EQ(encode_bits(Precision::bf16, 2), 0x4000u);
  EXPECT_EQ(encode_bits(Precision::fp8_e4m3, 1), 0x38u);
  EXPECT_EQ(encode_bits(Precision::fp8_e4m3, -2), 0xC0u);
  EXPECT_EQ(encode_bits(Precision::int8, -1), 0xFFu);
  EXPECT_EQ(encode_bits(Precision::fp16, 0), 0u);
  std::set<int> seen;
  for (uint64_t i = 0; i < 1000; ++i) {
    const int v = input_value(7, i);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 2);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u);
}

TEST(TensorFragments, EachLayoutCoversEveryElementOnce) {
  for (const Precision p : all_precisions) {
    const MmaShape s = mma_shape(p);
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < s.a_elements; ++e) {
        const RowCol rc = a_position(p, lane, e);
        EXPECT_TRUE(rc.row < s.m && rc.col < s.k) << precision_name(p);
        a.insert({rc.row, rc.col});
      }
      for (int e = 0; e < s.b_elements; ++e) {
        const RowCol rc = b_position(p, lane, e);
        EXPECT_TRUE(rc.row < s.k && rc.col < s.n) << precision_name(p);
        b.insert({rc.row, rc.col});
      }
      for (int e = 0; e < s.c_elements; ++e) {
        const RowCol rc = c_position(p, lane, e);
        EXPECT_TRUE(rc.row < s.m && rc.col < s.n) << precision_name(p);
        c.insert({rc.row, rc.col});
      }
    }
    EXPECT_EQ(a.size(), size_t(s.m * s.k)) << precision_name(p);
    EXPECT_EQ(b.size(), size_t(s.k * s.n)) << precision_name(p);
    EXPECT_EQ(c.size(), size_t(s.m * s.n)) << precision_name(p);
  }
}

TEST(TensorFragments, PtxExamplesOfTheLayouts) {
  // m16n8k16 f16: lane 5 (group 1, thread 1) holds A a6 at row 9, column 2 x 1 + 0 + 8 = 10.
  EXPECT_EQ(a_position(Precision::fp16, 5, 6).row, 9);
  EXPECT_EQ(a_position(Precision::fp16, 5, 6).col, 10);
  // m16n8k32 s8: lane 6 (group 1, thread 2) holds A a13 at row 9, column 8 + 1 + 16 = 25 and
  // B b5 at row 8 + 1 + 16 = 25, column 1.
  EXPECT_EQ(a_position(Precision::int8, 6, 13).row, 9);
  EXPECT_EQ(a_position(Precision::int8, 6, 13).col, 25);
  EXPECT_EQ(b_position(Precision::int8, 6, 5).row, 25);
  EXPECT_EQ(b_position(Precision::int8, 6, 5).col, 1);
  // m16n8k8 tf32: a3 of lane 0 is at row 8, column 4; C c3 of lane 31 at row 15, column 7.
  EXPECT_EQ(a_position(Precision::tf32, 0, 3).row, 8);
  EXPECT_EQ(a_position(Precision::tf32, 0, 3).col, 4);
  EXPECT_EQ(c_position(Precision::tf32, 31, 3).row, 15);
  EXPECT_EQ(c_position(Precision::tf32, 31, 3).col, 7);
  // m8n8k4 f64: C c1 of lane 7 at row 1, column 7.
  EXPECT_EQ(c_position(Precision::fp64, 7, 1).row, 1);
  EXPECT_EQ(c_position(Precision::fp64, 7, 1).col, 7);
}

TEST(TensorFragments, ReferenceIsChainsTimesTheProduct) {
  const MmaShape s = mma_shape(Precision::fp64); // 8 x 8 x 4
  std::vector<int> a(s.m * s.k, 0), b(s.k * s.n, 0);
  a[1 * s.k + 2] = 2;  // A[1][2]
  b[2 * s.n + 7] = -1; // B[2][7]
  const std::vector<double> ref = mma_reference(Precision::fp64, a, b, 8);
  // D[1][7] = -2 is element c1 of lane 4 x 1 + 3 = 7; chains 8: -16.
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < 2; ++e)
      EXPECT_EQ(ref[lane * 2 + e], lane == 7 && e == 1 ? -16.0 : 0.0);
  EXPECT_THROW(mma_reference(Precision::fp16, a, b, 8), std::invalid_argument);
}

TEST(TensorTolerance, IntegerSumsTheAccumulatorHoldsAreExact) {
  EXPECT_EQ(tolerance(Precision::int8, 8192, 1e9), 0);
  // k = 8192 products of at most 4: sums below 2^15, exact in FP32 and FP64.
  EXPECT_EQ(tolerance(Precision::bf16, 8192, 8192 * 4), 0);
  EXPECT_EQ(tolerance(Precision::fp8_e4m3, 8192, 8192 * 4), 0);
  EXPECT_EQ(tolerance(Precision::fp64, 8192, 8192 * 4), 0);
  // Past 2^24 the FP32 bound 2 k u sum|ab| applies; FP64 still exact.
  const double big = std::ldexp(1.0, 25);
  EXPECT_DOUBLE_EQ(tolerance(Precision::fp16, 1024, big), 2.0 * 1024 * big / (1 << 24));
  EXPECT_EQ(tolerance(Precision::fp64, 1024, big), 0);
}

TEST(TensorPlan, PointsFollowTheDevicesCapability) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  ASSERT_NE(d->plan, nullptr);
  const auto count = [&](int major, int minor, bool quick, const std::string& how) {
    apod::PlanInput in;
    in.device.cc_major = major, in.device.cc_minor = minor, in.quick = quick;
    int n = 0;
    for (const auto& p : d->plan(in))
      n += p.params.value(method.key, std::string()) == how;
    return n;
  };
  // H100: 6 precisions x (mma point + its peak); cuBLASLt 6 x (4 sizes + peak), 2 sizes in --quick.
  EXPECT_EQ(count(9, 0, false, method_mma), 12);
  EXPECT_EQ(count(9, 0, false, method_library), 30);
  EXPECT_EQ(count(9, 0, true, method_library), 18);
  // A100: no FP8 anywhere; Turing: no mma shape used here, cuBLASLt FP16 and INT8 only.
  EXPECT_EQ(count(8, 0, false, method_mma), 10);
  EXPECT_EQ(count(8, 0, false, method_library), 25);
  EXPECT_EQ(count(7, 5, false, method_mma), 0);
  EXPECT_EQ(count(7, 5, false, method_library), 10);
  // Every cuBLASLt point says when it may be missing; the mma points are always there.
  apod::PlanInput h100;
  for (const auto& p : d->plan(h100))
    EXPECT_EQ(p.when.empty(), p.params[method.key] == method_mma) << p.params.dump();
}

TEST(TensorPlan, TheGemmIntensityParamIsTheModelsFigure) {
  apod::PlanInput h100;
  int checked = 0;
  for (const auto& p : apod::find_declaration(experiment)->plan(h100))
    for (const Precision prec : all_precisions)
      if (p.params.contains(size.key) && p.params[precision.key] == precision_name(prec)) {
        EXPECT_DOUBLE_EQ(p.params[intensity.key].get<double>(),
                         gemm_flops_per_byte(p.params[size.key].get<int>(), prec));
        ++checked;
      }
  EXPECT_EQ(checked, 24);
}
