// shared_memory on GPU 0 at reduced size: every point verifies; a 32-way conflict runs far
// slower than stride 1 while odd strides and the padded tile do not; no figure passes its limit;
// where clusters exist, a neighbour's shared memory is slower than the block's own.
// Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace sm = apod::smem;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const std::string& metric,
                        const json& params) {
  for (const Measurement& m : all)
    if (m.metric == metric && m.params == params)
      return &m;
  return nullptr;
}

json strided(int bytes, int stride) {
  return {{sm::test.key, sm::strided}, {sm::access_bytes.key, bytes}, {sm::stride.key, stride}};
}

TEST(SharedMemoryGpu, ConflictsSerialiseOddStridesAndPaddingDoNot) {
  const std::vector<Measurement> points = gpu_test::run_reduced(sm::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    const double median = gpu_test::median_of(m);
    std::printf("%-24s %-70s %10.2f %s  model %s limit %s\n", m.metric.c_str(),
                m.params.dump().c_str(), median, m.unit.c_str(),
                m.extra.contains(keys::model) ? m.extra[keys::model].dump().c_str() : "-",
                m.extra.contains(keys::limit_gbs) ? m.extra[keys::limit_gbs].dump().c_str() : "-");
    if (m.extra.contains(keys::limit_gbs)) {
      EXPECT_LT(median, m.extra[keys::limit_gbs].get<double>()) << m.params.dump();
    }
  }
  const Measurement* one = find(points, sm::bandwidth_per_sm.name, strided(4, 1));
  const Measurement* thirty_two = find(points, sm::bandwidth_per_sm.name, strided(4, 32));
  const Measurement* thirty_three = find(points, sm::bandwidth_per_sm.name, strided(4, 33));
  const Measurement* unpadded =
      find(points, sm::bandwidth_per_sm.name, {{sm::test.key, sm::padding}, {sm::pad.key, 0}});
  const Measurement* padded =
      find(points, sm::bandwidth_per_sm.name, {{sm::test.key, sm::padding}, {sm::pad.key, 1}});
  ASSERT_TRUE(one && thirty_two && thirty_three && unpadded && padded);
  // 32 wavefronts against one: at least 16x leaves room for the loop's overheads.
  EXPECT_GT(gpu_test::median_of(*one), 16 * gpu_test::median_of(*thirty_two));
  EXPECT_GT(gpu_test::median_of(*thirty_three), 0.8 * gpu_test::median_of(*one));
  EXPECT_GT(gpu_test::median_of(*padded), 16 * gpu_test::median_of(*unpadded));
  // Padded, a column read is conflict-free: about the stride-1 figure.
  EXPECT_GT(gpu_test::median_of(*padded), 0.8 * gpu_test::median_of(*one));
  // A neighbour's shared memory is reached over the SMs' network: slower than the block's own.
  const json local = {{sm::test.key, sm::distributed},
                      {sm::target.key, sm::local_block},
                      {sm::access_bytes.key, 4}};
  json remote = local;
  remote[sm::target.key] = sm::neighbour_block;
  const Measurement* own = find(points, sm::bandwidth_per_sm.name, local);
  const Measurement* neighbour = find(points, sm::bandwidth_per_sm.name, remote);
  if (own && neighbour) {
    EXPECT_GT(gpu_test::median_of(*own), gpu_test::median_of(*neighbour));
  }
}

} // namespace

int main(int argc, char** argv) {
  return apod::gpu_test::run_gpu_tests(argc, argv);
}
