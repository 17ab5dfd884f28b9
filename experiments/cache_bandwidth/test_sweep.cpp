// cache_bandwidth's host arithmetic: the sweep visits 16 KiB to 4x the L2, densely around the L1
// and the L2's halves, within its time budget; the level detection finds the L1, the L2 (near
// and far where the curve steps) and DRAM on modelled Hopper curves and no far partition where
// there is none; and the level points recorded are exactly the ones the plan lists.
#include "declaration.hpp"
#include "levels.hpp"
#include "sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

using namespace apod;
using namespace apod::cache_bw;

namespace {

constexpr int64_t h100_shared = 233472, h100_l2 = 52428800;
constexpr int64_t h200_l2 = 62914560;

// Modelled H100 bandwidths in GB/s. Past a capacity a cyclic set hits in the faster level for a
// share capacity / set of its bytes (a random-replacement mix); time per byte adds.
double mix(double ws, double capacity, double inside_gbs, double outside_gbs) {
  if (ws <= capacity)
    return inside_gbs;
  const double hit = capacity / ws;
  return 1.0 / (hit / inside_gbs + (1 - hit) / outside_gbs);
}
constexpr double l1_gbs = 22000, l2_shared_gbs = 7000, near_gbs = 6500, far_gbs = 5200,
                 dram_gbs = 3000;

double per_sm_model(double ws) {
  return mix(ws, 0.875 * h100_shared, l1_gbs, l2_shared_gbs);
}
double gpu_model(double ws, double l2, bool split) {
  const double l2_gbs = !split || ws <= l2 / 2 ? near_gbs : far_gbs;
  return ws <= l2 ? l2_gbs : mix(ws, l2 / 2, far_gbs, dram_gbs);
}

std::vector<double> modelled(const std::vector<size_t>& sets, double (*f)(double)) {
  std::vector<double> out;
  for (size_t s : sets)
    out.push_back(f(double(s)));
  return out;
}
std::vector<double> modelled_gpu(const std::vector<size_t>& sets, double l2, bool split) {
  std::vector<double> out;
  for (size_t s : sets)
    out.push_back(gpu_model(double(s), l2, split));
  return out;
}

size_t count_in(const std::vector<size_t>& sets, double lo, double hi) {
  return size_t(
      std::count_if(sets.begin(), sets.end(), [&](size_t s) { return s >= lo && s <= hi; }));
}

} // namespace

TEST(CacheBandwidthSweep, ReadsFrom16KiBTo4xTheL2DenseAroundTheL1AndTheL2Halves) {
  const auto per_sm = working_sets(per_sm_read, h100_shared, h100_l2, false, false);
  const auto gpu = working_sets(gpu_read, h100_shared, h100_l2, false, false);
  for (const auto* sets : {&per_sm, &gpu}) {
    EXPECT_TRUE(std::is_sorted(sets->begin(), sets->end()));
    EXPECT_EQ(std::adjacent_find(sets->begin(), sets->end()), sets->end());
    for (size_t s : *sets)
      EXPECT_EQ(s % line_bytes, 0u);
  }
  EXPECT_EQ(per_sm.front(), size_t(16) << 10);
  EXPECT_EQ(per_sm.back(), per_sm_last_bytes);
  EXPECT_EQ(gpu.front(), per_sm_last_bytes); // the two curves meet at 1 MiB
  EXPECT_EQ(gpu.back(), size_t(4 * h100_l2));
  // Every power of two from 16 KiB to 4x the L2 is on one curve or the other.
  for (size_t b = size_t(16) << 10; b <= size_t(4 * h100_l2); b *= 2)
    EXPECT_TRUE(std::count(per_sm.begin(), per_sm.end(), b) + std::count(gpu.begin(), gpu.end(), b))
        << b;
  EXPECT_GE(count_in(per_sm, 0.5 * h100_shared, 1.5 * h100_shared), 6u);
  EXPECT_GE(count_in(gpu, 0.375 * h100_l2, 0.65 * h100_l2), 5u); // 32 MiB for 5/8 of the L2
  EXPECT_GE(count_in(gpu, 0.75 * h100_l2, 1.5 * h100_l2), 5u);
  // The H200's larger L2 moves the points with it.
  EXPECT_EQ(working_sets(gpu_read, h100_shared, h200_l2, false, false).back(), size_t(4 * h200_l2));
}

