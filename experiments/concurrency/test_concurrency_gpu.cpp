// concurrency on GPU 0 at reduced size: every point verifies, one stream runs one kernel at a
// time, two streams run two, and two streams of one context share the GPU without slowing each
// other. Prints every figure (the connection plateau, the created context's, the sharing cases)
// for the notes. Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;
namespace cc = apod::concurrency;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const std::string& metric,
                        const json& params) {
  for (const Measurement& m : all)
    if (m.metric == metric && m.params == params)
      return &m;
  return nullptr;
}

TEST(ConcurrencyGpu, StreamsRunKernelsSideBySideAndEveryPointVerifies) {
  const std::vector<Measurement> points = gpu_test::run_reduced(cc::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    std::printf("%-24s %-40s %8.2f  model %-6s extra %s\n", m.metric.c_str(),
                m.params.dump().c_str(), gpu_test::median_of(m),
                m.extra.contains(keys::model) ? m.extra[keys::model].dump().c_str() : "-",
                m.extra.dump().substr(0, 400).c_str());
  }
  const Measurement* one = find(
      points, cc::peak_kernels.name,
      {{cc::context.key, cc::primary}, {cc::order.key, cc::breadth_first}, {cc::streams.key, 1}});
  const Measurement* two = find(
      points, cc::peak_kernels.name,
      {{cc::context.key, cc::primary}, {cc::order.key, cc::breadth_first}, {cc::streams.key, 2}});
  const Measurement* streams =
      find(points, cc::slowdown.name, {{cc::sharing.key, cc::two_streams}});
  ASSERT_TRUE(one && two && streams);
  EXPECT_EQ(gpu_test::median_of(*one), 1.0);
  EXPECT_EQ(gpu_test::median_of(*two), 2.0);
  EXPECT_LT(gpu_test::median_of(*streams), 1.5);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
