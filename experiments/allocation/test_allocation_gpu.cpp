// allocation on GPU 0 at reduced size: every allocator at every size verifies (the memory was
// usable and came back), each call took time, and the pool's release threshold is restored
// afterwards. Prints each figure. Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "declaration.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

using namespace apod;

namespace {

uint64_t release_threshold() {
  cudaMemPool_t pool = nullptr;
  uint64_t threshold = 0;
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
            cudaSuccess);
  return threshold;
}

TEST(AllocationGpu, EveryAllocationIsUsableAndFreedAndThePoolIsRestored) {
  const uint64_t before = release_threshold();
  const std::vector<Measurement> points = gpu_test::run_reduced(alloc::experiment);
  EXPECT_EQ(release_threshold(), before);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    std::printf("%-14s %10zu B %-16s %12.3f %s  (free change %s B)\n",
                m.params[alloc::api.key].get<std::string>().c_str(),
                m.params[alloc::bytes.key].get<size_t>(), m.metric.c_str(), gpu_test::median_of(m),
                m.unit.c_str(),
                m.extra.contains("device_free_change_bytes")
                    ? m.extra["device_free_change_bytes"].dump().c_str()
                    : "-");
  }
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
