// copy_engines on GPU 0 at reduced size: every point verifies, prints its figure, and no rate
// passes its limit (a copy the PCIe line rate per direction, both copies the two directions'
// sum, the kernel the theoretical DRAM bandwidth); both copies at once come to no more than the
// two directions alone, and the cpuFunction() overlap hides no more than the shorter part.
// Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace en = apod::engines;

namespace {

TEST(CopyEnginesGpu, EveryPointVerifiesAndNoRatePassesItsLimit) {
  const std::vector<Measurement> points = gpu_test::run_reduced(en::experiment);
  ASSERT_FALSE(points.empty());
  const DeviceInfo device = query_device(0);
  std::printf("copy engines (asyncEngineCount): %d\n", device.copy_engines);
  const auto pcie = device.theoretical_pcie_gbs();
  const double dram = device.theoretical_bandwidth_gbs();
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    const double median = gpu_test::median_of(m);
    std::printf(
        "%-16s %-8s %-22s %10.4f %s  %s\n", m.params[en::config.key].get<std::string>().c_str(),
        m.params[en::stream.key].get<std::string>().c_str(), m.metric.c_str(), median,
        m.unit.c_str(),
        m.params.contains(en::n_streams.key) ? m.params[en::n_streams.key].dump().c_str() : "");
    if (m.metric == en::copy_bandwidth.name && pcie)
      EXPECT_LE(median, *pcie) << m.params.dump();
    if (m.metric == en::total_copy_bandwidth.name && pcie)
      EXPECT_LE(median, 2 * *pcie) << m.params.dump();
    if (m.metric == en::kernel_bandwidth.name && dram > 0)
      EXPECT_LE(median, dram) << m.params.dump();
    if (m.metric == en::bidirectional_ratio.name) {
      EXPECT_GT(median, 0.3) << m.params.dump();
      EXPECT_LE(median, 1.1) << m.params.dump();
    }
    if (m.metric == en::overlap_fraction.name)
      EXPECT_LE(median, 1.2) << m.params.dump();
  }
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
