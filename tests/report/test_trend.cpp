// The achievable peak, the headline series with their run-to-run spread, the history section's
// change points, and the summarised charts of many runs, on the history fixture (10 H200 runs with
// a 10 % step from the 7th and a one-run spike in the 4th; 2 A100 runs, the second without
// peak_copy).
#include "fixtures.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "trend.hpp"

#include <gtest/gtest.h>

namespace apod::report::test {
namespace {

std::string section_of(const std::string& html, const std::string& id) {
  const std::size_t start = html.find("<section id=\"" + id + "\"");
  if (start == std::string::npos)
    return "";
  return html.substr(start, html.find("</section>", start) - start);
}

const HeadlineSeries& series_of(const std::vector<HeadlineSeries>& all,
                                const std::string& experiment, const std::string& metric,
                                const std::string& model) {
  for (const auto& series : all)
    if (series.experiment->name == experiment && series.metric->metric == metric &&
        series.device_model == model)
      return series;
  throw std::runtime_error("no series " + experiment + " " + metric + " " + model);
}

class History : public ::testing::Test {
protected:
  json results = history();
  PageModel page = build_page_model(results, catalog());
  std::vector<HeadlineSeries> headlines = headline_series(page);
  const HeadlineSeries& offset_h200 =
      series_of(headlines, "offset_copy", "effective_bandwidth", "NVIDIA H200");
};

TEST_F(History, EachRunsPeakIsItsVerifiedAchievablePeakPoint) {
  ASSERT_EQ(page.runs.size(), 12u);
  ASSERT_TRUE(page.runs[0].peak_gbs);
  EXPECT_NEAR(*page.runs[0].peak_gbs, 4229.336, 1e-6);
  EXPECT_NEAR(*page.runs[6].peak_gbs, 3817.5185, 1e-6);
  EXPECT_FALSE(page.runs[11].peak_gbs); // the second A100 run did not run peak_copy
  EXPECT_EQ(page.runs_without_peak(), std::vector<std::string>{"a100 (d501a7d1)"});
}

TEST_F(History, DramFiguresArePercentOfTheirOwnRunsPeakOthersAreNot) {
  const PointView& seventh = *offset_h200.points[6];
  ASSERT_TRUE(seventh.pct_of_peak);
  EXPECT_NEAR(*seventh.pct_of_peak, 100.0 * 3570.3365 / 3817.5185, 1e-9);
  EXPECT_NEAR(*seventh.pct_of_limit, 100.0 * 3570.3365 / 4815.2, 1e-9);
  // PCIe transfers and times are never read against the device-memory peak.
  for (const auto& [experiment, metric] :
       {std::pair{"h2d_copy", "effective_bandwidth"}, std::pair{"staged_copy", "elapsed"}})
    for (const auto& point : metric_in(experiment_in(page, experiment), metric).points)
      EXPECT_FALSE(point.pct_of_peak) << experiment;
  // A run without a peak has none, and its rows say so.
  for (const auto& point :
       metric_in(experiment_in(page, "offset_copy"), "effective_bandwidth").points) {
    if (point.run->name == "a100 (d501a7d1)") {
      EXPECT_FALSE(point.pct_of_peak);
    }
  }
}

TEST_F(History, SummaryShowsTheRunToRunSpreadOfEachHeadline) {
  EXPECT_EQ(offset_h200.points.size(), 10u);
  EXPECT_EQ(offset_h200.headline->measurement->params,
            json({{"word_bytes", 4}, {"offset", 8}})); // the newest run's best
  EXPECT_NEAR(offset_h200.median, 3938.53125, 1e-6);
  EXPECT_NEAR(offset_h200.min, 3541.6355, 1e-6);
  EXPECT_NEAR(offset_h200.max, 4540.0215, 1e-6);
  EXPECT_NEAR(*offset_h200.spread_pct(), 100 * (4540.0215 - 3541.6355) / 3938.53125, 1e-9);
  EXPECT_NEAR(*offset_h200.pct_of_limit, 81.79372, 1e-4);
  EXPECT_NEAR(*offset_h200.pct_of_peak, 93.46447, 1e-4);

  const std::string summary = section_of(render_html(results, catalog(), json::array()), "summary");
  for (const char* text :
       {"<th class=\"num\" scope=\"col\">range of runs</th>",
        "<th class=\"num\" scope=\"col\">spread</th>",
        "<th class=\"num\" scope=\"col\">% of achievable peak</th>", "3938.5 GB/s",
        "3541.6 – 4540.0 GB/s", "25.3 %", "81.8 %", "93.5 %", "word_bytes=4 B, offset=8",
        "One run measured no achievable peak; its DRAM figures have no % of "
        "achievable peak: a100 (d501a7d1)."})
    EXPECT_NE(summary.find(text), std::string::npos) << text;
  // The A100's achievable peak was measured in one of its two runs.
  EXPECT_NE(summary.find("1 of 2"), std::string::npos);
}

TEST(SummaryWithoutPeak, ARunWithoutAchievablePeakSaysSoAndGetsNoPeakColumn) {
  const std::string html = render_html(one_run(), catalog(), json::array());
  const std::string summary = section_of(html, "summary");
  EXPECT_NE(summary.find("This run measured no achievable peak (experiment peak_copy, metric "
                         "achievable_peak), so device-memory figures are given as % of "
                         "theoretical only."),
            std::string::npos);
  EXPECT_EQ(html.find("% of achievable peak</th>"), std::string::npos);
  // The tooltip of a DRAM chart says it too.
  const PageModel page = build_page_model(one_run(), catalog());
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  EXPECT_EQ(rows_of(spec, "measured")[0]["pct_peak_text"], "no peak measured");
  EXPECT_NE(spec.dump().find("% of achievable peak"), std::string::npos); // a tooltip's title
}

TEST(FewRunsWithPeak, RowsAndTablesCarryPercentOfPeak) {
  json results = history();
  results["runs"].erase(results["runs"].begin() + 3, results["runs"].end()); // 3 runs: per run
  const PageModel page = build_page_model(results, catalog());
  ASSERT_FALSE(page.summarise_runs());
  const ExperimentView& offset_copy = experiment_in(page, "offset_copy");
  for (const auto& row :
       chart_rows(page, offset_copy, metric_in(offset_copy, "effective_bandwidth"))) {
    ASSERT_TRUE(row["pct_of_peak"].is_number());
    EXPECT_NE(row["pct_peak_text"].get<std::string>().find(" %"), std::string::npos);
  }
  const std::string html = render_html(results, catalog(), json::array());
  const std::string offset = html.substr(html.find("id=\"exp-2-offset_copy\""));
  EXPECT_NE(offset.find("<th class=\"num\" scope=\"col\">% of achievable peak</th>"),
            std::string::npos);
}

TEST_F(History, TheStepIsMarkedAtTheFirstRunOfTheNewLevelAndTheSpikeIsNot) {
  // The fixture's new level holds for 4 runs, one short of the default confirmation window (5:
  // a 4-run excursion that reverts is not a step); a 4-run window shows how a step is drawn.
  StepDetector four_runs;
  four_runs.confirm = 4;
  const auto steps = change_points(offset_h200, four_runs);
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].index, 6); // the 7th run, where the fixture's level drops by 10 %
  EXPECT_NEAR((*steps)[0].change_rel, -0.1, 0.01);

