// The gpu suite: every registered experiment runs at reduced size (--quick) on GPU 0 and every
// point it records must verify. Without a GPU the whole suite exits 77, which Meson reports as
// skipped, never as passed.
#include "device.hpp"
#include "experiment.hpp"

#include <gtest/gtest.h>

#include <cstdio>

using namespace apod;

namespace {

class Collect : public Recorder {
 public:
  void record(Measurement m) override { measurements.push_back(std::move(m)); }
  std::vector<Measurement> measurements;
};

class GpuExperiment : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuExperiment, RunsAtReducedSizeAndEveryPointVerifies) {
  const ExperimentInfo* info = find_experiment(GetParam());
  ASSERT_NE(info, nullptr);
  const DeviceInfo device = query_device(0);
  RunOptions options;
  options.quick = true;
  options.sampling.min_samples = 3;
  options.sampling.max_samples = 6;
  options.sampling.max_point_s = 0.05;
  options.sampling.warmup = 1;
  Collect out;
  ExperimentContext ctx{device, options, out, info->name};
  ASSERT_NO_THROW(info->run(ctx));
  ASSERT_FALSE(out.measurements.empty());
  for (const auto& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    EXPECT_GE(m.samples.size(), 3u) << m.params.dump();
    for (double v : m.samples) EXPECT_GT(v, 0.0);
  }
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (const auto& e : experiments()) n.push_back(e.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, GpuExperiment, ::testing::ValuesIn(names()),
                         [](const auto& info) { return info.param; });

}  // namespace

int main(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("no CUDA-capable device: gpu suite skipped\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
