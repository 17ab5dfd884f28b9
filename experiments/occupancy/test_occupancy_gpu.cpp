// occupancy on GPU 0 at reduced size: every point verifies (apod's arithmetic equals the
// occupancy API, no SM held more warps than the API allows, outputs exact), the guide's 10.1.1
// example comes out as the guide says on this device when the kernel's registers round to the
// guide's 1280 per warp, achieved occupancy never exceeds theoretical, and the capped FMA kernel
// spills. Prints every point for the notes. Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace oc = apod::occupancy;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const char* study, int block,
                        const std::string& metric) {
  for (const Measurement& m : all)
    if (m.params[oc::study.key] == study && m.params[oc::block_size.key] == block &&
        m.metric == metric)
      return &m;
  return nullptr;
}

TEST(OccupancyGpu, TheGuidesExampleAndEveryPointsArithmeticHoldOnThisDevice) {
  const std::vector<Measurement> points = gpu_test::run_reduced(oc::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    const json& e = m.extra;
    std::printf("%-18s %-13s block %4d held %3d shared %3d KiB min %d: %10.3f  regs %s local %s "
                "api %s model %s (%s) occ %s seen %s of %s\n",
                m.metric.c_str(), m.params[oc::study.key].get<std::string>().c_str(),
                m.params[oc::block_size.key].get<int>(),
                m.params[oc::held_registers.key].get<int>(),
                m.params[oc::shared_kib.key].get<int>(), m.params[oc::min_blocks.key].get<int>(),
                gpu_test::median_of(m), e.value("registers_per_thread", json()).dump().c_str(),
                e.value("local_bytes_per_thread", json()).dump().c_str(),
                e.value("api_blocks_per_sm", json()).dump().c_str(),
                e.value("model_blocks_per_sm", json()).dump().c_str(),
                e.value("model_limiter", json()).dump().c_str(),
                e.value("model_occupancy", json()).dump().c_str(),
                e.value("max_resident_warps_seen", json()).dump().c_str(),
                e.value("model_warp_capacity", json()).dump().c_str());
    if (m.metric == oc::achieved.name) // residency traces sit inside each warp's residency
      EXPECT_LE(gpu_test::median_of(m), e.value("model_occupancy", 0.0) + 1e-9) << m.params;
  }
  const Measurement* b128 = find(points, oc::guide_study, 128, oc::theoretical.name);
  const Measurement* b320 = find(points, oc::guide_study, 320, oc::theoretical.name);
  ASSERT_TRUE(b128 && b320);
  const DeviceInfo device = query_device(0);
  // SMs of 64 Ki registers, 64 warps and 32 blocks, like the guide's 7.0: 7.0, 8.0 and 9.0.
  const int cc = device.cc_major * 10 + device.cc_minor;
  const bool guide_like_sm = cc == 70 || cc == 80 || cc == 90;
  if (b128->extra.value("in_guide_register_band", false) && guide_like_sm) {
    EXPECT_EQ(b128->extra["api_blocks_per_sm"], 12);
    EXPECT_DOUBLE_EQ(gpu_test::median_of(*b128), 0.75);
    EXPECT_EQ(b320->extra["api_blocks_per_sm"], 4);
    EXPECT_DOUBLE_EQ(gpu_test::median_of(*b320), 0.625);
  }
  // __launch_bounds__(256, 8) caps 64 chains at 32 registers: they spill.
  for (const Measurement& m : points)
    if (m.params[oc::study.key] == oc::spill_study && m.params[oc::min_blocks.key] == 8 &&
        guide_like_sm)
      EXPECT_GT(m.extra.value("local_bytes_per_thread", 0), 0) << m.params;
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
