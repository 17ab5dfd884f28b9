// launch_overhead on GPU 0 at reduced size: every point verifies (the counter equals the
// launches made) and the figures keep their order: a launch followed by a synchronisation costs
// more than one of a back-to-back batch, and a kernel inside a graph of 1000 less than a round
// trip. Prints each figure. Exits 77 (skipped) without a GPU.
#include "../../tests/gpu/gpu_support.hpp"
#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace apod;

namespace {

double median_where(const std::vector<Measurement>& points, const std::string& metric,
                    const std::string& method) {
  for (const Measurement& m : points)
    if (m.metric == metric && m.params[launch::method.key] == method)
      return gpu_test::median_of(m);
  return -1;
}

TEST(LaunchOverheadGpu, EveryLaunchIsCountedAndARoundTripCostsMoreThanABackToBackLaunch) {
  const std::vector<Measurement> points = gpu_test::run_reduced(launch::experiment);
  ASSERT_FALSE(points.empty());
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.params.dump() << " " << m.error;
    std::printf("%-18s %-22s %10.3f us  (%s, counted %s)\n",
                m.params[launch::method.key].get<std::string>().c_str(), m.metric.c_str(),
                gpu_test::median_of(m), m.extra.value(launch::timed_by, "?").c_str(),
                m.extra.contains("launches_counted") ? m.extra["launches_counted"].dump().c_str()
                                                     : "-");
  }
  const double stream = median_where(points, launch::launch_time.name, "stream");
  const double round_trip = median_where(points, launch::launch_time.name, "round_trip");
  const double graph = median_where(points, launch::launch_time.name, "graph_1000");
  ASSERT_GT(stream, 0);
  ASSERT_GT(round_trip, 0);
  ASSERT_GT(graph, 0);
  EXPECT_GT(round_trip, stream);
  EXPECT_LT(graph, round_trip);
}

} // namespace

int main(int argc, char** argv) {
  return gpu_test::run_gpu_tests(argc, argv);
}
