// GPU-only behaviour of the experiments that set a measurement beside a model (roofline,
// bank_conflicts, l2_persistence): no figure above its theoretical limit (which would mean FLOPs
// or bytes counted wrong), the model stored with every point, and the L2 set-aside given back
// however l2_persistence ends. Exits 77 (skipped) without a GPU.
#include "core/errors.hpp"
#include "core/vocabulary.hpp"
#include "gpu_support.hpp"

#include <cuda_runtime.h>

#include <stdexcept>

using namespace apod;
using gpu_test::Collect;
using gpu_test::reduced;

namespace {

// Fails the experiment at its first record, after it has set everything up.
class FailOnRecord : public Recorder {
public:
  void record(Measurement) override { throw std::runtime_error("recorder failed on purpose"); }
};

std::vector<Measurement> run_quick(const std::string& name) {
  const DeviceInfo device = query_device(0);
  const RunOptions options = reduced();
  Collect out;
  ExperimentContext ctx{device, options, out, name};
  find_experiment(name)->run(ctx);
  return out.measurements;
}

double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

size_t persisting_limit() {
  size_t bytes = 0;
  EXPECT_EQ(cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize), cudaSuccess);
  return bytes;
}

TEST(RooflineOnGpu, NoPointExceedsItsTheoreticalRooflineAndEachCarriesItsModel) {
  int fp32_peak = 0, fp64_peak = 0;
  for (const auto& m : run_quick("roofline")) {
    ASSERT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    if (m.metric == "peak_flop_rate") {
      (m.params["precision"] == "fp32" ? fp32_peak : fp64_peak)++;
      EXPECT_TRUE(m.extra.contains("machine_balance")) << m.params.dump();
      EXPECT_LE(median(m), 1.03 * m.extra[keys::limit].get<double>()) << m.params.dump();
      continue;
    }
    ASSERT_TRUE(m.extra.contains(keys::limit)) << m.params.dump();
    ASSERT_TRUE(m.extra.contains(keys::model)) << m.params.dump();
    EXPECT_LE(m.extra[keys::model].get<double>(), m.extra[keys::limit].get<double>());
    EXPECT_LE(median(m), 1.03 * m.extra[keys::limit].get<double>()) << m.params.dump();
  }
  EXPECT_EQ(fp32_peak, 1);
  EXPECT_EQ(fp64_peak, 1);
}

TEST(BankConflictsOnGpu, NoPointExceeds128BytesPerClockAnd32WayIsFarSlower) {
  double conflict_free = 0, thirty_two_way = 0;
  for (const auto& m : run_quick("bank_conflicts")) {
    ASSERT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    EXPECT_LE(median(m), 1.02 * m.extra[keys::limit].get<double>()) << m.params.dump();
    EXPECT_TRUE(m.extra.contains(keys::model)) << m.params.dump();
    if (m.params["stride_words"] == 1)
      conflict_free = median(m);
    if (m.params["stride_words"] == 32)
      thirty_two_way = median(m);
  }
  ASSERT_GT(conflict_free, 0);
  EXPECT_LT(thirty_two_way, conflict_free / 8) << "a 32-way conflict serialises 32 accesses";
}

TEST(L2PersistenceOnGpu, GivesTheSetAsideBackAfterARun) {
  const DeviceInfo device = query_device(0);
  if (device.cc_major < 8) {
    EXPECT_THROW(run_quick("l2_persistence"), ExperimentSkipped);
    GTEST_SKIP() << "no persisting L2 before compute capability 8.0";
  }
  const size_t before = persisting_limit();
  const auto points = run_quick("l2_persistence");
  EXPECT_EQ(persisting_limit(), before);
  ASSERT_FALSE(points.empty());
  for (const auto& m : points)
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
}

TEST(L2PersistenceOnGpu, GivesTheSetAsideBackWhenItFails) {
  const DeviceInfo device = query_device(0);
  if (device.cc_major < 8)
    GTEST_SKIP() << "no persisting L2 before compute capability 8.0";
  const size_t before = persisting_limit();
  const RunOptions options = reduced();
  FailOnRecord out;
  ExperimentContext ctx{device, options, out, "l2_persistence"};
  EXPECT_THROW(find_experiment("l2_persistence")->run(ctx), std::runtime_error);
  EXPECT_EQ(persisting_limit(), before);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
