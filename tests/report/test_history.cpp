// The history as a timeline (report/timeline.cpp, charts/history.cpp, sections/history.cpp) on the
// history fixture (10 H200 runs with a 10 % step from the 7th and a one-run spike in the 4th; 2
// A100 runs, the second without peak_copy), and the per-run figures it rests on: each run's
// achievable peak and % of it, the headline series with their run-to-run spread, and the charts
// of many runs summarised per device model.
#include "charts/chart.hpp"
#include "charts/history.hpp"
#include "fixtures.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "timeline.hpp"

#include <fmt/format.h>
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

const FigureHistory& figure_of(const Timeline& timeline, const std::string& experiment,
                               const std::string& model, const json& params) {
  for (const auto& figure : timeline.figures)
    if (figure.experiment->name == experiment && figure.model == model && *figure.params == params)
      return figure;
  throw std::runtime_error("no figure " + experiment + " " + params.dump());
}

class History : public ::testing::Test {
protected:
  json results = history();
  PageModel page = build_page_model(results, catalog());
  std::vector<HeadlineSeries> headlines = headline_series(page);
  const HeadlineSeries& offset_h200 =
      series_of(headlines, "offset_copy", "effective_bandwidth", "NVIDIA H200");
  BaselineVerdict no_baseline = baseline_verdict(page, "");
  Timeline timeline = build_timeline(page, headlines, no_baseline);
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
  for (const auto& [experiment, metric] :
       {std::pair{"h2d_copy", "effective_bandwidth"}, std::pair{"staged_copy", "elapsed"}})
    for (const auto& point : metric_in(experiment_in(page, experiment), metric).points)
      EXPECT_FALSE(point.pct_of_peak) << experiment;
}

TEST_F(History, SummaryShowsTheRunToRunSpreadOfEachHeadline) {
  EXPECT_EQ(offset_h200.points.size(), 10u);
  EXPECT_EQ(offset_h200.headline->measurement->params, json({{"word_bytes", 4}, {"offset", 8}}));
  EXPECT_NEAR(offset_h200.median, 3938.53125, 1e-6);
  EXPECT_NEAR(*offset_h200.spread_pct(), 100 * (4540.0215 - 3541.6355) / 3938.53125, 1e-9);
  const std::string summary = section_of(render_html(results, catalog(), json::array()), "summary");
  for (const char* text : {"<th class=\"num\" scope=\"col\">spread</th>", "3541.6 – 4540.0 GB/s",
                           "25.3 %", "81.8 %", "93.5 %", "word_bytes=4 B, offset=8", "1 of 2",
                           "One run measured no achievable peak; its DRAM figures have no % of "
                           "achievable peak: a100 (d501a7d1)."})
    EXPECT_NE(summary.find(text), std::string::npos) << text;
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
  for (const auto& row :
       rows_of(spec_for(page, "offset_copy", "effective_bandwidth"), "measured")) {
    EXPECT_NE(row["pct_peak_text"].get<std::string>().find(" %"), std::string::npos);
  }
  const std::string html = render_html(results, catalog(), json::array());
  const std::string offset = html.substr(html.find("id=\"exp-2-offset_copy\""));
  EXPECT_NE(offset.find("<th class=\"num\" scope=\"col\">% of achievable peak</th>"),
            std::string::npos);
}

TEST_F(History, EveryFigureMeasuredTwiceHasARowHeadlinesFirst) {
  // Every (experiment, metric, parameters) the H200 measured in its runs: 49 a run, all in 10.
  std::size_t h200 = 0;
  for (const auto& figure : timeline.figures)
    h200 += figure.model == "NVIDIA H200";
  EXPECT_EQ(h200, 49u);
  // The headline figures come first, one per headline series of the model.
  std::size_t headline_series_h200 = 0;
  for (const auto& series : headlines)
    headline_series_h200 += series.device_model == "NVIDIA H200";
  for (std::size_t i = 0; i < headline_series_h200; ++i)
    EXPECT_TRUE(timeline.figures[i].headline) << i;
  EXPECT_FALSE(timeline.figures[headline_series_h200].headline);
  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_EQ(count(section, "<details class=\"figure-row\">"), timeline.figures.size());
  EXPECT_EQ(count(section, "<svg class=\"spark\""), timeline.figures.size());
}

