// local_memory on GPU 0 at reduced size: every point verifies, the local versions hold their
// words in local memory (localSizeBytes > 0) and the register versions none, and the kernels'
// SASS (cuobjdump -sass of this very binary) shows why: local loads and stores (LDL, STL) in the
// indexed and the capped kernels, none in their register twins. Prints the counts, which the
// notes quote beside ptxas' spill figures. Exits 77 (skipped) without a GPU; the SASS test skips
// where the toolkit's cuobjdump is absent.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

using namespace apod;
namespace lm = apod::local_memory;

namespace {

TEST(LocalMemoryGpu, EveryPointVerifiesAndTheLocalVersionsUseLocalMemory) {
  const std::vector<Measurement> points = gpu_test::run_reduced(lm::experiment);
  ASSERT_EQ(points.size(), 9u);
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    const bool local = m.params[lm::placement.key] == lm::in_local;
    std::printf("%-17s %-9s %2d words %-18s %9.2f  local %s B, %s registers\n",
                m.params[lm::cause.key].get<std::string>().c_str(),
                m.params[lm::placement.key].get<std::string>().c_str(),
                m.params[lm::words.key].get<int>(), m.metric.c_str(), gpu_test::median_of(m),
                m.extra["local_bytes_per_thread"].dump().c_str(),
                m.extra["registers_per_thread"].dump().c_str());
    if (local)
      EXPECT_GT(m.extra["local_bytes_per_thread"].get<int>(), 0) << m.params.dump();
    else
      EXPECT_EQ(m.extra["local_bytes_per_thread"].get<int>(), 0) << m.params.dump();
  }
}

struct LocalOps {
  int loads = 0, stores = 0, instructions = 0;
};

// LDL and STL of the first function listed for the device's architecture (or any, PTX-only).
LocalOps count_local_ops(const std::string& sass, const std::string& arch) {
  std::string text = sass;
  const size_t at = sass.find("code for " + arch);
  if (at != std::string::npos && sass.find("Function :", at) != std::string::npos)
    text = sass.substr(at);
  static const std::regex op(R"(^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z0-9_]+))");
  LocalOps n;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("Function :") != std::string::npos) {
      if (inside)
        break;
      inside = true;
      continue;
    }
    std::smatch m;
    if (!inside || !std::regex_search(line, m, op))
      continue;
    ++n.instructions;
    n.loads += m[2] == "LDL";
    n.stores += m[2] == "STL";
  }
  return n;
}

TEST(LocalMemoryGpu, TheSassOfTheLocalVersionsLoadsAndStoresLocalMemory) {
  const std::string tool = gpu_test::find_cuobjdump();
  if (tool.empty())
    GTEST_SKIP() << "no cuobjdump on PATH or in /usr/local/cuda/bin";
  const DeviceInfo device = query_device(0);
  const std::string arch =
      "sm_" + std::to_string(device.cc_major) + std::to_string(device.cc_minor);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto ops = [&](const char* kernel) {
    const LocalOps n = count_local_ops(
        gpu_test::run_command(tool + " -sass -fun " + kernel + " '" + self + "' 2>&1"), arch);
    std::printf("SASS (%s) %s: %d instructions, LDL %d, STL %d\n", arch.c_str(), kernel,
                n.instructions, n.loads, n.stores);
    return n;
  };
  const LocalOps spilled = ops(lm::spilled_kernel_name);
  const LocalOps unspilled = ops(lm::unspilled_kernel_name);
  const LocalOps indexed = ops(lm::indexed_kernel_name);
  const LocalOps unrolled = ops(lm::unrolled_kernel_name);
  ASSERT_GT(spilled.instructions, 0);
  ASSERT_GT(unrolled.instructions, 0);
  EXPECT_GT(spilled.loads, 0);
  EXPECT_GT(spilled.stores, 0);
  EXPECT_GT(indexed.loads, 0);
  EXPECT_GT(indexed.stores, 0);
  EXPECT_EQ(unspilled.loads + unspilled.stores, 0);
  EXPECT_EQ(unrolled.loads + unrolled.stores, 0);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
