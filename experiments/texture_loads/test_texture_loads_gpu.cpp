// texture_loads on GPU 0 at reduced size: every point verifies (exact sums, the filtered sums
// within the 8-bit weights' bound, Table 4's addressing), the figures are printed, and an L2 hit
// (ld.global.cg) takes longer than an L1 hit, so the chase's set really is in the L1. Exits 77
// (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace tx = apod::texture;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const std::string& metric,
                        const char* pattern, const char* path) {
  for (const Measurement& m : all)
    if (m.metric == metric && m.params[tx::pattern.key] == pattern &&
        m.params[tx::path.key] == path)
      return &m;
  return nullptr;
}

TEST(TextureLoadsGpu, EveryPointVerifiesAndAnL2HitIsSlowerThanAnL1Hit) {
  const std::vector<Measurement> points = gpu_test::run_reduced(tx::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.metric << " " << m.error;
    std::printf("%-16s %-13s %-20s %10.3f %-6s wrong %s max_err %s\n",
                m.params[tx::pattern.key].get<std::string>().c_str(),
                m.params[tx::path.key].get<std::string>().c_str(), m.metric.c_str(),
                gpu_test::median_of(m), m.unit.c_str(),
                m.extra.contains("elements_wrong") ? m.extra["elements_wrong"].dump().c_str() : "-",
                m.extra.contains("max_abs_error") ? m.extra["max_abs_error"].dump().c_str() : "-");
  }
  const Measurement* l1 = find(points, tx::hit_latency.name, tx::dependent_chase, tx::plain);
  const Measurement* l2 = find(points, tx::hit_latency.name, tx::dependent_chase, tx::ld_cg);
  ASSERT_TRUE(l1 && l2);
  EXPECT_GT(gpu_test::median_of(*l2), 1.5 * gpu_test::median_of(*l1));
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