TEST(CacheBandwidthSweep, WritesCoverTheL2AndDramAndQuickAndFullKeepTheirPromises) {
  const auto writes = working_sets(gpu_write, h100_shared, h100_l2, false, false);
  EXPECT_GE(count_in(writes, 1, 0.8 * h100_l2), 3u);             // L2-resident
  EXPECT_GE(count_in(writes, 2.0 * h100_l2, 4.0 * h100_l2), 2u); // DRAM
  for (const char* p : patterns) {
    const auto standard = working_sets(p, h100_shared, h100_l2, false, false);
    const auto full = working_sets(p, h100_shared, h100_l2, false, true);
    const auto quick = working_sets(p, h100_shared, h100_l2, true, false);
    EXPECT_GT(full.size(), standard.size()) << p;
    // --full adds points and never moves the default's, so its default points compare.
    for (size_t s : standard)
      EXPECT_NE(std::find(full.begin(), full.end(), s), full.end()) << p << " " << s;
    EXPECT_LE(quick.size(), 2u) << p;
  }
  EXPECT_THROW(working_sets("strided", h100_shared, h100_l2, false, false), std::invalid_argument);
  EXPECT_THROW(working_sets(gpu_read, 0, h100_l2, false, false), std::invalid_argument);
}

TEST(CacheBandwidthSweep, SamplesMoveTheirTargetInWholePassesAndTheSweepFitsItsBudget) {
  EXPECT_EQ(per_sm_passes(16 << 10, 1056, uint64_t(2) << 30), 125u); // 16 KiB x 1056 blocks
  EXPECT_EQ(per_sm_passes(1 << 20, 1056, uint64_t(2) << 30), 2u);
  EXPECT_EQ(per_sm_passes(1 << 20, 1056, 1), 1u);
  EXPECT_EQ(gpu_laps(1 << 20, uint64_t(1) << 30), 1024u);
  EXPECT_EQ(gpu_laps(size_t(4 * h100_l2), uint64_t(1) << 30), 6u); // 200 MiB: 5.12 laps, rounded up
  EXPECT_EQ(gpu_laps(size_t(8) << 30, uint64_t(1) << 30), 1u);
  // The default sweep at the modelled rates (4 GiB a per-SM sample, 2 GiB a whole-GPU one), 13
  // launches a point (3 warm-up, 10 samples) plus
  // 50 us each for the events and clock probes: within the 1.5 s budget with room to spare.
  double seconds = 0;
  for (size_t s : working_sets(per_sm_read, h100_shared, h100_l2, false, false))
    seconds += 13 * (double(per_sm_passes(s, 1056, uint64_t(4) << 30)) * 1056 * double(s) /
                         (per_sm_model(double(s)) * 1e9) +
                     50e-6);
  for (const char* p : {gpu_read, gpu_write})
    for (size_t s : working_sets(p, h100_shared, h100_l2, false, false))
      seconds += 13 * (double(gpu_laps(s, uint64_t(2) << 30)) * double(s) /
                           (gpu_model(double(s), h100_l2, true) * 1e9) +
                       50e-6);
  EXPECT_LT(seconds, 0.6);
}

TEST(CacheBandwidthLevels, FindsTheL1TheL2sHalvesAndDramOnAModelledHopper) {
  const auto per_sm = working_sets(per_sm_read, h100_shared, h100_l2, false, false);
  const auto gpu = working_sets(gpu_read, h100_shared, h100_l2, false, false);
  const BandwidthLevels l = detect_levels(per_sm, modelled(per_sm, per_sm_model), gpu,
                                          modelled_gpu(gpu, h100_l2, true), h100_l2);
  EXPECT_EQ(l.sizes.l1_bytes, size_t(0.875 * h100_shared) / line_bytes * line_bytes);
  EXPECT_EQ(l.sizes.l2_near_bytes, size_t(h100_l2 / 2));
  EXPECT_EQ(l.sizes.l2_bytes, size_t(h100_l2));
  EXPECT_TRUE(l.sizes.dram_found);
  EXPECT_NEAR(l.l1_gbs, l1_gbs, 1e-6);
  EXPECT_NEAR(l.l2_gbs, near_gbs, 1e-6);
  EXPECT_NEAR(l.l2_far_gbs, far_gbs, 1e-6);
  EXPECT_NEAR(l.dram_gbs, dram_gbs, 0.10 * dram_gbs); // 3x and 4x the L2 still hit it a little
  EXPECT_EQ(l.dram_extent, size_t(4 * h100_l2));
  const L2Halves halves = l2_halves(gpu, modelled_gpu(gpu, h100_l2, true), h100_l2);
  EXPECT_NEAR(halves.far_over_near(), far_gbs / near_gbs, 1e-9);
}

