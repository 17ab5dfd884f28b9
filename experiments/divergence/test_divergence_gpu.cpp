// divergence on GPU 0 at reduced size: every point verifies, a divergent warp of 32 paths runs
// far slower than a uniform one while the predicated short branch does not; and the kernels' SASS
// (cuobjdump -sass of this very binary) shows why: the short branch has no branch but its loop's
// and its exit's, the long branch branches per path. Exits 77 (skipped) without a GPU; the SASS
// test skips where the toolkit's cuobjdump is absent.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"
#include "model.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

using namespace apod;
namespace dv = apod::divergence;

namespace {

const Measurement* find(const std::vector<Measurement>& all, const char* condition, int paths,
                        const char* body) {
  for (const Measurement& m : all)
    if (m.params[dv::condition.key] == condition && m.params[dv::paths.key] == paths &&
        m.params[dv::body.key] == body)
      return &m;
  return nullptr;
}

TEST(DivergenceGpu, DivergentPathsSerialiseAndThePredicatedBranchDoesNot) {
  const std::vector<Measurement> points = gpu_test::run_reduced(dv::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    std::printf("%-12s paths %2d %-5s %9.1f GFMA/s  model %s\n",
                m.params[dv::condition.key].get<std::string>().c_str(),
                m.params[dv::paths.key].get<int>(),
                m.params[dv::body.key].get<std::string>().c_str(), gpu_test::median_of(m),
                m.extra.contains(keys::model) ? m.extra[keys::model].dump().c_str() : "-");
  }
  const Measurement* uniform32 = find(points, dv::uniform, 32, dv::long_body);
  const Measurement* divergent32 = find(points, dv::divergent, 32, dv::long_body);
  const Measurement* short_uniform = find(points, dv::uniform, 2, dv::short_body);
  const Measurement* short_divergent = find(points, dv::divergent, 2, dv::short_body);
  ASSERT_TRUE(uniform32 && divergent32 && short_uniform && short_divergent);
  // 32 paths in turn: 32x by the model; at least 16x leaves room for the path switches.
  EXPECT_GT(gpu_test::median_of(*uniform32), 16 * gpu_test::median_of(*divergent32));
  EXPECT_NEAR(gpu_test::median_of(*short_divergent) / gpu_test::median_of(*short_uniform), 1.0,
              0.1);
}

TEST(DivergenceGpu, ThePredicatedKernelsSassHasNoBranchButItsLoopsAndTheDivergentOneBranches) {
  const std::string tool = gpu_test::find_cuobjdump();
  if (tool.empty())
    GTEST_SKIP() << "no cuobjdump on PATH or in /usr/local/cuda/bin";
  const DeviceInfo device = query_device(0);
  const std::string arch =
      "sm_" + std::to_string(device.cc_major) + std::to_string(device.cc_minor);
  // This binary's own path, resolved here: "/proc/self/exe" on cuobjdump's command line would
  // name cuobjdump itself (no device code), as the first H100 run of this test found.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto sass_of = [&](const char* kernel) {
    return gpu_test::run_command(tool + " -sass -fun " + kernel + " '" + self + "' 2>&1");
  };
  const std::string short_all = sass_of(dv::short_kernel_name);
  const std::string long_all = sass_of(dv::long_kernel_name);
  std::string short_sass = dv::listing_for_arch(short_all, arch);
  std::string long_sass = dv::listing_for_arch(long_all, arch);
  if (short_sass.empty() || long_sass.empty()) // a PTX-only build for this GPU: read any arch
    short_sass = short_all, long_sass = long_all;
  const dv::SassCounts s = dv::count_sass(short_sass), l = dv::count_sass(long_sass);
  std::printf("SASS (%s) %s: %d instructions, BRA %d, BRX %d, predicated %d, FFMA %d, "
              "convergence barriers %d\n",
              arch.c_str(), dv::short_kernel_name, s.instructions, s.bra, s.brx, s.predicated,
              s.ffma, s.convergence);
  std::printf("SASS (%s) %s: %d instructions, BRA %d, BRX %d, predicated %d, FFMA %d, "
              "convergence barriers %d\n",
              arch.c_str(), dv::long_kernel_name, l.instructions, l.bra, l.brx, l.predicated,
              l.ffma, l.convergence);
  ASSERT_GT(s.instructions, 0) << short_all.substr(0, 2000);
  ASSERT_GT(l.instructions, 0) << long_all.substr(0, 2000);
  // The short branch's loop (#pragma unroll 1 over 32 unrolled conditional steps): the guard
  // that skips it when steps <= 0, its back edge, and the self-loop after EXIT; at most 4 BRA
  // (a compiler may split the guard), and no indexed jump. Its 32 conditional FMAs are there,
  // each under a predicate or followed by a select; a branch around each would be 32 more BRA.
  EXPECT_LE(s.bra, 4) << short_sass;
  EXPECT_EQ(s.brx, 0) << short_sass;
  EXPECT_GE(s.ffma, 32) << short_sass;
  // The long branch jumps to one of 32 loops: a branch (or an indexed jump) per path at least.
  EXPECT_GE(l.bra + l.brx, dv::max_paths) << long_sass.substr(0, 4000);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
