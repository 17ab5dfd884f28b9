// latency_hiding on GPU 0 at reduced size: the block launch rate is measured and checked, and
// the persistent 64-thread grid at full occupancy is not held to it (the version-1 flaw: one
// block per 64 elements ran at the launch rate). Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

using namespace apod;

namespace {

TEST(HidingGpu, PersistentSixtyFourThreadGridOutrunsTheLaunchBound) {
  const std::vector<Measurement> points = gpu_test::run_reduced(hiding::experiment);
  ASSERT_FALSE(points.empty());
  int rates = 0;
  const Measurement *full = nullptr, *few = nullptr;
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    if (m.metric == hiding::block_launch_rate.name) {
      ++rates;
      EXPECT_GT(gpu_test::median_of(m), 0.2) << m.params.dump();
      EXPECT_LT(gpu_test::median_of(m), 20.0) << m.params.dump();
    } else if (m.params[hiding::block_size.key] == 64) {
      (m.params[hiding::threads_per_sm.key] == 2048 ? full : few) = &m;
    }
  }
  EXPECT_EQ(rates, 4);
  ASSERT_TRUE(full && few);
  EXPECT_GT(gpu_test::median_of(*full), 1.5 * full->extra["launch_bound_gbs"].get<double>());
  EXPECT_GT(gpu_test::median_of(*full),
            4 * gpu_test::median_of(*few)); // 2048 against 128 resident threads per SM
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
