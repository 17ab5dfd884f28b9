// The timing core on a GPU (runner/core/timing.cuh): the SM clock measured over each timed
// region agrees with what a kernel of known length counts, is measured for copies too, stays
// outside the timed region, and host_transfer's points carry their limits. Exits 77 (skipped)
// without a GPU.
#include "core/cuda_memory.cuh"
#include "core/device.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/vocabulary.hpp"
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace apod;

namespace {

// Each block spins for `cycles` of its SM's clock: a region of known length in cycles.
__global__ void spin(long long cycles, int* sink) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && cycles < 0)
    *sink = 1; // never: keeps the loop
}

SamplingPolicy fixed_policy(int samples) {
  SamplingPolicy p;
  p.warmup = 1;
  p.min_samples = samples;
  p.max_samples = samples;
  p.max_point_s = 5;
  p.flush_l2 = false;
  return p;
}

class GpuTiming : public ::testing::Test {
protected:
  void SetUp() override {
    device = query_device(0);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    max_mhz = device.sm_clock_khz / 1e3;
  }
  DeviceInfo device;
  double max_mhz = 0;
};

TEST_F(GpuTiming, TheMeasuredClockCountsTheCyclesOfAKnownRegion) {
  DeviceBuffer<int> sink(1);
  const long long cycles = 4'000'000; // ~2 ms at 2 GHz
  const TimedSamples t = time_samples_ms(fixed_policy(10), nullptr, [&](cudaStream_t s) {
    spin<<<device.sm_count, 32, 0, s>>>(cycles, sink.get());
  });
  ASSERT_EQ(t.sm_clock_mhz.size(), t.ms.size());
  for (size_t i = 0; i < t.ms.size(); ++i) {
    ASSERT_FALSE(std::isnan(t.sm_clock_mhz[i])) << "sample " << i << " has no clock";
    // The clock runs over a slightly longer interval than the events (the stamps sit outside
    // them), so cycles counted = clock x event time is at least the spin, and not much more.
    const double counted = t.sm_clock_mhz[i] * 1e3 * t.ms[i];
    EXPECT_GT(counted / cycles, 0.97)
        << "sample " << i << ": " << t.sm_clock_mhz[i] << " MHz, " << t.ms[i] << " ms";
    EXPECT_LT(counted / cycles, 1.10) << "sample " << i;
    EXPECT_LT(t.sm_clock_mhz[i], 1.05 * max_mhz);
  }
  EXPECT_GT(t.window.busy_s, 0.0);
  const Measurement m = make_measurement({}, metrics::time_ms, t, true);
  EXPECT_EQ(m.extra.at(keys::sm_clock_mhz).size(), m.samples.size());
  std::printf("spin: median %.3f ms, SM clock %s MHz (max %.0f)\n", summarize(t.ms).median,
              m.extra.at(keys::sm_clock_mhz).dump().c_str(), max_mhz);
}

TEST_F(GpuTiming, CopiesGetAClockTooAndItIsPlausible) {
  const size_t bytes = size_t(64) << 20;
  DeviceBuffer<char> device_buffer(bytes);
  PinnedBuffer<char> host(bytes);
  SamplingPolicy p = fixed_policy(10);
  const TimedSamples t = time_fixed_ms(p, nullptr, [&](cudaStream_t s) {
    APOD_CUDA(cudaMemcpyAsync(device_buffer.get(), host.get(), bytes, cudaMemcpyHostToDevice, s));
  });
  int measured = 0;
  for (double mhz : t.sm_clock_mhz)
    if (!std::isnan(mhz)) {
      ++measured;
      EXPECT_GT(mhz, 0.3 * max_mhz) << "an SM clock this low during a copy would flag every sample";
      EXPECT_LT(mhz, 1.05 * max_mhz);
    }
  EXPECT_EQ(measured, int(t.ms.size()));
  EXPECT_EQ(t.noisy, over_ci_target(used_values(t.ms, t.excluded), p.target_ci_rel))
      << "fixed counts are judged by the adaptive rule";
  std::printf("h2d 64 MiB: median %.3f ms, first clock %.0f MHz\n", summarize(t.ms).median,
              t.sm_clock_mhz[0]);
}

TEST_F(GpuTiming, TheProbeStaysOutsideTheTimedRegion) {
  // An empty region: the events see only themselves, a few microseconds, although the probe's
  // two kernels and its wait run on the same stream around them.
  const TimedSamples t = time_samples_ms(fixed_policy(20), nullptr, [](cudaStream_t) {});
  EXPECT_LT(summarize(t.ms).median, 0.02) << "ms";
}

using gpu_test::Collect;

TEST_F(GpuTiming, HostTransferSeparatesSingleAndBatchedAndCarriesBothLimits) {
  const ExperimentInfo* info = find_experiment("host_transfer");
  ASSERT_NE(info, nullptr);
  RunOptions options = gpu_test::reduced();
  Collect out;
  ExperimentContext ctx{device, options, out, info->name};
  ASSERT_NO_THROW(info->run(ctx));
  int single = 0, batched = 0;
  for (const Measurement& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << point_status(m).reason;
    const std::string transfers = m.params.at("transfers");
    (transfers == "batched" ? batched : single)++;
    EXPECT_NE(m.params.at("series").get<std::string>().find("batched"),
              transfers == "batched" ? std::string::npos : 0u);
    EXPECT_TRUE(m.extra.contains(keys::sm_clock_mhz)) << m.params.dump();
    if (!m.extra.contains(keys::attainable_gbs))
      continue;
    const double attainable = m.extra[keys::attainable_gbs], line = m.extra[keys::limit_gbs];
    EXPECT_LT(attainable, line) << "the protocol costs something";
    if (m.params["direction"] != "zero_copy") // a copy engine cannot beat the protocol
      EXPECT_LT(summarize(m.used_samples()).median, 1.02 * attainable) << m.params.dump();
  }
  EXPECT_GT(single, 0);
  EXPECT_GT(batched, 0) << "the quick sizes include transfers under 50 us";
}

} // namespace

int main(int argc, char** argv) {
  return apod::gpu_test::run_gpu_tests(argc, argv);
}
