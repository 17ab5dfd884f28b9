// The gpu suite: every registered experiment runs at reduced size (--quick) on GPU 0; every point
// it records must verify and match its declaration (the context files a mismatch as a failed
// point saying why: an undeclared metric, param or extra key, another unit), and every point
// must be one its plan names. Without a GPU the whole suite exits 77, which Meson reports as
// skipped, never as passed.
#include "core/errors.hpp"
#include "gpu_support.hpp"

#include <algorithm>
#include <set>

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
  ExperimentContext ctx{device, options, out, info->name, nullptr, info};
  try {
    info->run(ctx);
  } catch (const ExperimentSkipped& e) { // a feature this device lacks: not a failure
    GTEST_SKIP() << e.what();
  }
  ASSERT_FALSE(out.measurements.empty());
  for (const auto& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    EXPECT_EQ(declaration_mismatch(*info, m), "") << m.params.dump();
    EXPECT_EQ(m.metric_class, declared_class(*info, m)) << m.metric << " " << m.params.dump();
    EXPECT_GE(m.samples.size(), 3u) << m.params.dump();
    const Metric* metric = info->find_metric(m.metric);
    const bool zero_is_a_value = metric && metric->zero_is_a_value;
    for (double v : m.samples) // a timing of 0 is a broken one; an exact result's error is 0
      EXPECT_TRUE(zero_is_a_value ? v >= 0.0 : v > 0.0) << m.metric << " " << m.params.dump();
  }
  // Every point is one the plan names: its metric with the same param keys (values the
  // occupancy API or the driver decides, such as partitions, are the plan's estimate).
  ASSERT_NE(info->plan, nullptr);
  PlanInput in;
  in.device = device;
  in.quick = true;
  std::set<std::pair<std::string, std::set<std::string>>> planned;
  for (const PlannedPoint& p : info->plan(in))
    for (const std::string& metric : p.metrics)
      planned.insert({metric, gpu_test::keys_of(p.params)});
  for (const auto& m : out.measurements)
    EXPECT_TRUE(planned.count({m.metric, gpu_test::keys_of(m.params)}))
        << m.metric << " " << m.params.dump() << " is in no point of the plan";
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
  ExperimentContext ctx{device, options, out, info->name, nullptr, info};
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
