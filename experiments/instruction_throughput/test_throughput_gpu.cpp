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

TEST(ThroughputGpu, NoClassBeatsItsTableAndOneWarpFollowsLittlesLaw) {
  const std::vector<Measurement> points = gpu_test::run_reduced(throughput::experiment);
  ASSERT_FALSE(points.empty());
  std::map<std::string, double> latency;
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    const std::string op = m.params[throughput::op_class.key];
    if (m.metric != throughput::results_per_clock.name) // what it establishes, for the log
      std::printf("%-11s %-22s %10.3f %s (limit %s)\n", op.c_str(), m.metric.c_str(),
                  gpu_test::median_of(m), m.unit.c_str(),
                  m.extra.contains(keys::limit) ? m.extra[keys::limit].dump().c_str() : "none");
    if (m.metric == throughput::latency.name) {
      latency[op] = gpu_test::median_of(m);
      EXPECT_GT(gpu_test::median_of(m), 2.0) << op;
      EXPECT_LT(gpu_test::median_of(m), 200.0) << op;
    }
    if (m.extra.contains(keys::limit) && m.metric != throughput::peak_op_rate.name) {
      EXPECT_LE(gpu_test::median_of(m), 1.02 * m.extra[keys::limit].get<double>())
          << op << m.params.dump();
    }
  }
  EXPECT_EQ(latency.size(), 6u);
  for (const Measurement& m : points)
    if (m.metric == throughput::results_per_clock.name && m.params[throughput::warps.key] == 1 &&
        m.params[throughput::ilp.key] == 1) {
      const std::string op = m.params[throughput::op_class.key];
      const double expected = 32.0 * m.extra["results_per_lane_op"].get<int>() / latency[op];
      std::printf("%-11s one warp, one chain: %.3f results/clk/SM, 32 x r / latency %.3f\n",
                  op.c_str(), gpu_test::median_of(m), expected);
      EXPECT_NEAR(gpu_test::median_of(m), expected, 0.2 * expected) << op;
    }
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
