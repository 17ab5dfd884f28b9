// The generic chart of a catalog's ChartSpec and the rules every chart follows: which points,
// which series (never more than max_series), which scales, limits named in words.
#include "context.hpp"
#include "fixtures.hpp"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace apod::report::test {
namespace {

class Charts : public ::testing::Test {
protected:
  json results = one_run();
  json experiments = catalog();
  PageModel page = build_page_model(results, experiments);
};

std::set<std::string> values_of(const std::vector<json>& rows, const char* field) {
  std::set<std::string> values;
  for (const auto& row : rows)
    values.insert(row.at(field).get<std::string>());
  return values;
}

// The point layer: the measured marks with their tooltip.
json point_layer(const json& spec) {
  for (const auto& layer : layers_with_mark(spec, "point"))
    if (layer["encoding"].contains("tooltip") && layer.dump().find("measured") != std::string::npos)
      return layer;
  for (const auto& layer : layers_with_mark(spec, "bar"))
    return layer;
  return json();
}

TEST_F(Charts, DramLimitRuleSitsAtTheDevicesTheoreticalBandwidthNamedInWords) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const auto limits = rows_of(spec, "limit_rule");
  ASSERT_EQ(limits.size(), 1u) << spec.dump(1);
  EXPECT_DOUBLE_EQ(limits[0].at("y").get<double>(), 4815.2);
  EXPECT_EQ(limits[0].at("label"), "theoretical DRAM bandwidth: 4815.2 GB/s");
  // A rule and its words at the right end, both fed by the limit rows.
  EXPECT_EQ(layers_with_mark(spec, "text").size(), 1u);
  EXPECT_NE(layers_with_mark(spec, "rule").back().dump().find("limit_rule"), std::string::npos);
}

TEST_F(Charts, PcieLimitRuleUsesTheoreticalPcieBandwidth) {
  const auto limits = rows_of(spec_for(page, "h2d_copy", "effective_bandwidth"), "limit_rule");
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_DOUBLE_EQ(limits[0]["y"].get<double>(), 63.0);
  EXPECT_EQ(limits[0]["label"], "PCIe line rate per direction: 63.00 GB/s");
}

TEST_F(Charts, NoLimitRuleWithoutALimitOrForUnitsOtherThanGbs) {
  for (const auto& [experiment, metric] : {std::pair{"staged_copy", "elapsed"},    // limit none
                                           std::pair{"h2d_copy", "transfer_time"}, // unit ms
                                           std::pair{"mystery_probe", "effective_bandwidth"}}) {
    const json spec = spec_for(page, experiment, metric);
    EXPECT_TRUE(rows_of(spec, "limit_rule").empty()) << experiment << " " << metric;
    for (const auto& row : rows_of(spec, "measured"))
      EXPECT_FALSE(row.contains("pct_text")) << experiment;
  }
}

TEST_F(Charts, PercentOfTheLimitIsInEveryTooltipInWords) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  for (const auto& row : rows_of(spec, "measured")) {
    const double expected = 100.0 * row.at("y").get<double>() / 4815.2;
    EXPECT_EQ(row.at("pct_text"), fmt::format("{:.1f} % of theoretical DRAM bandwidth", expected));
  }
  EXPECT_NE(point_layer(spec)["encoding"]["tooltip"].dump().find("\"pct_text\""),
            std::string::npos);
}

TEST_F(Charts, LogXWhenTheCatalogAsksBaseTwoForSizes) {
  const json stride_x =
      point_layer(spec_for(page, "stride_copy", "effective_bandwidth"))["encoding"]["x"];
  EXPECT_EQ(stride_x.at("type"), "quantitative");
  EXPECT_EQ(stride_x.at("scale").at("type"), "log");
  EXPECT_EQ(stride_x.at("scale").at("base"), 10);
  EXPECT_EQ(stride_x.at("field"), "x");

  const json size_x =
      point_layer(spec_for(page, "h2d_copy", "effective_bandwidth"))["encoding"]["x"];
  EXPECT_EQ(size_x.at("scale").at("type"), "log");
  EXPECT_EQ(size_x.at("scale").at("base"), 2);
  EXPECT_NE(size_x.at("axis").at("labelExpr").get<std::string>().find("MiB"), std::string::npos);

  const json offset_x =
      point_layer(spec_for(page, "offset_copy", "effective_bandwidth"))["encoding"]["x"];
  EXPECT_FALSE(offset_x.at("scale").contains("type")); // log_x false: linear
  EXPECT_EQ(offset_x.at("axis").at("tickMinStep"), 1); // whole words
}

