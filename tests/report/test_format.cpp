// Every figure on the page carries its unit, at a precision a reader can compare.
#include "format.hpp"

#include <gtest/gtest.h>

namespace apod::report {
namespace {

TEST(Format, BandwidthAndTimesCarryTheirUnit) {
  EXPECT_EQ(format_with_unit(4010.24, "GB/s"), "4010.2 GB/s");
  EXPECT_EQ(format_with_unit(55.024, "GB/s"), "55.02 GB/s");
  EXPECT_EQ(format_with_unit(0.0123456, "ms"), "0.0123 ms");
  EXPECT_EQ(format_with_unit(0, "ms"), "0 ms");
  EXPECT_EQ(format_with_unit(3.5, ""), "3.50");
  EXPECT_EQ(format_with_unit(82.318, "%"), "82.3 %");
}

TEST(Format, OperationRatesPastAThousandMoveUpAPrefixBandwidthsKeepGbs) {
  // Issue 25: "63255.6 GFLOP/s" in a rule's words; GPU bandwidths are quoted in GB/s.
  EXPECT_EQ(format_with_unit(63255.6, "GFLOP/s"), "63.26 TFLOP/s");
  EXPECT_EQ(format_with_unit(989000, "GFLOP/s"), "989.0 TFLOP/s");
  EXPECT_EQ(format_with_unit(950, "GFLOP/s"), "950.0 GFLOP/s");
  EXPECT_EQ(format_with_unit(1500, "MOP/s"), "1.50 GOP/s");
  EXPECT_EQ(format_with_unit(4814.3, "GB/s"), "4814.3 GB/s");
}

TEST(Format, DimensionlessFiguresCarryNoUnit) {
  EXPECT_EQ(format_with_unit(0.502, "1"), "0.502") << "not \"0.502 1\"";
  EXPECT_EQ(format_range(0.499, 0.503, "1"), "0.499 – 0.503");
  EXPECT_EQ(metric_title("parallel_fraction", "1"), "parallel fraction");
  EXPECT_EQ(metric_title("amdahl_limit", "x"), "amdahl limit (x)");
  EXPECT_EQ(metric_title("effective_bandwidth", "GB/s"), "effective bandwidth (GB/s)");
}

TEST(Format, BytesInBinaryMultiples) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(62914560), "60 MiB");
  EXPECT_EQ(format_bytes(150110011392.0), "139.8 GiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_with_unit(268435456, "bytes"), "256 MiB");
}

TEST(Format, ParametersNamedBytesAreSizes) {
  EXPECT_EQ(format_param_value("size_bytes", 268435456), "256 MiB");
  EXPECT_EQ(format_param_value("offset", 3), "3");
  EXPECT_EQ(format_param_value("memory", "pinned"), "pinned");
  EXPECT_EQ(format_params(json{{"size_bytes", 4096}, {"memory", "pinned"}}),
            "size_bytes=4 KiB, memory=pinned");
  EXPECT_EQ(format_params(json::object()), "—");
}

TEST(Format, RangesNameTheirUnitOnceUnlessItIsASize) {
  EXPECT_EQ(format_range(3550.58, 4540.56, "GB/s"), "3550.6 – 4540.6 GB/s");
  EXPECT_EQ(format_range(0.0123, 0.02, "ms"), "0.0123 – 0.02 ms");
  // Both ends on the scale format_with_unit picks (issue 25: "64549.8 – 65.04 TFLOP/s").
  EXPECT_EQ(format_range(64549.8, 65040, "GFLOP/s"),
            format_with_unit(64549.8, "GFLOP/s")
                    .substr(0, format_with_unit(64549.8, "GFLOP/s").rfind(' ')) +
                " – " + format_with_unit(65040, "GFLOP/s"));
  EXPECT_EQ(format_range(64549.8, 65040, "GFLOP/s").find("64549"), std::string::npos);
  EXPECT_EQ(format_range(4096, 1048576, "bytes"), "4 KiB – 1 MiB");
  EXPECT_EQ(format_range(80, 90, "%"), "80.0 % – 90.0 %");
}

TEST(Format, TimestampsAndCudaVersions) {
  EXPECT_EQ(format_timestamp("2026-11-22T06:01:02.345Z"), "2026-11-22 06:01:02 UTC");
  EXPECT_EQ(format_timestamp("yesterday"), "yesterday"); // not ours: shown as stored
  EXPECT_EQ(format_timestamp(nullptr), "—");
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(nullptr), "—");
}

} // namespace
} // namespace apod::report
