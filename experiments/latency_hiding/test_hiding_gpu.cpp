// latency_hiding on GPU 0 at reduced size: the block launch rate is measured and checked, and
// the persistent 64-thread grid at full occupancy is not held to it (the version-1 flaw: one
// block per 64 elements ran at the launch rate). Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

TEST(HidingGpu, PersistentSixtyFourThreadGridOutrunsTheLaunchBound) {
  const ExperimentInfo* info = find_experiment(hiding::experiment);
  ASSERT_NE(info, nullptr);
  const DeviceInfo device = query_device(0);
  const RunOptions options = gpu_test::reduced();
  gpu_test::Collect out;
  ExperimentContext ctx{device, options, out, info->name, nullptr};
  info->run(ctx);
  int rates = 0;
  const Measurement *full = nullptr, *few = nullptr;
  for (const Measurement& m : out.measurements) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    if (m.metric == hiding::block_launch_rate.name) {
      ++rates;
      EXPECT_GT(median(m), 0.2) << m.params.dump();
      EXPECT_LT(median(m), 20.0) << m.params.dump();
    } else if (m.params[hiding::block_size.key] == 64) {
      (m.params[hiding::threads_per_sm.key] == 2048 ? full : few) = &m;
    }
  }
  EXPECT_EQ(rates, 4);
  ASSERT_TRUE(full && few);
  EXPECT_GT(median(*full), 1.5 * full->extra["launch_bound_gbs"].get<double>());
  EXPECT_GT(median(*full), 4 * median(*few)); // 2048 against 128 resident threads per SM
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
