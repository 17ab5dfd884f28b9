// The memory experiments' contracts on a GPU (issue 12): the L2 flush leaves no dirty lines for
// the timed region; stride_copy's copy points carry their sector model from other points; peak_copy
// records a peak per access type and names the best. Linked into test_gpu_experiments, whose
// main exits 77 (skipped) without a GPU.
#include "core/device.hpp"
#include "core/experiment.hpp"
#include "core/timing.cuh"
#include "core/vocabulary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace apod;

namespace {

// The runner's median (the mean of the middle two of an even count), which peak_copy ranks by: an
// upper median ranked two access types within 0.25% of each other the other way round (H200).
double median(const std::vector<double>& v) {
  return v.empty() ? 0 : summarize(v).median;
}

class DeviceBytes {
public:
  explicit DeviceBytes(size_t bytes) { APOD_CUDA(cudaMalloc(&ptr_, bytes)); }
  ~DeviceBytes() { cudaFree(ptr_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  void* get() const { return ptr_; }

private:
  void* ptr_ = nullptr;
};

// A copy of the L2's size is timed after flush_l2 and after what it replaced, a memset of twice
// the L2, which leaves the cache full of dirty lines: after the memset the copy also writes those
// back, so it is slower, unless the flush leaves dirty lines too.
TEST(L2Flush, LeavesNoDirtyLinesForTheTimedRegion) {
  APOD_CUDA(cudaSetDevice(0));
  int l2 = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  ASSERT_GT(l2, 0);
  const size_t bytes = size_t(l2);
  DeviceBytes src(bytes), dst(bytes), dirty(2 * bytes);
  APOD_CUDA(cudaMemset(src.get(), 0x5A, bytes));
  EventPair events;
  std::vector<double> after_flush_ms, after_memset_ms;
  for (int rep = 0; rep < 41; ++rep) {
    const bool flush = rep % 2 == 0; // interleaved, so a drift of clocks touches both alike
    if (flush)
      flush_l2(nullptr);
    else
      APOD_CUDA(cudaMemsetAsync(dirty.get(), rep & 0xff, 2 * bytes, nullptr));
    events.start(nullptr);
    APOD_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    events.stop(nullptr);
    (flush ? after_flush_ms : after_memset_ms).push_back(events.elapsed_ms());
  }
  const double clean = median(after_flush_ms), dirty_lines = median(after_memset_ms);
  std::printf("copy of %zu bytes: %.4f ms after flush_l2, %.4f ms after a memset of 2x L2\n", bytes,
              clean, dirty_lines);
  EXPECT_LT(clean, 0.97 * dirty_lines);
}

class Collect : public Recorder {
public:
  void record(Measurement m) override { measurements.push_back(std::move(m)); }
  std::vector<Measurement> measurements;
};

std::vector<Measurement> run_quick(const char* name) {
  const ExperimentInfo* info = find_experiment(name);
  if (!info)
    throw std::runtime_error(std::string("no experiment ") + name);
  const DeviceInfo device = query_device(0);
  RunOptions options;
  options.quick = true;
  options.sampling.min_samples = 3;
  options.sampling.max_samples = 6;
  options.sampling.warmup = 1;
  Collect out;
  ExperimentContext ctx{device, options, out, info->name};
  info->run(ctx);
  return std::move(out.measurements);
}

// Every copy point carries the sector model in its extra, made from other points only: the
// reference is peak_copy's rate, the calibrations the gather and scatter at the same stride; the
// L2 fetch limit the probe sets is the device's again afterwards.
TEST(StrideCopy, EveryCopyPointCarriesItsModelFromOtherPointsAndTheFetchLimitIsRestored) {
  size_t limit_before = 0;
  const bool has_limit =
      cudaDeviceGetLimit(&limit_before, cudaLimitMaxL2FetchGranularity) == cudaSuccess;
  cudaGetLastError();
  const auto points = run_quick("stride_copy");
  std::map<std::string, std::map<int, const Measurement*>> by_kernel;
  for (const auto& m : points) {
    ASSERT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    EXPECT_EQ(m.metric, "effective_bandwidth");
    by_kernel[m.params.at("kernel").get<std::string>()][m.params.at("stride").get<int>()] = &m;
  }
  std::set<std::string> kernels;
  for (const auto& [k, strides] : by_kernel)
    kernels.insert(k);
  std::set<std::string> expected{"peak_copy", "gather", "scatter", "saturating", "guide"};
  if (has_limit)
    expected.insert({"gather_l2_fetch_32", "saturating_l2_fetch_32"});
  EXPECT_EQ(kernels, expected);
  const double peak_gbs = median(by_kernel.at("peak_copy").at(1)->samples);
  for (const char* k : {"saturating", "guide"})
    for (const auto& [stride, m] : by_kernel.at(k)) {
      ASSERT_TRUE(m->extra.contains("model_gbs")) << k << " " << stride;
      EXPECT_GT(m->extra.at("model_gbs").get<double>(), 0) << k << " " << stride;
      EXPECT_NEAR(m->extra.at("reference_dram_gbs").get<double>(), peak_gbs, 0.05 * peak_gbs);
      // The parts add up: bytes plus both row costs is the gather's time plus the scatter's.
      const double parts = m->extra.at("model_bytes_ms").get<double>() +
                           m->extra.at("model_row_load_ms").get<double>() +
                           m->extra.at("model_row_store_ms").get<double>();
      const double calibrations =
          m->extra.at("gather_ms").get<double>() + m->extra.at("scatter_ms").get<double>();
      EXPECT_NEAR(parts, calibrations, 1e-9 * calibrations) << k << " " << stride;
      EXPECT_NEAR(m->extra.at("model_ms").get<double>(), parts, 1e-9 * parts);
    }
  if (has_limit) {
    size_t limit_after = 0;
    ASSERT_EQ(cudaDeviceGetLimit(&limit_after, cudaLimitMaxL2FetchGranularity), cudaSuccess);
    EXPECT_EQ(limit_after, limit_before);
    const Measurement* probe = by_kernel.at("gather_l2_fetch_32").at(16);
    EXPECT_EQ(probe->extra.at("l2_fetch_limit_device").get<size_t>(), limit_before);
  }
}

TEST(PeakCopy, RecordsAPeakPerAccessTypeAndNamesTheBest) {
  const auto points = run_quick("peak_copy");
  std::map<std::string, double> peak_of_type;
  const Measurement* best = nullptr;
  for (const auto& m : points) {
    ASSERT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    if (m.metric == keys::access_peak)
      peak_of_type[m.params.at(keys::access_type).get<std::string>()] = median(m.used_samples());
    if (m.metric == keys::achievable_peak)
      best = &m;
  }
  EXPECT_EQ(peak_of_type.size(), 4u);
  for (const char* type : {access::read, access::write, access::copy, access::triad})
    EXPECT_TRUE(peak_of_type.count(type)) << type;
  ASSERT_NE(best, nullptr);
  const std::string type = best->extra.at(keys::access_type).get<std::string>();
  EXPECT_DOUBLE_EQ(median(best->used_samples()), peak_of_type[type]);
  for (const auto& [other, gbs] : peak_of_type)
    EXPECT_GE(peak_of_type[type], gbs) << other;
}

} // namespace