  const json spec = trend_chart_spec(offset_h200, *steps);
  ASSERT_EQ(spec["data"]["values"].size(), 10u);
  EXPECT_NEAR(spec["data"]["values"][3]["median"].get<double>(), 4540.0215, 1e-6); // the spike
  const auto bands = layers_with_mark(spec, "area");
  ASSERT_EQ(bands.size(), 1u);
  EXPECT_EQ(bands[0]["encoding"]["y"]["field"], "ci_low");
  EXPECT_EQ(bands[0]["encoding"]["y2"]["field"], "ci_high");
  const auto rules = layers_with_mark(spec, "rule");
  ASSERT_EQ(rules.size(), 1u);
  ASSERT_EQ(rules[0]["data"]["values"].size(), 1u);
  EXPECT_EQ(rules[0]["data"]["values"][0]["run_index"], 7);

  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_NE(section.find("No change point in 10 runs."), std::string::npos)
      << "4 runs at the new level do not yet confirm a step";
}

TEST_F(History, ASeriesTooShortForADecisionSaysSo) {
  const auto& offset_a100 =
      series_of(headlines, "offset_copy", "effective_bandwidth", "NVIDIA A100-SXM4-40GB");
  EXPECT_FALSE(change_points(offset_a100));
  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_NE(section.find("2 runs: too few for a change-point decision (the detector needs 8: a "
                         "look-back window of 3 runs and 5 runs that confirm a step)."),
            std::string::npos);
}

TEST(HistorySection, OneRunPerModelHasNone) {
  EXPECT_EQ(render_html(one_run(), catalog(), json::array()).find("id=\"history\""),
            std::string::npos);
}

TEST_F(History, PastEightRunsChartsSummariseEachPointAcrossTheRunsOfAModel) {
  ASSERT_TRUE(page.summarise_runs());
  const json spec = spec_for(page, "offset_copy", "effective_bandwidth");
  const auto rows = rows_of(spec, "measured");
  EXPECT_EQ(rows.size(), 36u); // 18 points on each of two models, not 12 runs x 18
  const json& ninth = rows[8]; // word_bytes 4, offset 8: the H200's headline point
  EXPECT_EQ(ninth["x"], 8);
  EXPECT_EQ(ninth["who"], "NVIDIA H200");
  EXPECT_EQ(ninth["facet"], "NVIDIA H200"); // two models and a colour: a panel per model
  EXPECT_EQ(ninth["series"], "4 B");
  EXPECT_EQ(ninth["n_text"], "10 runs");
  EXPECT_NEAR(ninth["y"].get<double>(), 3938.53125, 1e-6); // median of the run medians
  EXPECT_NEAR(ninth["low"].get<double>(), 3541.6355, 1e-6);
  EXPECT_NEAR(ninth["high"].get<double>(), 4540.0215, 1e-6);
  const std::string html = render_html(results, catalog(), json::array());
  EXPECT_NE(html.find("12 runs summarised per device model"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"num\" scope=\"col\">median of runs</th>"), std::string::npos);
}

} // namespace
} // namespace apod::report::test