TEST(CacheBandwidthLevels, WithoutAStepTheL2IsOneLevelAndNoiseAddsNone) {
  const auto per_sm = working_sets(per_sm_read, h100_shared, h100_l2, false, false);
  const auto gpu = working_sets(gpu_read, h100_shared, h100_l2, false, false);
  auto y = modelled_gpu(gpu, h100_l2, false);
  for (size_t i = 0; i < y.size(); ++i)
    y[i] *= 1 + 0.01 * ((i * 7919) % 3 - 1.0); // -1%, 0, +1%, deterministic
  const BandwidthLevels l = detect_levels(per_sm, modelled(per_sm, per_sm_model), gpu, y, h100_l2);
  EXPECT_EQ(l.sizes.l2_near_bytes, 0u);
  EXPECT_EQ(l.l2_far_gbs, 0);
  EXPECT_EQ(l.sizes.l2_bytes, size_t(h100_l2));
  EXPECT_TRUE(l.sizes.dram_found);
  EXPECT_NEAR(l2_halves(gpu, y, h100_l2).far_over_near(), 1.0, 0.03);
  EXPECT_EQ(l2_halves({1 << 20}, {100.0}, h100_l2).far_over_near(), 0);
  EXPECT_THROW(detect_levels(per_sm, std::vector<double>(per_sm.size(), 0.0), gpu, y, h100_l2),
               std::invalid_argument);
}

// The medians of the first device run (16:40 UTC, NVIDIA H200, 60 MiB L2, 228 KiB shared per SM,
// version 1: the per-SM points past the L1 read co-resident blocks' lines, so only its L1 part
// stands): the L1 ends at 7/8 of the shared memory, the near L2 at 5/8 of the L2, a far level
// at 7/8; 60-71 MB (flat within 7%, past the L2) is the cliff, not a third L2 level.
TEST(CacheBandwidthLevels, ReadsTheMeasuredH200Curve) {
  const int64_t l2 = 62914560;
  const std::vector<size_t> per_sm = {16384,  32768,  65536,  116736, 131072, 175104, 204288,
                                      233472, 262144, 291840, 350208, 524288, 1048576};
  const std::vector<double> per_sm_gbs = {29075, 29716, 29601, 29264, 29084, 29264, 28798,
                                          23771, 22256, 21853, 22006, 22040, 22210};
  const std::vector<size_t> gpu = {1048576,  2097152,  4194304,   7864320,   8388608,   15728640,
                                   16777216, 23592960, 27525120,  31457280,  33554432,  35389440,
                                   39321600, 47185920, 55050240,  62914560,  67108864,  70778880,
                                   78643200, 94371840, 125829120, 134217728, 188743680, 251658240};
  const std::vector<double> gpu_gbs = {11716, 9827, 9037, 8678, 8948, 8650, 8949, 8568,
                                       8588,  8536, 8593, 8540, 8504, 7873, 7328, 6476,
                                       6203,  6055, 5500, 5279, 4888, 4733, 4692, 4591};
  const BandwidthLevels l = detect_levels(per_sm, per_sm_gbs, gpu, gpu_gbs, l2);
  EXPECT_EQ(l.sizes.l1_bytes, 204288u);
  EXPECT_NEAR(l.l1_gbs, 29264, 300);
  // The reads fall by 12% past 5/8 of the L2 (47-55 MB, 7.6 TB/s) before the cliff: a second
  // L2 level, as memory_latency's ladder finds one on the same H200 (its l2_near 27.5 MB, l2
  // 55 MB).
  EXPECT_EQ(l.sizes.l2_near_bytes, 39321600u);
  EXPECT_EQ(l.sizes.l2_bytes, 55050240u);
  EXPECT_NEAR(l.l2_gbs, 8600, 100);
  EXPECT_NEAR(l.l2_far_gbs, 7600, 50);
  EXPECT_TRUE(l.sizes.dram_found);
  const double theoretical = 4814.3; // the H200's, from its memory clock and bus
  EXPECT_GT(l.dram_gbs / theoretical, 0.90);
  EXPECT_LT(l.dram_gbs / theoretical, 1.0);
  EXPECT_NEAR(l2_halves(gpu, gpu_gbs, l2).far_over_near(), 7873.0 / 8678.0, 1e-9);
}

