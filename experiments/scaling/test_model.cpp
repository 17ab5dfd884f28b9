// The scaling experiment's host maths (model.cpp): partition sizes, the latency workload's
// pointer chain and how its output is checked, the memory-bound model with its knee; and the
// serial phase (serial_phase.cpp) timed alone.
#include "model.hpp"
#include "serial_phase.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace apod;

TEST(ScalingModel, PartitionStepKeepsHopperAtEveryEightSms) {
  EXPECT_EQ(partition_step(132, 8, 16), 8); // H100 SXM, H200: 8, 16, ..., 128 below 132
  EXPECT_EQ(partition_step(114, 8, 16), 8); // H100 PCIe
  EXPECT_EQ(partition_step(108, 2, 16), 8); // A100 (groups of 2): 13 sizes, not 53
  EXPECT_EQ(partition_step(148, 8, 16), 16);
  EXPECT_EQ(partition_step(16, 8, 16), 8);
  EXPECT_THROW(partition_step(132, 0, 16), std::invalid_argument);
}

TEST(ScalingModel, ChaseChainIsOneCycleThroughEveryIndex) {
  const ChaseChain chain{(1u << 12) - 1};
  std::vector<bool> seen(1u << 12, false);
  uint32_t i = 0;
  for (uint32_t k = 0; k < (1u << 12); ++k) {
    ASSERT_FALSE(seen[i]) << "index " << i << " repeats after " << k << " links";
    seen[i] = true;
    i = chain.next(i);
  }
  EXPECT_EQ(i, 0u); // back at the start after exactly 2^12 links
}

TEST(ScalingModel, SegmentStartsAreWhereTheChaseOfEachSegmentEnds) {
  const ChaseChain chain{(1u << 20) - 1};
  const uint32_t steps = 1000;
  const auto starts = chase_segment_starts(chain, steps, 64);
  ASSERT_EQ(starts.size(), 65u);
  EXPECT_EQ(starts[0], 0u);
  for (size_t k = 0; k < 64; ++k) {
    uint32_t x = starts[k];
    for (uint32_t s = 0; s < steps; ++s)
      x = chain.next(x);
    EXPECT_EQ(x, starts[k + 1]) << "segment " << k;
  }
  // Segments of a whole cycle close it: the last start is the first.
  const auto whole = chase_segment_starts(chain, 1u << 10, 1u << 10);
  EXPECT_EQ(whole.back(), 0u);
}

TEST(ScalingModel, MemoryModelScalesWithSmsUntilTheLimit) {
  // 8 SMs moving 1200 GB/s: 150 per SM; against 3000 GB/s the knee is at 20 SMs.
  const BandwidthModel m{1200, 8, 3000};
  EXPECT_DOUBLE_EQ(m.per_sm_gbs(), 150);
  EXPECT_DOUBLE_EQ(m.knee_sm_count(), 20);
  EXPECT_DOUBLE_EQ(m.gbs(8), 1200);
  EXPECT_DOUBLE_EQ(m.gbs(16), 2400);
  EXPECT_DOUBLE_EQ(m.gbs(24), 3000);
  EXPECT_DOUBLE_EQ(m.speedup(16), 2.0);
  EXPECT_DOUBLE_EQ(m.speedup(132), 2.5);
}

TEST(ScalingModel, MeasuredKneeIsTheFirstPointNearTheTop) {
  const std::vector<int> sms = {8, 16, 24, 32, 40};
  EXPECT_EQ(measured_knee_sm_count(sms, {1200, 2300, 2900, 2950, 2960}, 0.95), 24);
  EXPECT_EQ(measured_knee_sm_count(sms, {1, 2, 3, 4, 5}, 0.95), 40);
  EXPECT_FALSE(measured_knee_sm_count({}, {}, 0.95).has_value());
}

TEST(SerialPhase, TimedAloneGivesUnflaggedSamplesAndAReproducibleResult) {
  const SerialPhase serial(0.05);
  EXPECT_GE(serial.elements(), size_t(1) << 12);
  EXPECT_LE(serial.elements(), size_t(1) << 27);
  const Series ms = serial.sample(6);
  ASSERT_EQ(ms.size(), 6u);
  EXPECT_EQ(ms.used().size(), 6u) << "the GPU monitor has no say over the host's time";
  for (double v : ms.values())
    EXPECT_GT(v, 0.0);
  const double mean = serial.run().mean;
  EXPECT_GT(mean, 0.4); // uniform [0, 1): about 0.5
  EXPECT_LT(mean, 0.6);
  EXPECT_DOUBLE_EQ(serial.run().mean, mean); // the multiplier it feeds is the same every pass
}
