// memory_latency's own promises, on GPU 0 at reduced size (test_gpu_experiments checks that its
// points verify): it names its L1, near-L2, far-L2 and DRAM points and they rise in that order,
// each sample a full lap on one SM. littles_law and latency_hiding hold theirs in their own folders
// (test_littles_gpu, test_hiding_gpu). Exits 77 (skipped) without a GPU.
#include "core/device.hpp"
#include "core/experiment.hpp"
#include "core/vocabulary.hpp"
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace apod;
using gpu_test::Collect;
using gpu_test::reduced;

namespace {

std::vector<Measurement> run(const std::string& name, const std::vector<Measurement>* earlier) {
  const ExperimentInfo* info = find_experiment(name);
  EXPECT_NE(info, nullptr) << name;
  if (!info)
    return {};
  const DeviceInfo device = query_device(0);
  const RunOptions options = reduced();
  Collect out;
  ExperimentContext ctx{device, options, out, info->name, earlier};
  info->run(ctx);
  for (auto& m : out.measurements)
    m.experiment = name;
  return out.measurements;
}

const Measurement* find(const std::vector<Measurement>& ms, const std::string& metric,
                        const json& params) {
  for (const auto& m : ms) {
    bool match = m.metric == metric;
    for (const auto& [key, value] : params.items())
      match = match && m.params.contains(key) && m.params[key] == value;
    if (match)
      return &m;
  }
  return nullptr;
}

double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

TEST(GpuLatency, MemoryLatencyNamesItsLevelsAndTheyRiseFromL1ToDram) {
  const auto ms = run("memory_latency", nullptr);
  double previous = 0;
  for (const char* level : {"l1", "l2", "l2_far", "dram"}) {
    for (const char* metric : {"latency_ns", "latency_cycles"}) {
      const Measurement* m = find(ms, metric, {{"level", level}});
      ASSERT_NE(m, nullptr) << level << " " << metric;
      EXPECT_TRUE(m->ok()) << level << " " << m->error;
    }
    const double ns = median(*find(ms, "latency_ns", {{"level", level}}));
    EXPECT_GT(ns, previous) << level << " is not slower than the level before it";
    previous = ns;
    const json& extra = find(ms, "latency_ns", {{"level", level}})->extra;
    EXPECT_EQ(extra["samples_wrong"], 0) << level;
    // cycles / ns is the SM clock the chase ran at: between 0.3 and 4 GHz on any such GPU.
    EXPECT_GT(extra["sm_clock_ghz"].get<double>(), 0.3);
    EXPECT_LT(extra["sm_clock_ghz"].get<double>(), 4.0);
  }
  // The ladder: every sample at least a full lap of its set, every set chased on the same SM.
  const json sm = find(ms, "latency_ns", {{"level", "l1"}})->extra["sm"];
  for (const auto& m : ms) {
    EXPECT_GE(m.extra["laps_per_sample"].get<double>(), 1.0) << m.params.dump();
    EXPECT_EQ(m.extra["sm"], sm) << m.params.dump();
  }
}

} // namespace

int main(int argc, char** argv) {
  return apod::gpu_test::run_gpu_tests(argc, argv);
}
