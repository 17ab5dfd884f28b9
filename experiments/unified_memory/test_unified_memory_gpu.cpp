// unified_memory on GPU 0 at reduced size: every point verifies; pages on the device read far
// faster than pages the first touch must migrate, and nothing that crosses the host link beats
// its line rate. Prints every figure (the device call's record). Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/device.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace um = apod::unified;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const std::string& state) {
  for (const Measurement& m : all)
    if (m.metric == um::bandwidth.name && m.params[um::state.key] == state)
      return &m;
  return nullptr;
}

TEST(UnifiedMemoryGpu, ResidentPagesReadFasterThanMigratingOnesAndTheLinkIsNeverBeaten) {
  const DeviceInfo device = query_device(0);
  const std::vector<Measurement> points = gpu_test::run_reduced(um::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    std::printf("%-22s %-20s %10.3f %s  wrong %s\n", m.metric.c_str(),
                m.params[um::state.key].get<std::string>().c_str(), gpu_test::median_of(m),
                m.unit.c_str(), m.extra.value("elements_wrong", json(-1)).dump().c_str());
  }
  const Measurement* resident = find(points, um::resident);
  const Measurement* first_touch = find(points, um::first_touch);
  ASSERT_TRUE(resident && first_touch);
  EXPECT_GT(gpu_test::median_of(*resident), 4 * gpu_test::median_of(*first_touch));
  EXPECT_LT(gpu_test::median_of(*resident), 1.05 * device.theoretical_bandwidth_gbs());
  if (const auto pcie = device.theoretical_pcie_gbs())
    for (const Measurement& m : points)
      if (m.metric == um::bandwidth.name &&
          !um::link_direction(m.params[um::state.key].get<std::string>()).empty())
        EXPECT_LT(gpu_test::median_of(m), 1.05 * *pcie) << m.params.dump();
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