TEST_F(History, TheStepIsMarkedAtTheFirstRunOfTheNewLevelAndTheSpikeIsNot) {
  // The fixture's new level holds for 4 runs, one short of the default confirmation window (5:
  // a 4-run excursion that reverts is not a step); a 4-run window shows how a step is drawn.
  StepDetector four_runs;
  four_runs.confirm = 4;
  const Timeline timeline = build_timeline(page, headlines, no_baseline, four_runs);
  const FigureHistory& offset =
      figure_of(timeline, "offset_copy", "NVIDIA H200", {{"word_bytes", 4}, {"offset", 8}});
  ASSERT_EQ(offset.series.size(), 1u);
  const auto& steps = offset.series[0].steps;
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].index, 6); // the 7th run, where the fixture's level drops by 10 %
  EXPECT_NEAR((*steps)[0].change_rel, -0.1, 0.01);
  // The chart on demand marks it at that run, and draws every run with its interval.
  const json chart = figure_chart(offset, no_baseline);
  EXPECT_EQ(chart["base"], "band");
  const json& steps_data = chart["datasets"]["steps"];
  ASSERT_EQ(steps_data.size(), 1u);
  EXPECT_EQ(steps_data[0]["r"], page.runs[6].index);
  const json& points = chart["datasets"]["points"][0];
  ASSERT_EQ(points["m"].size(), 10u);
  EXPECT_NEAR(points["m"][3].get<double>(), 4540.02, 1e-9); // the spike, not marked; 6 digits
  EXPECT_TRUE(points["lo"][0].is_number());
  // The sparkline has its tick, and the row says when.
  EXPECT_EQ(count(sparkline_svg(offset, timeline, no_baseline), "class=\"step\""), 1u);
  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_EQ(section.find("1 change point: −10.3 % on 2026-02-07"), std::string::npos)
      << "with the default window, 4 runs at the new level do not yet confirm a step";
}

TEST_F(History, ASeriesTooShortForADecisionSaysSo) {
  const FigureHistory& a100 = figure_of(timeline, "offset_copy", "NVIDIA A100-SXM4-40GB",
                                        {{"word_bytes", 4}, {"offset", 8}});
  for (const auto& series : a100.series)
    EXPECT_FALSE(series.steps);
  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_NE(section.find("too few runs for a change-point decision (needs 8)"), std::string::npos);
}

TEST(Timeline, SeriesAreKeyedByHostAndGpuAndEachGetsItsOwnChangePoints) {
  json results = history();
  // The H200's even runs ran on a second host: two series of five runs, each too short to decide.
  for (std::size_t i = 0; i < 10; i += 2)
    results["runs"][i]["environment"]["host"] = "gpu-node-2";
  const PageModel page = build_page_model(results, catalog());
  const auto headlines = headline_series(page);
  const Timeline timeline = build_timeline(page, headlines, baseline_verdict(page, ""));
  const auto machines = timeline.machines_of("NVIDIA H200");
  ASSERT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines[0]->label, "gpu-node-2 · GPU-00000000");
  EXPECT_EQ(machines[1]->label, "gpu-node-1 · GPU-00000000");
  EXPECT_NE(machines[0]->colour, machines[1]->colour);
  const FigureHistory& offset =
      figure_of(timeline, "offset_copy", "NVIDIA H200", {{"word_bytes", 4}, {"offset", 8}});
  ASSERT_EQ(offset.series.size(), 2u);
  EXPECT_EQ(offset.series[0].points.size(), 5u);
  EXPECT_FALSE(offset.series[0].steps); // 5 runs: too few, where the pooled 10 would have one
  // Two machines: the chart adds the model-level median line.
  EXPECT_EQ(figure_chart(offset, baseline_verdict(page, ""))["base"], "band-model");
  EXPECT_EQ(count(sparkline_svg(offset, timeline, baseline_verdict(page, "")), "<polyline"), 2u);
}

TEST(Timeline, DatesAreOnTheAxisWithLabelAndCommitInTheRunsDataset) {
  const json base = timeline_base_spec(true, false);
  bool temporal_line = false;
  for (const auto& layer : base["layer"])
    if (layer["mark"].value("type", "") == "line") {
      EXPECT_EQ(layer["encoding"]["x"]["type"], "temporal");
      EXPECT_EQ(layer["encoding"]["x"]["field"], "t");
      const std::string tooltip = layer["encoding"]["tooltip"].dump();
      EXPECT_NE(tooltip.find("\"label\""), std::string::npos);
      EXPECT_NE(tooltip.find("\"commit\""), std::string::npos);
      temporal_line = true;
    }
  EXPECT_TRUE(temporal_line);
  const std::string section =
      section_of(render_html(history(), catalog(), json::array()), "history");
  // 2026-02-01T02:00:00Z in ms since 1970, and the commit of the run.
  EXPECT_NE(section.find("\"t\":1769911200000,"), std::string::npos);
  EXPECT_NE(section.find("\"commit\":\"0123456789ab\""), std::string::npos);
}