TEST_F(Charts, LogXFallsBackToSymlogWhenAnXIsZero) {
  declared_chart(experiments, "offset_copy")["log_x"] = true; // offsets start at 0
  const PageModel logged = build_page_model(results, experiments);
  const json x =
      point_layer(spec_for(logged, "offset_copy", "effective_bandwidth"))["encoding"]["x"];
  EXPECT_EQ(x.at("scale").at("type"), "symlog");
}

TEST_F(Charts, ColourSplitsSeriesByTheCatalogsColourParameterInAFixedOrder) {
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const json colour = point_layer(spec)["encoding"].at("color");
  EXPECT_EQ(colour.at("field"), "series");
  EXPECT_EQ(colour.at("title"), "word bytes");
  EXPECT_EQ(colour.at("scale").at("domain"), json({"4 B", "8 B"}));
  EXPECT_EQ(colour.at("scale").at("range").size(), 2u);
  EXPECT_EQ(values_of(rows_of(spec, "measured"), "series"), (std::set<std::string>{"4 B", "8 B"}));
  // Without a colour parameter and with one run there is one series: a fixed colour.
  EXPECT_TRUE(point_layer(spec_for(page, "stride_copy", "effective_bandwidth"))["encoding"]["color"]
                  .contains("value"));
}

TEST(ChartsOfSeveralRuns, RunsApartWhileRunsTimesValuesFitTheSeriesLimit) {
  const PageModel page = build_page_model(three_runs(), catalog());
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const auto series = values_of(rows_of(spec, "measured"), "series");
  EXPECT_EQ(series.size(), 6u); // 3 runs x 2 word sizes
  EXPECT_TRUE(series.count("nightly (0a1b2c3d) · 4 B"));
  EXPECT_TRUE(series.count("baseline'; DROP TABLE runs; -- · 8 B"));
  EXPECT_EQ(point_layer(spec)["encoding"]["color"]["title"], "run · word bytes");
  // Two devices: two rules, each labelled with its device.
  const auto limits = rows_of(spec, "limit_rule");
  ASSERT_EQ(limits.size(), 2u);
  EXPECT_NE(limits[0]["label"].get<std::string>().find(" · NVIDIA "), std::string::npos);
  // A run without a known PCIe bandwidth gets no percentage, the others do.
  for (const auto& row : rows_of(spec_for(page, "h2d_copy", "effective_bandwidth"), "measured"))
    EXPECT_EQ(row.contains("pct_text"), row["who"] != "baseline'; DROP TABLE runs; --");
  // Bars of several runs stand side by side.
  EXPECT_EQ(point_layer(spec_for(page, "staged_copy", "elapsed"))["encoding"]["xOffset"]["field"],
            "series");
}

TEST_F(Charts, FailedAndUnverifiedPointsAreNeverDrawn) {
  const auto rows = rows_of(spec_for(page, "offset_copy", "effective_bandwidth"), "measured");
  EXPECT_EQ(rows.size(), 64u); // 66 stored, one failed, one unverified
  for (const auto& row : rows) {
    EXPECT_FALSE(row["series"] == "8 B" && row["x"] == 7) << "failed point drawn";
    EXPECT_FALSE(row["series"] == "4 B" && row["x"] == 13) << "unverified point drawn";
    EXPECT_TRUE(row.at("y").is_number());
  }
}

TEST_F(Charts, ADeclaredChartWhosePointsLackItsAxisGivesWayToTheGenericChart) {
  // Another version of the experiment stored no "offset": the declared sweep cannot be drawn.
  declared_chart(experiments, "offset_copy")["x"] = "displacement";
  for (json& declaration : experiments["experiments"])
    if (declaration["name"] == "offset_copy")
      declaration["params"].push_back({{"key", "displacement"}, {"title", "displacement"}});
  const PageModel other = build_page_model(results, experiments);
  const auto blocks = experiment_charts(other, experiment_in(other, "offset_copy"));
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(rows_of(blocks[0].spec, "measured").size(), 64u);
  EXPECT_NE(blocks[0].caption.find("effective bandwidth (GB/s) against"), std::string::npos)
      << blocks[0].caption;
}

