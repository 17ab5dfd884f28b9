// The latency experiments' own promises, on GPU 0 at reduced size (test_gpu_experiments checks
// that their points verify): memory_latency names its L1, near-L2, far-L2 and DRAM points and
// they rise in that order, each sample a full lap on one SM; littles_law models every point from
// the same run's figures, marks the guide's launch and records the 90% point; latency_hiding stores
// the occupancy the API gives, and more resident threads move more bytes. Exits 77 (skipped)
// without a GPU.
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

TEST(GpuLatency, LittlesLawModelsFromTheSameRunsFiguresAndMarksTheGuidesLaunch) {
  // The same run's figures, as the run loop hands them on: a DRAM latency and a peak.
  std::vector<Measurement> earlier = run("memory_latency", nullptr);
  Measurement peak;
  peak.experiment = "peak_copy"; // the experiment that declares the achievable peak
  peak.metric = keys::achievable_peak;
  peak.unit = "GB/s";
  peak.samples = {1000.0, 1000.0, 1000.0};
  peak.verified = true;
  earlier.push_back(peak);
  const double dram_ns = median(*find(earlier, "latency_ns", {{"level", "dram"}}));

  const auto ms = run("littles_law", &earlier);
  EXPECT_EQ(find(ms, "latency_ns", {}), nullptr) << "measured its own latency with one given";
  int bandwidth_points = 0;
  for (const auto& m : ms) {
    if (m.metric != "effective_bandwidth")
      continue;
    ++bandwidth_points;
    ASSERT_TRUE(m.extra.contains(keys::model_gbs)) << m.params.dump();
    EXPECT_LE(m.extra[keys::model_gbs].get<double>(), 1000.0 + 1e-9) << "not capped at the peak";
    EXPECT_DOUBLE_EQ(m.extra["model_latency_ns"].get<double>(), dram_ns);
  }
  EXPECT_GE(bandwidth_points, 5);
  const Measurement* guide =
      find(ms, "effective_bandwidth", {{"launch", "offsetCopy (guide 9.2.1.3)"}});
  ASSERT_NE(guide, nullptr);
  EXPECT_EQ(guide->params["loads_per_thread"], 1);
  EXPECT_EQ(guide->params["word_bytes"], 4);
  for (const char* metric : {"in_flight_per_sm", "device_in_flight"}) {
    const Measurement* at90 = find(ms, metric, {{"fraction_of_peak", 0.9}});
    ASSERT_NE(at90, nullptr) << metric;
    EXPECT_TRUE(at90->ok()) << at90->error; // 900 GB/s is within reach of any 7.5+ GPU's DRAM
  }
}

TEST(GpuLatency, LittlesLawAloneMeasuresItsOwnLatencyAndSaysSo) {
  const auto ms = run("littles_law", nullptr);
  const Measurement* own = find(ms, "latency_ns", {{"level", "dram"}});
  ASSERT_NE(own, nullptr);
  EXPECT_TRUE(own->ok()) << own->error;
  const Measurement* any = find(ms, "effective_bandwidth", {});
  ASSERT_NE(any, nullptr);
  EXPECT_NE(any->extra["model_latency_source"].get<std::string>().find("measured here"),
            std::string::npos);
  EXPECT_NE(any->extra["model_peak_source"].get<std::string>().find("best verified point"),
            std::string::npos);
}

TEST(GpuLatency, LatencyHidingStoresTheApisOccupancyAndMoreThreadsMoveMoreBytes) {
  const auto ms = run("latency_hiding", nullptr);
  for (const auto& m : ms) {
    const int block = m.params["block_size"], threads = m.params["threads_per_sm"];
    EXPECT_EQ(m.extra["resident_blocks_per_sm"].get<int>() * block, threads) << m.params.dump();
    EXPECT_GT(m.extra["occupancy"].get<double>(), 0.0);
    EXPECT_LE(m.extra["occupancy"].get<double>(), 1.0);
  }
  const Measurement* few =
      find(ms, "effective_bandwidth", {{"block_size", 256}, {"threads_per_sm", 256}});
  const Measurement* many =
      find(ms, "effective_bandwidth", {{"block_size", 256}, {"threads_per_sm", 1024}});
  ASSERT_NE(few, nullptr);
  ASSERT_NE(many, nullptr);
  // Little's law: four times the loads in flight; at least 1.2x the bandwidth on any GPU.
  EXPECT_GT(median(*many), 1.2 * median(*few));
}

} // namespace

int main(int argc, char** argv) {
  return apod::gpu_test::run_gpu_tests(argc, argv);
}