TEST(Timeline, ThePinnedBaselineAndTheVerdictOfTheNewestRunAreMarked) {
  json results = with_steady_history(history());
  // Against a steady history (fixtures.hpp) the newest run's offset_copy at half speed is a
  // regression.
  for (json& m : results["runs"][9]["measurements"])
    if (m["experiment"] == "offset_copy") {
      for (const char* key : {"median", "min", "max", "mean", "q1", "q3", "ci_low", "ci_high"})
        if (m[key].is_number())
          m[key] = m[key].get<double>() / 2;
      for (json& sample : m["samples"])
        sample = sample.get<double>() / 2;
    }
  const std::string baseline_id = results["runs"][0]["id"];
  RenderOptions options;
  options.baseline_run = baseline_id;
  const PageModel page = build_page_model(results, catalog());
  const auto headlines = headline_series(page);
  const BaselineVerdict verdict = baseline_verdict(page, baseline_id);
  ASSERT_TRUE(verdict.comparison);
  EXPECT_EQ(verdict.candidate, &page.runs[9]); // the newest H200 run, after the 10 % step
  const Timeline timeline = build_timeline(page, headlines, verdict);
  const FigureHistory& offset =
      figure_of(timeline, "offset_copy", "NVIDIA H200", {{"word_bytes", 4}, {"offset", 8}});
  ASSERT_NE(offset.verdict, nullptr);
  EXPECT_TRUE(offset.verdict->regression);
  const std::string spark = sparkline_svg(offset, timeline, verdict);
  EXPECT_EQ(count(spark, "class=\"baseline\""), 1u);
  EXPECT_NE(spark.find("class=\"verdict\""), std::string::npos);
  EXPECT_NE(spark.find("fill=\"#b3261e\""), std::string::npos); // a regression is red
  const json chart = figure_chart(offset, verdict);
  EXPECT_EQ(chart["datasets"]["baseline"][0]["r"], page.runs[0].index);
  EXPECT_EQ(chart["datasets"]["verdict"][0]["r"], page.runs[9].index);
  const std::string section =
      section_of(render_html(results, catalog(), json::array(), options), "history");
  EXPECT_NE(section.find("Pinned baseline: nightly (0f535a14) (2026-02-01), the grey line."),
            std::string::npos);
  EXPECT_NE(section.find("regression against the baseline"), std::string::npos);
}

TEST(Timeline, LongHistoriesAreBucketedExceptTheHeadlineFigures) {
  json results = history();
  json& runs = results["runs"];
  runs.erase(runs.begin() + 10, runs.end()); // the H200 only
  const json first = runs[0];
  for (int i = 10; i < 80; ++i) { // 80 runs of one machine
    json run = first;
    run["id"] = fmt::format("{:032x}", 0xabc000 + i);
    run["started_at"] = fmt::format("2026-03-{:02d}T{:02d}:00:00.000Z", 1 + i / 24, i % 24);
    run["finished_at"] = fmt::format("2026-03-{:02d}T{:02d}:01:00.000Z", 1 + i / 24, i % 24);
    runs.push_back(run);
  }
  const PageModel page = build_page_model(results, catalog());
  const auto headlines = headline_series(page);
  const Timeline timeline = build_timeline(page, headlines, baseline_verdict(page, ""));
  const FigureHistory* headline = nullptr;
  const FigureHistory* other = nullptr;
  for (const auto& figure : timeline.figures)
    if (figure.experiment->name == "offset_copy")
      (figure.headline ? headline : other) = &figure;
  ASSERT_TRUE(headline && other);
  EXPECT_EQ(
      figure_chart(*headline, baseline_verdict(page, ""))["datasets"]["points"][0]["m"].size(),
      80u);
  const json bucketed = figure_chart(*other, baseline_verdict(page, ""));
  EXPECT_EQ(bucketed["base"], "line");
  EXPECT_EQ(bucketed["datasets"]["points"][0]["m"].size(), buckets_per_machine);
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
