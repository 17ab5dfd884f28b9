// littles_law on GPU 0 at reduced size: the loaded-latency curve is a curve (the chase verifies,
// latency rises with the background's bandwidth, the unthrottled copy reaches the knee), and the
// model built on it is stored for every persistent launch and for the 90% point. Exits 77
// (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/vocabulary.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace apod;

namespace {

std::vector<Measurement> run_alone() {
  const ExperimentInfo* info = find_experiment(littles::experiment);
  EXPECT_NE(info, nullptr);
  if (!info)
    return {};
  const DeviceInfo device = query_device(0);
  const RunOptions options = gpu_test::reduced();
  gpu_test::Collect out;
  ExperimentContext ctx{device, options, out, info->name, nullptr};
  info->run(ctx);
  return out.measurements;
}

double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

const Measurement* level(const std::vector<Measurement>& ms, const std::string& metric,
                         const char* background, int delay) {
  for (const Measurement& m : ms)
    if (m.metric == metric && m.params.value(littles::background.key, "") == background &&
        m.params.value(littles::delay.key, -1) == delay)
      return &m;
  return nullptr;
}

TEST(LittlesGpu, LoadedLatencyRisesWithTheBackgroundsBandwidth) {
  const auto ms = run_alone();
  const Measurement* idle = level(ms, littles::loaded_latency.name, littles::no_background, 0);
  const Measurement* full = level(ms, littles::loaded_latency.name, littles::copy_background, 0);
  const Measurement* full_gbs =
      level(ms, littles::background_bandwidth.name, littles::copy_background, 0);
  const Measurement* light_gbs =
      level(ms, littles::background_bandwidth.name, littles::copy_background, 160000);
  ASSERT_TRUE(idle && full && full_gbs && light_gbs);
  for (const Measurement* m : {idle, full, full_gbs, light_gbs})
    EXPECT_TRUE(m->ok()) << m->metric << " " << m->params.dump() << " " << m->error;
  // A DRAM chase on any 7.5+ GPU: 200 ns to 2 us per dependent load with nothing else running.
  EXPECT_GT(median(*idle), 200);
  EXPECT_LT(median(*idle), 2000);
  // Queueing: the unthrottled copy at least doubles the wait.
  EXPECT_GT(median(*full), 2 * median(*idle));
  EXPECT_GT(median(*full_gbs), 10 * median(*light_gbs));

  const Measurement* at90 = nullptr;
  double plateau = 0;
  int modelled = 0;
  for (const Measurement& m : ms) {
    if (m.metric == littles::in_flight_per_sm.name)
      at90 = &m;
    if (m.metric == metrics::effective_bandwidth.name &&
        m.params[littles::launch.key] == littles::persistent_launch) {
      EXPECT_TRUE(m.extra.contains(keys::model_gbs)) << m.params.dump();
      modelled += m.extra.contains(keys::model_gbs);
      plateau = m.extra.value("model_peak_gbs", 0.0);
    }
  }
  EXPECT_GE(modelled, 5);
  ASSERT_NE(at90, nullptr);
  EXPECT_TRUE(at90->ok()) << at90->error;
  EXPECT_DOUBLE_EQ(at90->extra["peak_gbs"].get<double>(), plateau);
  // The curve reaches the target, so the model names its 90% point.
  EXPECT_TRUE(at90->extra.contains("model_in_flight_per_sm_kb")) << at90->extra.dump();
  EXPECT_GE(median(*full_gbs), 0.9 * plateau) << "the background never loads DRAM to the knee";
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
