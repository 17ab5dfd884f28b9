// cache_bandwidth on GPU 0 at reduced size: every point verifies (every block's or the grid's sum
// of every loaded word, every written word), and the levels are ordered as the design means them:
// a set inside the L1 read per SM beats the same GPU reading a quarter of the L2, which beats 4x
// the L2 from DRAM, which stays under the theoretical DRAM bandwidth. Prints the curve. Exits 77
// (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace cb = apod::cache_bw;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const char* pattern, bool smallest) {
  const Measurement* out = nullptr;
  for (const Measurement& m : all) {
    if (m.params.value(cb::pattern.key, "") != pattern)
      continue;
    const auto bytes = m.params[cb::working_set.key].get<size_t>();
    if (!out || (smallest ? bytes < out->params[cb::working_set.key].get<size_t>()
                          : bytes > out->params[cb::working_set.key].get<size_t>()))
      out = &m;
  }
  return out;
}

TEST(CacheBandwidthGpu, EveryPointVerifiesAndTheLevelsAreOrdered) {
  const std::vector<Measurement> points = gpu_test::run_reduced(cb::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    std::printf("%-12s %12zu B %10.1f GB/s  %s\n", m.params.value(cb::pattern.key, "").c_str(),
                m.params[cb::working_set.key].get<size_t>(), gpu_test::median_of(m),
                m.extra.value("load", "").c_str());
  }
  const Measurement* l1 = find(points, cb::per_sm_read, true);
  const Measurement* l2 = find(points, cb::gpu_read, true);
  const Measurement* dram = find(points, cb::gpu_read, false);
  ASSERT_TRUE(l1 && l2 && dram);
  EXPECT_GT(gpu_test::median_of(*l1), 1.2 * gpu_test::median_of(*l2));
  EXPECT_GT(gpu_test::median_of(*l2), 1.2 * gpu_test::median_of(*dram));
  const double theoretical = query_device(0).theoretical_bandwidth_gbs();
  if (theoretical > 0)
    EXPECT_LT(gpu_test::median_of(*dram), theoretical);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
