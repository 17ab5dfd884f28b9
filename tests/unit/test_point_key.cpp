// A point's identity (core/point_key.hpp): what makes two measurements the same point, its
// stable text, and the comparability key derived from it, which must reproduce the keys of the
// runs committed in data/runs bit for bit.
#include "core/measurement.hpp"
#include "core/point_key.hpp"

#include <gtest/gtest.h>

#include <set>
#include <unordered_set>

using namespace apod;

namespace {

Measurement point(const std::string& experiment, const std::string& metric, const json& params) {
  Measurement m;
  m.experiment = experiment;
  m.metric = metric;
  m.params = params;
  return m;
}

} // namespace

TEST(PointKey, TheOrderOfTheParametersDoesNotMakeAnotherPoint) {
  const auto a =
      PointKey::of(point("offset_copy", "effective_bandwidth", {{"word_bytes", 4}, {"offset", 1}}));
  const auto b =
      PointKey::of(point("offset_copy", "effective_bandwidth", {{"offset", 1}, {"word_bytes", 4}}));
  EXPECT_EQ(a, b);
  EXPECT_EQ(PointKeyHash{}(a), PointKeyHash{}(b));
  EXPECT_EQ(a.params, R"({"offset":1,"word_bytes":4})");
}

TEST(PointKey, EachPartTellsPointsApart) {
  const auto a = PointKey::of("offset_copy", "effective_bandwidth", {{"offset", 1}});
  EXPECT_NE(a, PointKey::of("stride_copy", "effective_bandwidth", {{"offset", 1}}));
  EXPECT_NE(a, PointKey::of("offset_copy", "latency_ns", {{"offset", 1}}));
  EXPECT_NE(a, PointKey::of("offset_copy", "effective_bandwidth", {{"offset", 2}}));
  EXPECT_NE(a, PointKey::of("offset_copy", "effective_bandwidth", {{"offset", "1"}}));
  const std::set<PointKey> ordered = {a, a, PointKey::of("a", "b", json::object())};
  EXPECT_EQ(ordered.size(), 2u);
  const std::unordered_set<PointKey, PointKeyHash> hashed = {a, a};
  EXPECT_EQ(hashed.size(), 1u);
}

TEST(PointKey, TextIsAJsonArraySoNoNameRunsIntoTheNext) {
  const auto key = PointKey::of("offset_copy", "effective_bandwidth", {{"offset", 1}});
  EXPECT_EQ(key.text(), R"(["offset_copy","effective_bandwidth",{"offset":1}])");
  EXPECT_NE(PointKey::of("a|b", "c", json::object()).text(),
            PointKey::of("a", "b|c", json::object()).text());
  EXPECT_EQ(PointKey::of("bad\xff", "m", json::object()).text(), "[\"bad\xEF\xBF\xBD\",\"m\",{}]")
      << "a stored name that is not UTF-8 does not throw";
}

TEST(Comparability, KeysOfTheCommittedRunsAreReproducedBitForBit) {
  // Points of data/runs/nvidia-h200-20261122-matrix.json.gz and
  // nvidia-h100-20261123-repeat8.json.gz as stored (parameters in their stored order): GPU model,
  // driver branch, experiment, version, parameters, metric and the key the runner stored.
  struct Stored {
    const char *gpu, *branch, *experiment;
    int version;
    const char *params, *metric, *key;
  };
  const Stored stored[] = {
      {"NVIDIA H200", "580", "offset_copy", 1, R"({"word_bytes":4,"offset":3})",
       "effective_bandwidth", "2c1e937ce3da7bc9"},
      {"NVIDIA H200", "580", "host_transfer", 1,
       R"({"direction":"h2d","memory":"pageable","bytes":262144,"series":"h2d pageable"})",
       "effective_bandwidth", "24b9b4819c9c8705"},
      {"NVIDIA H200", "580", "overlap_matrix", 1,
       R"({"n":16384,"kernel":"fast","pinned":1,"mapped":1,"new_stream":0,"config":"mapped/default"})",
       "ratio_to_first_row", "ab287f3e34aadd4b"},
      {"NVIDIA H100 80GB HBM3", "580", "roofline", 1,
       R"({"precision":"fp32","fma_per_element":8,"flops_per_byte":2.0})", "flop_rate",
       "315d01139338b008"},
      {"NVIDIA H100 80GB HBM3", "580", "bank_conflicts", 1,
       R"j({"access":"stride 8 (8-way)","stride_words":8,"conflict_degree":8})j",
       "shared_bytes_per_clock", "561ddc61ecd1f9c5"},
      {"NVIDIA H100 80GB HBM3", "580", "l2_persistence", 1,
       R"({"window":"tuned","persistent_bytes":8192000,"region_over_set_aside":0.25})",
       "effective_bandwidth", "2f84db62cc186c7b"},
  };
  for (const Stored& s : stored) {
    const auto key = PointKey::of(s.experiment, s.metric, json::parse(s.params));
    EXPECT_EQ(comparability_key(s.gpu, s.branch, key, s.version), s.key) << key.text();
    EXPECT_EQ(comparability_key(s.gpu, s.branch, s.experiment, s.version, json::parse(s.params),
                                s.metric),
              s.key)
        << "the runner's form is the same function";
  }
}

TEST(Comparability, TheKeyTakesTheMachineAndVersionBesideThePoint) {
  const auto point = PointKey::of("offset_copy", "effective_bandwidth", {{"offset", 1}});
  const auto a = comparability_key("NVIDIA H200", "580", point, 1);
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, comparability_key("NVIDIA H100", "580", point, 1));
  EXPECT_NE(a, comparability_key("NVIDIA H200", "575", point, 1));
  EXPECT_NE(a, comparability_key("NVIDIA H200", "580", point, 2));
}
