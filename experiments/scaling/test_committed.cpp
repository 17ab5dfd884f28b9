// scaling's claims on the committed runs of both GPU models (committed_runs.hpp): no stored fit
// is an identity of its inputs (each carries its residuals, a standard error above zero and an
// identity check that says no), and the latency curve, one lane per warp, costs a DRAM latency
// per link: within 15% of memory_latency's DRAM figure from the same run.
#include "committed_runs.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace apod;

namespace {

constexpr double latency_bound = 0.15; // |ns per link / memory_latency's DRAM ns - 1|

const Measurement* only(const RunRecord& run, const std::string& experiment,
                        const std::string& metric, const json& params) {
  for (const Measurement* m : committed::points(run, experiment, metric)) {
    bool match = true;
    for (const auto& [key, value] : params.items())
      match = match && m->params.contains(key) && m->params[key] == value;
    if (match)
      return m;
  }
  return nullptr;
}

} // namespace

TEST(ScalingCommitted, NoFitIsAnIdentityAndEveryFitCarriesItsResidualsAndStandardError) {
  for (const auto& batch : committed::batches) {
    const auto runs = committed::runs(batch);
    ASSERT_FALSE(runs.empty()) << batch.gpu;
    for (const RunRecord& run : runs) {
      SCOPED_TRACE(std::string(batch.gpu) + " run " + run.id);
      for (const char* law : {"amdahl", "gustafson"}) {
        const Measurement* p =
            only(run, "scaling", std::string(law) + "_parallel_fraction", {{"law", law}});
        ASSERT_NE(p, nullptr) << law << ": no verified fit";
        const json& check = p->extra.at("identity_check");
        EXPECT_FALSE(check.at("identity").get<bool>()) << law << " " << check.dump();
        EXPECT_GT(check.at("max_relative_residual").get<double>(), 1e-9) << law;
        EXPECT_GT(p->extra.at("standard_error").get<double>(), 0.0) << law;
        EXPECT_GE(p->extra.at("residuals").size(), 3u) << law;
        EXPECT_GE(p->extra.at("degrees_of_freedom").get<int>(), 2) << law;
      }
      const Measurement* p = only(run, "scaling", "amdahl_parallel_fraction", {{"law", "amdahl"}});
      // The serial work spans at least a decade: the largest level's over the smallest's.
      const json& levels = p->extra.at("serial_levels");
      ASSERT_GE(levels.size(), 2u);
      EXPECT_GE(levels.back().at("serial_ratio").get<double>() /
                    levels.front().at("serial_ratio").get<double>(),
                10.0);
    }
  }
}

TEST(ScalingCommitted, OneLanePerWarpCostsMemoryLatencysDramLatencyPerLink) {
  for (const auto& batch : committed::batches) {
    for (const RunRecord& run : committed::runs(batch)) {
      SCOPED_TRACE(std::string(batch.gpu) + " run " + run.id);
      const Measurement* dram = only(run, "memory_latency", "latency_ns", {{"level", "dram"}});
      ASSERT_NE(dram, nullptr);
      const double dram_ns = committed::median(*dram);
      int points = 0;
      for (const Measurement* m : committed::points(run, "scaling", "kernel_ms")) {
        if (m->params.value("curve", "") != "latency")
          continue;
        ++points;
        EXPECT_EQ(m->extra.at("lanes_per_warp"), 1);
        const double ns = m->extra.at("ns_per_link_median").get<double>();
        EXPECT_NEAR(ns / dram_ns - 1, 0.0, latency_bound)
            << ns << " ns a link at " << m->params.dump() << " against " << dram_ns;
      }
      EXPECT_GE(points, 3);
    }
  }
}
