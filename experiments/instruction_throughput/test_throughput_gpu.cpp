// instruction_throughput on GPU 0 at reduced size: no class beats the Programming Guide's rate
// where the table gives one, latencies are a few to some tens of cycles, and one warp of one chain
// delivers what Little's law says (32 lanes x results per lane / latency). Exits 77 (skipped)
// without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

using namespace apod;

namespace {

double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

TEST(ThroughputGpu, NoClassBeatsItsTableAndOneWarpFollowsLittlesLaw) {
  const ExperimentInfo* info = find_experiment(throughput::experiment);
  ASSERT_NE(info, nullptr);
  const DeviceInfo device = query_device(0);
  const RunOptions options = gpu_test::reduced();
  gpu_test::Collect out;
  ExperimentContext ctx{device, options, out, info->name, nullptr};
  info->run(ctx);
  std::map<std::string, double> latency;
  for (const Measurement& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    const std::string op = m.params[throughput::op_class.key];
    if (m.metric != throughput::results_per_clock.name) // what it establishes, for the log
      std::printf("%-11s %-22s %10.3f %s (limit %s)\n", op.c_str(), m.metric.c_str(), median(m),
                  m.unit.c_str(),
                  m.extra.contains(keys::limit) ? m.extra[keys::limit].dump().c_str() : "none");
    if (m.metric == throughput::latency.name) {
      latency[op] = median(m);
      EXPECT_GT(median(m), 2.0) << op;
      EXPECT_LT(median(m), 200.0) << op;
    }
    if (m.extra.contains(keys::limit) && m.metric != throughput::peak_op_rate.name) {
      EXPECT_LE(median(m), 1.02 * m.extra[keys::limit].get<double>()) << op << m.params.dump();
    }
  }
  EXPECT_EQ(latency.size(), 6u);
  for (const Measurement& m : out.measurements)
    if (m.metric == throughput::results_per_clock.name && m.params[throughput::warps.key] == 1 &&
        m.params[throughput::ilp.key] == 1) {
      const std::string op = m.params[throughput::op_class.key];
      const double expected = 32.0 * m.extra["results_per_lane_op"].get<int>() / latency[op];
      std::printf("%-11s one warp, one chain: %.3f results/clk/SM, 32 x r / latency %.3f\n",
                  op.c_str(), median(m), expected);
      EXPECT_NEAR(median(m), expected, 0.2 * expected) << op;
    }
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
