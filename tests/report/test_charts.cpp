// The Vega-Lite specs: what each chart draws, its scales, and the theoretical-limit rule.
#include "fixtures.hpp"

#include <gtest/gtest.h>

#include <set>

namespace apod::report::test {
namespace {

class Charts : public ::testing::Test {
protected:
  json results = one_run();
  json experiments = catalog();
  PageModel page = build_page_model(results, experiments);
};

TEST_F(Charts, DramLimitRuleSitsAtTheDevicesTheoreticalBandwidth) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const auto rules = layers_with_mark(spec, "rule");
  const json* limit = nullptr;
  for (const auto& rule : rules)
    if (rule.contains("data"))
      limit = &rule;
  ASSERT_NE(limit, nullptr) << spec.dump(1);
  const json& values = limit->at("data").at("values");
  ASSERT_EQ(values.size(), 1u);
  EXPECT_DOUBLE_EQ(values[0].at("limit_gbs").get<double>(), 4815.2);
  EXPECT_EQ(values[0].at("limit_text"), "theoretical DRAM 4815.2 GB/s");
  EXPECT_EQ(limit->at("encoding").at("y").at("field"), "limit_gbs");
  EXPECT_EQ(layers_with_mark(spec, "text").size(), 1u); // its label
}

TEST_F(Charts, PcieLimitRuleUsesTheoreticalPcieBandwidth) {
  const json spec = spec_for(page, "h2d_copy", "effective_bandwidth");
  bool found = false;
  for (const auto& rule : layers_with_mark(spec, "rule"))
    if (rule.contains("data")) {
      EXPECT_DOUBLE_EQ(rule["data"]["values"][0]["limit_gbs"].get<double>(), 63.0);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST_F(Charts, NoLimitRuleWithoutALimitOrForUnitsOtherThanGbs) {
  for (const auto& [experiment, metric] : {std::pair{"staged_copy", "elapsed"},    // limit none
                                           std::pair{"h2d_copy", "transfer_time"}, // unit ms
                                           std::pair{"mystery_probe", "effective_bandwidth"}}) {
    const json spec = spec_for(page, experiment, metric);
    for (const auto& layer : spec.at("layer"))
      EXPECT_FALSE(layer.contains("data")) << experiment << " " << metric;
    for (const auto& row : spec.at("data").at("values"))
      EXPECT_TRUE(row.at("pct_of_theoretical").is_null()) << experiment;
  }
}

TEST_F(Charts, PercentOfTheoreticalIsInEveryRowAndTooltip) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  for (const auto& row : spec.at("data").at("values")) {
    const double expected = 100.0 * row.at("median").get<double>() / 4815.2;
    EXPECT_NEAR(row.at("pct_of_theoretical").get<double>(), expected, 1e-9);
  }
  const json& tooltip = spec.at("layer")[0].at("encoding").at("tooltip");
  EXPECT_NE(tooltip.dump().find("\"pct_text\""), std::string::npos);
  EXPECT_NE(tooltip.dump().find("% of theoretical DRAM"), std::string::npos);
}

TEST_F(Charts, LogXWhenTheCatalogAsksBaseTwoForSizes) {
  const json stride_x =
      spec_for(page, "stride_copy", "effective_bandwidth")["layer"][0]["encoding"]["x"];
  EXPECT_EQ(stride_x.at("type"), "quantitative");
  EXPECT_EQ(stride_x.at("scale").at("type"), "log");
  EXPECT_EQ(stride_x.at("scale").at("base"), 10);
  EXPECT_EQ(stride_x.at("field"), "params.stride");

  const json size_x =
      spec_for(page, "h2d_copy", "effective_bandwidth")["layer"][0]["encoding"]["x"];
  EXPECT_EQ(size_x.at("scale").at("type"), "log");
  EXPECT_EQ(size_x.at("scale").at("base"), 2);
  EXPECT_NE(size_x.at("axis").at("labelExpr").get<std::string>().find("MiB"), std::string::npos);

  const json offset_x =
      spec_for(page, "offset_copy", "effective_bandwidth")["layer"][0]["encoding"]["x"];
  EXPECT_FALSE(offset_x.at("scale").contains("type")); // log_x false: linear
}

TEST_F(Charts, LogXFallsBackToSymlogWhenAnXIsZero) {
  experiments["offset_copy"]["chart"]["log_x"] = true; // offsets start at 0
  const PageModel logged = build_page_model(results, experiments);
  const json x =
      spec_for(logged, "offset_copy", "effective_bandwidth")["layer"][0]["encoding"]["x"];
  EXPECT_EQ(x.at("scale").at("type"), "symlog");
}

TEST_F(Charts, ColourFieldSplitsSeriesByTheCatalogsColourParameter) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const json& colour = spec["layer"][0]["encoding"].at("color");
  EXPECT_EQ(colour.at("field"), "series");
  EXPECT_EQ(colour.at("title"), "word_bytes");
  std::set<std::string> series;
  for (const auto& row : spec["data"]["values"])
    series.insert(row.at("series").get<std::string>());
  EXPECT_EQ(series, (std::set<std::string>{"4 B", "8 B"}));
  // Without a colour parameter and with one run there is one series: no colour at all.
  EXPECT_FALSE(
      spec_for(page, "stride_copy", "effective_bandwidth")["layer"][0]["encoding"].contains(
          "color"));
}

TEST(ChartsOfSeveralRuns, OneSeriesPerRunAndColourValue) {
  const json results = three_runs();
  const PageModel page = build_page_model(results, catalog());
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  EXPECT_EQ(spec["layer"][0]["encoding"]["color"]["title"], "run · word_bytes");
  std::set<std::string> series;
  for (const auto& row : spec["data"]["values"])
    series.insert(row.at("series").get<std::string>());
  EXPECT_EQ(series.size(), 6u);
  EXPECT_TRUE(series.count("nightly (0a1b2c3d) · 4 B"));
  EXPECT_TRUE(series.count("baseline'; DROP TABLE runs; -- · 8 B"));
  // Two devices: two rules, each labelled with its device.
  for (const auto& rule : layers_with_mark(spec, "rule"))
    if (rule.contains("data")) {
      EXPECT_EQ(rule["data"]["values"].size(), 2u);
    }
  // A run without a known PCIe bandwidth gets no percentage, the others do.
  const json h2d = spec_for(page, "h2d_copy", "effective_bandwidth");
  for (const auto& row : h2d["data"]["values"])
    EXPECT_EQ(row["pct_of_theoretical"].is_null(), row["run"] == "baseline'; DROP TABLE runs; --");
  // Bars of several runs stand side by side.
  EXPECT_EQ(spec_for(page, "staged_copy", "elapsed")["layer"][0]["encoding"]["xOffset"]["field"],
            "series");
}

TEST_F(Charts, FailedAndUnverifiedPointsAreNeverDrawn) {
  const json rows = spec_for(page, "offset_copy", "effective_bandwidth")["data"]["values"];
  EXPECT_EQ(rows.size(), 64u); // 66 stored, one failed, one unverified
  for (const auto& row : rows) {
    const json& params = row.at("params");
    EXPECT_FALSE(params["word_bytes"] == 8 && params["offset"] == 7) << "failed point drawn";
    EXPECT_FALSE(params["word_bytes"] == 4 && params["offset"] == 13) << "unverified point drawn";
    EXPECT_TRUE(row.at("median").is_number());
  }
}

TEST_F(Charts, AnExperimentsOwnSpecGetsTheDataAndNoSchemaLookup) {
  const json spec = spec_for(page, "kernel_launch", "launch_latency");
  EXPECT_FALSE(spec.contains("$schema"));
  EXPECT_FALSE(spec.contains("layer"));
  EXPECT_EQ(spec.at("mark").at("type"), "point");
  EXPECT_EQ(spec.at("encoding").at("x").at("field"), "params.blocks");
  EXPECT_EQ(spec.at("data").at("values").size(), 5u);
  EXPECT_EQ(spec.at("width"), "container");
}

TEST_F(Charts, BarChartsUseAnOrdinalAxisInMeasuredOrder) {
  const json x = spec_for(page, "staged_copy", "elapsed")["layer"][0]["encoding"]["x"];
  EXPECT_EQ(x.at("type"), "ordinal");
  EXPECT_TRUE(x.at("sort").is_null());
  EXPECT_EQ(spec_for(page, "staged_copy", "elapsed")["layer"][0]["mark"]["type"], "bar");
}

TEST(VegaLiteField, EscapesPathCharactersInParameterNames) {
  EXPECT_EQ(vega_lite_field("params", "offset"), "params.offset");
  EXPECT_EQ(vega_lite_field("params", "a.b[0]\\c"), "params.a\\.b\\[0\\]\\\\c");
}

} // namespace
} // namespace apod::report::test