namespace {

class Collect : public Recorder {
public:
  void record(Measurement m) override { points.push_back(std::move(m)); }
  std::vector<Measurement> points;
};

// Curves of `repetitions` samples each, every sample the model's value scaled by 1 + r/1000.
Curve curve_of(const std::vector<size_t>& sets, const std::vector<double>& gbs, int repetitions) {
  Curve c{sets};
  for (double g : gbs) {
    Series s;
    for (int r = 0; r < repetitions; ++r)
      s.add(g * (1 + r / 1000.0));
    c.add(s, true);
  }
  return c;
}

// The level points recorded, as {metric, level} pairs, and those the plan lists.
std::set<std::pair<std::string, std::string>> recorded(const std::vector<Measurement>& points) {
  std::set<std::pair<std::string, std::string>> out;
  for (const Measurement& m : points)
    out.insert({m.metric, m.params.at(level.key).get<std::string>()});
  return out;
}
std::set<std::pair<std::string, std::string>> planned(bool with_split) {
  std::set<std::pair<std::string, std::string>> out;
  const Declaration* d = find_declaration(experiment);
  for (const PlannedPoint& p : d->plan(PlanInput{}))
    if (p.params.contains(level.key) && (with_split || p.when.empty()))
      for (const std::string& metric : p.metrics)
        out.insert({metric, p.params.at(level.key).get<std::string>()});
  return out;
}

std::vector<Measurement> run_levels(bool split, int repetitions) {
  const DeviceInfo device = nominal_device();
  const RunOptions options;
  Collect out;
  ExperimentContext ctx{device, options, out, experiment, nullptr, find_declaration(experiment)};
  const auto per_sm = working_sets(per_sm_read, h100_shared, h100_l2, false, false);
  const auto gpu = working_sets(gpu_read, h100_shared, h100_l2, false, false);
  record_levels(ctx, curve_of(per_sm, modelled(per_sm, per_sm_model), repetitions),
                curve_of(gpu, modelled_gpu(gpu, h100_l2, split), repetitions));
  return out.points;
}

const Measurement* find(const std::vector<Measurement>& all, const Metric& metric,
                        const std::string& level_name) {
  for (const Measurement& m : all)
    if (m.metric == metric.name && m.params.at(level.key) == level_name)
      return &m;
  return nullptr;
}

} // namespace

TEST(CacheBandwidthLevels, RecordsExactlyThePlannedLevelPointsWithOneSampleARepetition) {
  const auto with_split = run_levels(true, 5);
  EXPECT_EQ(recorded(with_split), planned(true));
  for (const Measurement& m : with_split) {
    EXPECT_TRUE(m.error.empty()) << m.metric << " " << m.params.dump() << ": " << m.error;
    EXPECT_EQ(m.samples.size(), 5u) << m.metric;
  }
  const Measurement* dram = find(with_split, fraction_of_theoretical, dram_level);
  ASSERT_TRUE(dram);
  const double theoretical = nominal_device().theoretical_bandwidth_gbs();
  EXPECT_NEAR(dram->extra.at(keys::limit_gbs).get<double>(), theoretical, 1e-9);
  EXPECT_NEAR(summarize(dram->samples).median, dram_gbs / theoretical,
              0.1 * dram_gbs / theoretical);
  const Measurement* l2_near = find(with_split, detected_size, "l2_near");
  ASSERT_TRUE(l2_near);
  EXPECT_EQ(l2_near->samples.front(), double(h100_l2 / 2));
  const Measurement* l1 = find(with_split, level_bandwidth, "l1");
  ASSERT_TRUE(l1);
  EXPECT_EQ(l1->metric_class, MetricClass::on_chip);
  EXPECT_EQ(find(with_split, level_bandwidth, dram_level)->metric_class,
            MetricClass::device_memory);

  // No far partition: the conditional points are left out, and only they.
  const auto one_l2 = run_levels(false, 3);
  EXPECT_EQ(recorded(one_l2), planned(false));
  EXPECT_FALSE(find(one_l2, level_bandwidth, "l2_far"));
}