TEST_F(Charts, BarChartsUseAnOrdinalAxisInMeasuredOrder) {
  const json bars = point_layer(spec_for(page, "staged_copy", "elapsed"));
  EXPECT_EQ(bars["mark"]["type"], "bar");
  EXPECT_EQ(bars["encoding"]["x"]["type"], "ordinal");
  EXPECT_EQ(bars["encoding"]["x"]["scale"]["domain"], json({1, 2, 4, 8}));
}

TEST_F(Charts, EveryLabelAndTitleIsDrawnWhole) {
  const json config = chart_config();
  for (const char* part : {"axis", "legend"}) {
    EXPECT_EQ(config[part]["labelLimit"], 0) << part; // 0: Vega never cuts a label
    EXPECT_EQ(config[part]["titleLimit"], 0) << part;
  }
  EXPECT_EQ(config["header"]["labelLimit"], 0);
}

TEST(VegaLiteField, EscapesPathCharactersInParameterNames) {
  EXPECT_EQ(vega_lite_field("params", "offset"), "params.offset");
  EXPECT_EQ(vega_lite_field("params", "a.b[0]\\c"), "params.a\\.b\\[0\\]\\\\c");
}

// Every chart of every experiment of the matrix, at 1, 3 and 12 runs: no panel of any chart has
// more series than max_series, and no label uses an internal name.
TEST(SeriesLimit, NoChartOfTheMatrixHasMoreSeriesThanTheLimit) {
  const json references = matrix_references();
  const auto figures = published_figures(references);
  json one = matrix();
  one["runs"].erase(one["runs"].begin() + 1, one["runs"].end());
  for (const json& document : {one, matrix(), matrix_many()}) {
    const PageModel page = build_page_model(document, matrix_catalog());
    std::size_t charts = 0;
    for (const auto& experiment : page.experiments)
      for (const auto& block : experiment_charts(page, experiment, figures)) {
        ++charts;
        std::map<std::string, std::set<std::string>> per_panel;
        for (const auto& row : rows_of(block.spec, "measured"))
          per_panel[row.value("facet", "")].insert(row.value("series", ""));
        for (const auto& [panel, series] : per_panel)
          EXPECT_LE(series.size(), max_series)
              << experiment.name << " " << panel << " at " << page.runs.size() << " runs";
        const std::string text = block.spec.dump() + block.caption;
        EXPECT_EQ(text.find("extra."), std::string::npos) << experiment.name;
        EXPECT_EQ(text.find("limit_gbs"), std::string::npos) << experiment.name;
      }
    EXPECT_GE(charts, 16u);
  }
}

TEST(SeriesLimit, PastTheLimitRunsAreSummarisedPerModelInPanels) {
  // 3 runs x 10 transfer series (5 routes, single and batched) > 10: summarised; two models
  // and a colour: a panel per model.
  const PageModel page = build_page_model(matrix(), matrix_catalog());
  const auto blocks = experiment_charts(page, experiment_in(page, "host_transfer"));
  ASSERT_EQ(blocks.size(), 1u);
  const json& spec = blocks[0].spec;
  EXPECT_EQ(spec["facet"]["field"], "facet");
  EXPECT_EQ(spec["facet"]["sort"], json({"NVIDIA H200", "NVIDIA H100 80GB HBM3"}));
  const auto rows = rows_of(spec, "measured");
  EXPECT_EQ(values_of(rows, "series").size(), 10u);
  for (const auto& row : rows) {
    if (row["facet"] == "NVIDIA H200") {
      EXPECT_EQ(row["n_text"], "2 runs");
    }
  }
  // The band of a summarised line spans the run medians.
  EXPECT_FALSE(layers_with_mark(spec, "area").empty());
  EXPECT_NE(blocks[0].caption.find("3 runs summarised per device model"), std::string::npos);
}

TEST(SeriesLimit, AModelIsItsOwnLineWhereItIsTheOnlySplit) {
  const PageModel page = build_page_model(matrix_many(), matrix_catalog());
  ASSERT_TRUE(page.summarise_runs());
  const auto blocks = experiment_charts(page, experiment_in(page, "staged_copy"));
  const json& spec = blocks.at(0).spec;
  EXPECT_FALSE(spec.contains("facet"));
  EXPECT_EQ(values_of(rows_of(spec, "measured"), "series"),
            (std::set<std::string>{"NVIDIA H200", "NVIDIA H100 80GB HBM3"}));
}

} // namespace
} // namespace apod::report::test
