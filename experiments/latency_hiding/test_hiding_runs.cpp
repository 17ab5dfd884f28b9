// latency_hiding against the committed runs of both GPU models (experiments/committed_runs.hpp):
// the 64-thread series measures latency hiding, not the block launch rate. In version 1 it was
// flat at 851.0 GB/s on the H100 and 851.2 on the H200 although their DRAM differs 1.44x: one
// 64-thread block per 64 elements ran at 1.65 G blocks/s x 512 bytes. Each claim below fails if
// that comes back.
#include "committed_runs.hpp"
#include "latency_hiding/declaration.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace apod;

namespace {

const Measurement* shape(const RunRecord& run, int block, int threads) {
  for (const Measurement* m : committed::points(run, hiding::experiment, "effective_bandwidth"))
    if (m->params.value(hiding::block_size.key, 0) == block &&
        m->params.value(hiding::threads_per_sm.key, 0) == threads)
      return m;
  return nullptr;
}

// The full-occupancy 64-thread point's median over the batch's runs.
double full_occupancy_64(const committed::Batch& batch) {
  std::vector<double> medians;
  for (const RunRecord& run : committed::runs(batch))
    if (const Measurement* m = shape(run, 64, 2048))
      medians.push_back(committed::median(*m));
  EXPECT_FALSE(medians.empty()) << batch.gpu;
  return medians.empty() ? 0 : summarize(medians).median;
}

TEST(HidingRuns, SixtyFourThreadBlocksBeatTheirLaunchBoundOnEveryRun) {
  for (const committed::Batch& batch : committed::batches)
    for (const RunRecord& run : committed::runs(batch)) {
      const Measurement* full = shape(run, 64, 2048);
      ASSERT_NE(full, nullptr) << batch.gpu << " " << run.id;
      ASSERT_TRUE(full->extra.contains("launch_bound_gbs")) << batch.gpu << " " << run.id;
      // A persistent grid is not started block by block: 1.5x past what the launch rate allows
      // a one-element-per-thread grid (the review's persistent 64-thread grid: 2280 vs 845).
      EXPECT_GT(committed::median(*full), 1.5 * full->extra["launch_bound_gbs"].get<double>())
          << batch.gpu << " " << run.id;
      // And occupancy still matters: 64 resident threads per SM hide a fraction of the latency.
      const Measurement* few = shape(run, 64, 64);
      ASSERT_NE(few, nullptr);
      EXPECT_LT(committed::median(*few), 0.25 * committed::median(*full)) << batch.gpu;
    }
}

TEST(HidingRuns, SixtyFourThreadSeriesFollowsTheDram) {
  // The H200's HBM3e moves 1.44x the H100's HBM3 (4.8 vs 3.35 TB/s); a launch-bound series is
  // the same on both (851.2 / 851.0 = 1.000). At 8 KiB in flight per SM (2048 threads x 4
  // bytes) the copy in littles_law ran 2394 GB/s on the H100 and 2999 on the H200 (1.25x,
  // 2026-11-23): latency-hidden, the H200 is ahead by more than 1.1x.
  const double h100 = full_occupancy_64(committed::batches[0]);
  const double h200 = full_occupancy_64(committed::batches[1]);
  EXPECT_GT(h200, 1.1 * h100) << "H100 " << h100 << " GB/s, H200 " << h200 << " GB/s";
}

TEST(HidingRuns, BlockLaunchRateIsStoredPerBlockSize) {
  for (const committed::Batch& batch : committed::batches)
    for (const RunRecord& run : committed::runs(batch)) {
      std::map<int, double> rate;
      for (const Measurement* m :
           committed::points(run, hiding::experiment, hiding::block_launch_rate.name))
        rate[m->params.value(hiding::block_size.key, 0)] = committed::median(*m);
      ASSERT_TRUE(rate.count(64)) << batch.gpu << " " << run.id;
      // A Hopper GPU starts 0.5 to 10 G small blocks a second (the review: 1.65).
      EXPECT_GT(rate[64], 0.5) << batch.gpu;
      EXPECT_LT(rate[64], 10) << batch.gpu;
    }
}

} // namespace
