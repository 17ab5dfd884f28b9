// The gpu suite: every registered experiment runs at reduced size (--quick) on GPU 0 and every
// point it records must verify. Without a GPU the whole suite exits 77, which Meson reports as
// skipped, never as passed.
#include "core/errors.hpp"
#include "gpu_support.hpp"

#include <algorithm>

using namespace apod;
using gpu_test::Collect;
using gpu_test::reduced;

namespace {

class GpuExperiment : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuExperiment, RunsAtReducedSizeAndEveryPointVerifies) {
  const ExperimentInfo* info = find_experiment(GetParam());
  ASSERT_NE(info, nullptr);
  const DeviceInfo device = query_device(0);
  RunOptions options = reduced();
  Collect out;
  ExperimentContext ctx{device, options, out, info->name};
  try {
    info->run(ctx);
  } catch (const ExperimentSkipped& e) { // a feature this device lacks: not a failure
    GTEST_SKIP() << e.what();
  }
  ASSERT_FALSE(out.measurements.empty());
  for (const auto& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    EXPECT_GE(m.samples.size(), 3u) << m.params.dump();
    for (double v : m.samples)
      EXPECT_GT(v, 0.0);
  }
}

// Flags the second sample it is asked about, as if the SM clock had dipped then.
class OneDip : public SampleMonitor {
public:
  uint8_t check() override { return ++calls == 2 ? 1 : 0; }
  int calls = 0;
};

TEST_P(GpuExperiment, AsksTheMonitorAboutItsSamplesAndLeavesFlaggedOnesOut) {
  const ExperimentInfo* info = find_experiment(GetParam());
  ASSERT_NE(info, nullptr);
  const DeviceInfo device = query_device(0);
  RunOptions options = reduced();
  OneDip monitor;
  options.sampling.monitor = &monitor;
  Collect out;
  ExperimentContext ctx{device, options, out, info->name};
  try {
    info->run(ctx);
  } catch (const ExperimentSkipped& e) { // a feature this device lacks: not a failure
    GTEST_SKIP() << e.what();
  }
  EXPECT_GE(monitor.calls, 2) << "the experiment never asked the monitor about its samples";
  int flagged = 0;
  for (const auto& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    if (m.excluded.empty())
      continue;
    EXPECT_EQ(m.excluded.size(), m.samples.size()) << m.metric << " " << m.params.dump();
    for (size_t i = 0; i < m.excluded.size(); ++i)
      flagged += m.excluded[i] != 0;
    EXPECT_EQ(m.used_samples().size(), size_t(std::count(m.excluded.begin(), m.excluded.end(), 0)));
  }
  EXPECT_GE(flagged, 1) << "the dipped sample is not marked in any measurement";
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (const auto& e : experiments())
    n.push_back(e.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, GpuExperiment, ::testing::ValuesIn(names()),
                         [](const auto& info) { return info.param; });

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
