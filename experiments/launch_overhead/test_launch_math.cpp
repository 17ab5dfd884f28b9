// launch_overhead's host arithmetic (launch_math.cpp): the methods and their batches, a sample's
// time per kernel, and the count the kernels' counter must reach.
#include "declaration.hpp"
#include "launch_math.hpp"

#include "core/catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace apod;
using namespace apod::launch;

namespace {

const Method& find(const std::string& name) {
  for (const Method& m : methods())
    if (m.name == name)
      return m;
  throw std::logic_error("no method " + name);
}

} // namespace

TEST(LaunchMath, GraphsOf10And100And1000KernelsAreMeasured) {
  std::set<int> nodes;
  for (const Method& m : methods())
    if (m.graph())
      nodes.insert(m.kernels_per_call);
  EXPECT_EQ(nodes, (std::set<int>{10, 100, 1000}));
  EXPECT_EQ(find("stream").kernels_per_call, 1);
  EXPECT_FALSE(find("stream").graph());
}

TEST(LaunchMath, OnlyTheClusterLaunchNeedsClustersAndOnlyHostTimingsUseTheSteadyClock) {
  for (const Method& m : methods()) {
    EXPECT_EQ(m.needs_clusters, m.name == "launch_ex_cluster") << m.name;
    EXPECT_EQ(m.events, m.name != "stream_submit" && m.name != "round_trip") << m.name;
  }
}

TEST(LaunchMath, EveryMethodHasALabelInTheDeclaration) {
  for (const Method& m : methods()) {
    bool labelled = false;
    for (const auto& [value, words] : launch::method.labels)
      labelled = labelled || value == m.name;
    EXPECT_TRUE(labelled) << m.name;
  }
}

TEST(LaunchMath, ABatchIsAWholeNumberOfGraphLaunches) {
  for (const bool quick : {false, true})
    for (const Method& m : methods()) {
      const int k = kernels_per_sample(m, quick);
      EXPECT_GE(k, 1);
      EXPECT_EQ(k % m.kernels_per_call, 0) << m.name;
      EXPECT_EQ(graph_launches_per_sample(m, quick) * m.kernels_per_call, k) << m.name;
    }
  EXPECT_EQ(kernels_per_sample(find("graph_1000"), true), 1000); // never under one graph
  EXPECT_EQ(kernels_per_sample(find("graph_1000"), false), 1000);
  EXPECT_EQ(kernels_per_sample(find("graph_10"), false), 200);
  EXPECT_EQ(kernels_per_sample(find("stream"), false), 200);
}

TEST(LaunchMath, HostSubmitStaysUnderTheLaunchQueueDepth) {
  // ~1000 pending launches fill the queue; past it the host waits for the GPU.
  EXPECT_LE(kernels_per_sample(find("stream_submit"), false), 512);
  EXPECT_LE(kernels_per_sample(find("stream_submit"), true), 512);
}

TEST(LaunchMath, PerKernelTimeIsTheSampleOverItsKernelsInMicroseconds) {
  EXPECT_DOUBLE_EQ(per_kernel_us(2.0, 1000), 2.0); // 2 ms over 1000 kernels: 2 us each
  EXPECT_DOUBLE_EQ(per_kernel_us(0.5, 100), 5.0);
  EXPECT_THROW(per_kernel_us(1.0, 0), std::invalid_argument);
}

TEST(LaunchMath, TheCounterCountsBlocksTimesTheirClusterSize) {
  EXPECT_EQ(expected_count(1000, 1, 1), 1000u);
  EXPECT_EQ(expected_count(1000, 2, 2), 4000u); // a cluster of 2: each block adds 2
  EXPECT_NE(expected_count(1000, 2, 2), expected_count(1000, 2, 1)); // no cluster: 2000
}

TEST(LaunchMath, ThePlanListsEveryMethodAndTheClusterPointOnlyWhenClustersExist) {
  const Declaration* d = find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(PlanInput{});
  EXPECT_EQ(points.size(), methods().size());
  int instantiate = 0;
  for (const PlannedPoint& p : points) {
    const bool cluster = p.params[launch::method.key] == "launch_ex_cluster";
    EXPECT_EQ(!p.when.empty(), cluster) << p.params.dump();
    instantiate += p.metrics.size() == 2;
  }
  EXPECT_EQ(instantiate, 3);
  EXPECT_EQ(d->chapter, Chapter::concurrency_launch);
  EXPECT_EQ(d->order, 120);
  for (const Metric& m : d->metrics)
    EXPECT_EQ(m.metric_class, MetricClass::host_phase) << m.name;
  EXPECT_TRUE(declaration_problems(*d).empty());
}
