// The history as a timeline (report/timeline.cpp, charts/history.cpp, sections/history.cpp) on the
// history fixture (10 H200 runs with a 10 % step from the 7th and a one-run spike in the 4th; 2
// A100 runs, the second without peak_copy), and the per-run figures it rests on: each run's
// achievable peak and % of it, the headline series with their run-to-run spread, and the charts
// of many runs summarised per device model. Since issue 25 the history is in run order with gaps
// marked, and drawn by page.js from one data block (no inline SVG per row).
#include "charts/chart.hpp"
#include "charts/history.hpp"
#include "fixtures.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "synthetic_history.hpp"
#include "timeline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace apod::report::test {
namespace {

std::string section_of(const std::string& html, const std::string& id) {
  const std::size_t start = html.find("<section id=\"" + id + "\"");
  if (start == std::string::npos)
    return "";
  return html.substr(start, html.find("</section>", start) - start);
}

// The section's data block (script[data-history]).
json history_block(const std::string& html) {
  const std::string open = "<script type=\"application/json\" data-history>";
  const std::size_t start = html.find(open);
  if (start == std::string::npos)
    return nullptr;
  const std::size_t from = start + open.size();
  return json::parse(html.substr(from, html.find("</script>", from) - from));
}

// A row's coded list (charts/history.hpp: "3,-1,,_4,0" from ordinal a) as {ordinal: code}.
std::map<std::size_t, long long> decoded(const json& row, const char* key = "v") {
  std::map<std::size_t, long long> out;
  std::size_t ordinal = row.value("a", std::size_t{1});
  std::stringstream in(row[key].get<std::string>());
  for (std::string token; std::getline(in, token, ',');) {
    if (token.empty())
      ordinal += 1;
    else if (token[0] == '_')
      ordinal += std::stoul(token.substr(1));
    else
      out[ordinal++] = std::stoll(token);
  }
  return out;
}

// The value a coded row gives at `ordinal` (positive figures: logs of value / reference).
double value_at(const json& row, std::size_t ordinal) {
  return row["ref"].get<double>() * std::exp(decoded(row).at(ordinal) * value_unit);
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
  EXPECT_EQ(count(section, "<details class=\"figure-row\" data-row="), timeline.figures.size());
  // No drawing in the HTML (issue 25): each row's values are in the one data block, in page
  // order, and page.js draws its sparkline when it is seen.
  EXPECT_EQ(count(section, "<svg"), 0u);
  EXPECT_EQ(count(section, "<script"), 1u);
  const json block = history_block(section);
  ASSERT_TRUE(block.is_object());
  EXPECT_EQ(block["rows"].size(), timeline.figures.size());
  EXPECT_EQ(block["models"].size(), 2u);
  EXPECT_EQ(block["spark_domain"], spark_domain_rel);
  for (const char* colour : {"context", "alarm", "good", "noise"}) // page.js draws with these
    EXPECT_TRUE(block["palette"][colour].is_string()) << colour;
  // Axis titles once each, the rows pointing at them.
  const json& first = block["rows"][0];
  ASSERT_TRUE(first["y"].is_number());
  EXPECT_EQ(block["titles"][first["y"].get<std::size_t>()], "effective bandwidth (GB/s)");
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
  // The row's data marks it at that run (the 7th of the model), and has every run with its
  // interval.
  const json chart = figure_chart(offset, timeline);
  EXPECT_FALSE(chart.contains("b")) << "a headline figure is drawn run by run";
  ASSERT_EQ(chart["s"].size(), 1u);
  EXPECT_EQ(chart["s"][0][0], 7);
  const auto values = decoded(chart);
  ASSERT_EQ(values.size(), 10u);
  EXPECT_NEAR(value_at(chart, 4), 4540.0215, 4540.0215 * value_unit); // the spike, not marked
  EXPECT_EQ(decoded(chart, "l").size(), 10u);
  EXPECT_EQ(decoded(chart, "h").size(), 10u);
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
  // One run order for the model's two machines; each run says which machine it ran on.
  const json order = model_order(timeline, "NVIDIA H200", baseline_verdict(page, ""));
  ASSERT_EQ(order["machines"].size(), 2u);
  EXPECT_EQ(order["machines"][0][0], "gpu-node-2 · GPU-00000000");
  ASSERT_EQ(order["runs"].size(), 10u);
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_EQ(order["runs"][i][4], i % 2 == 0 ? 0 : 1) << i;
  EXPECT_EQ(decoded(figure_chart(offset, timeline)).size(), 10u);
}

TEST(Timeline, RunsAreOnTheAxisWithDateLabelAndCommitInTheTooltip) {
  const json base = timeline_base_spec();
  bool line = false;
  for (const auto& layer : base["layer"]) {
    EXPECT_EQ(layer["encoding"]["x"]["field"], "o") << "every layer on the run order";
    EXPECT_EQ(layer["encoding"]["x"]["type"], "quantitative");
    if (layer["mark"].value("type", "") == "line") {
      const std::string tooltip = layer["encoding"]["tooltip"].dump();
      for (const char* field : {"\"t\"", "\"label\"", "\"commit\"", "\"machine\"", "\"rel\""})
        EXPECT_NE(tooltip.find(field), std::string::npos) << field;
      EXPECT_EQ(layer["encoding"]["detail"]["field"], "line") << "broken at gaps and machines";
      line = true;
    }
  }
  EXPECT_TRUE(line);
  const json block = history_block(render_html(history(), catalog(), json::array()));
  const json& h200 = block["models"][0];
  EXPECT_EQ(h200["model"], "NVIDIA H200");
  // 2026-02-01T02:00:00Z in ms since 1970, and the commit of the run.
  EXPECT_EQ(h200["runs"][0][0], 1769911200000);
  EXPECT_EQ(h200["runs"][0][3], "0123456789ab");
  // Ten nightly runs: no gap, and at most max_date_labels date labels, none repeated.
  EXPECT_TRUE(h200["gaps"].empty());
  ASSERT_EQ(h200["ticks"].size(), max_date_labels);
  EXPECT_EQ(h200["ticks"][0], json({1, "2026-02-01"}));
  EXPECT_EQ(h200["ticks"][max_date_labels - 1], json({10, "2026-02-10"}));
  std::set<std::string> dates;
  for (const auto& tick : h200["ticks"])
    EXPECT_TRUE(dates.insert(tick[1].get<std::string>()).second) << tick;
}

// The issue's case: a batch of runs minutes apart and one 8 hours later, stored out of order.
json batch_then_night() {
  json results = history();
  json& runs = results["runs"];
  for (int i = 0; i < 9; ++i) {
    runs[i]["started_at"] = fmt::format("2026-02-01T20:{:02d}:00.000Z", 2 * i);
    runs[i]["finished_at"] = fmt::format("2026-02-01T20:{:02d}:50.000Z", 2 * i);
  }
  runs[9]["started_at"] = "2026-02-02T04:16:00.000Z"; // 8 h after the 9th
  runs[9]["finished_at"] = "2026-02-02T04:16:50.000Z";
  std::swap(runs[0], runs[9]); // the document's order is not the run order
  return results;
}

TEST(Timeline, XIsTheRunOrderNotTheClock) {
  const json results = batch_then_night();
  const PageModel page = build_page_model(results, catalog());
  const Timeline timeline = build_timeline(page, headline_series(page), baseline_verdict(page, ""));
  const RunOrder& order = timeline.order_of("NVIDIA H200");
  ASSERT_EQ(order.runs.size(), 10u);
  EXPECT_EQ(order.runs.front()->started_at, "2026-02-01T20:00:00.000Z");
  EXPECT_EQ(order.runs.back()->started_at, "2026-02-02T04:16:00.000Z");
  EXPECT_EQ(order.ordinal(&page.runs[0]), 10u); // first in the document, last in time
  EXPECT_EQ(order.ordinal(&page.runs[9]), 1u);
  const FigureHistory& offset =
      figure_of(timeline, "offset_copy", "NVIDIA H200", {{"word_bytes", 4}, {"offset", 8}});
  const json row = figure_chart(offset, timeline);
  const auto values = decoded(row);
  // Ten runs at ordinals 1..10, evenly spaced whatever their times: the 9th and 10th are
  // neighbours, 8 hours apart, as the 1st and 2nd are, 2 minutes apart.
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values.begin()->first, 1u);
  EXPECT_EQ(values.rbegin()->first, 10u);
  // Each ordinal carries its own run's value: the 10th is the run stored first.
  const PointView* last = offset.series[0].points.back();
  EXPECT_EQ(last->run, &page.runs[0]);
  EXPECT_NEAR(value_at(row, 10), last->median, last->median * value_unit);
}

TEST(Timeline, AGapIsMarkedWhereOneLongPauseIsPlanted) {
  const json results = batch_then_night();
  const PageModel page = build_page_model(results, catalog());
  const Timeline timeline = build_timeline(page, headline_series(page), baseline_verdict(page, ""));
  const RunOrder& order = timeline.order_of("NVIDIA H200");
  ASSERT_EQ(order.gaps.size(), 1u);
  EXPECT_EQ(order.gaps[0].after, 9u);
  EXPECT_EQ(order.gaps[0].text, "8 h");
  const json model = model_order(timeline, "NVIDIA H200", baseline_verdict(page, ""));
  EXPECT_EQ(model["gaps"], json::parse(R"([[9, "8 h"]])"));
  // Two dates, each labelled once, at the first run of each.
  EXPECT_EQ(model["ticks"], json::parse(R"([[1, "2026-02-01"], [10, "2026-02-02"]])"));
  // The full chart draws a rule with the gap's length, and lines broken per segment ("line").
  bool gap_rule = false, gap_text = false;
  const json base = timeline_base_spec();
  for (const auto& layer : base["layer"])
    if (layer["data"]["name"] == "gaps") {
      gap_rule = gap_rule || layer["mark"]["type"] == "rule";
      gap_text = gap_text || (layer["encoding"].contains("text") &&
                              layer["encoding"]["text"]["field"] == "text");
    }
  EXPECT_TRUE(gap_rule && gap_text);
  // The page says what a gap is.
  const std::string section = section_of(render_html(results, catalog(), json::array()), "history");
  EXPECT_NE(section.find("a dashed grey rule marks a pause of more than 6 times the model"),
            std::string::npos);
  EXPECT_NE(section.find("usual interval and over 6 hours, with its length"), std::string::npos);
}

TEST(Timeline, NightlyRunsWithAMissedNightHaveNoGapAWeekOffHasOne) {
  std::vector<std::optional<double>> nights;
  for (int day : {0, 1, 2, 4, 5, 6}) // the 4th night missed
    nights.push_back(day * 86400.0);
  EXPECT_TRUE(find_gaps(nights).empty());
  nights.push_back(13 * 86400.0); // a week off
  nights.push_back(14 * 86400.0);
  const auto gaps = find_gaps(nights);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].after, 6u);
  EXPECT_EQ(gaps[0].text, "7 d");
  // A run without a start time breaks no interval.
  EXPECT_TRUE(find_gaps({0.0, std::nullopt, 1e6}).empty());
}

TEST(Timeline, ValuesAreRelativeToTheReferenceWithTheNoiseBand) {
  json results = with_steady_history(history());
  const PageModel page = build_page_model(results, catalog());
  const Timeline timeline = build_timeline(page, headline_series(page), baseline_verdict(page, ""));
  const FigureHistory& offset =
      figure_of(timeline, "offset_copy", "NVIDIA H200", {{"word_bytes", 4}, {"offset", 8}});
  // Without a verdict on the figure the reference is the median of the model's runs.
  std::vector<double> medians;
  for (const PointView* point : offset.series[0].points)
    medians.push_back(point->median);
  if (offset.verdict == nullptr)
    EXPECT_DOUBLE_EQ(figure_reference(offset), apod::summarize(medians).median);
  else
    EXPECT_DOUBLE_EQ(figure_reference(offset), offset.verdict->baseline);
  const json row = figure_chart(offset, timeline);
  // Steady within 0.1 % a run: every code within ±20 basis points, i.e. flat on a ±5 % scale.
  for (const auto& [ordinal, code] : decoded(row))
    EXPECT_LE(std::llabs(code), 20) << ordinal;
  ASSERT_TRUE(row.contains("n"));
  ASSERT_TRUE(noise_sd(offset));
  EXPECT_EQ(row["n"], std::llround(noise_band_sd * *noise_sd(offset) / value_unit));
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
  const json model = model_order(timeline, "NVIDIA H200", verdict);
  EXPECT_EQ(model["baseline"], 1);
  EXPECT_EQ(model["baseline_text"], "pinned baseline");
  EXPECT_EQ(model["candidate"], 10);
  const json row = figure_chart(offset, timeline);
  // Relative to the baseline's value: the newest run at half speed is about ln(1/2) below it.
  EXPECT_DOUBLE_EQ(figure_reference(offset), offset.verdict->baseline);
  EXPECT_NEAR(value_at(row, 10) / offset.verdict->baseline - 1, relative_change(*offset.verdict),
              1e-3);
  const std::string section =
      section_of(render_html(results, catalog(), json::array(), options), "history");
  EXPECT_NE(section.find("Pinned baseline: nightly (0f535a14) (2026-02-01), run 1 of 10, the grey "
                         "rule"),
            std::string::npos);
  EXPECT_NE(section.find("regression against the baseline"), std::string::npos);
  // The dot's colour comes from the row's own verdict class (page.js): red for a regression.
  EXPECT_NE(section.find("<span class=\"fig-verdict verdict-regression\""), std::string::npos);
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
  EXPECT_EQ(decoded(figure_chart(*headline, timeline)).size(), 80u);
  const json bucketed = figure_chart(*other, timeline);
  EXPECT_EQ(bucketed["b"], 1);
  EXPECT_EQ(decoded(bucketed).size(), buckets_per_figure);
  EXPECT_EQ(decoded(bucketed, "l").size(), buckets_per_figure); // the bucket's range
}

TEST(HistorySection, EachRowCostsFarLessThanItsInlineSparklineDid) {
  // 100 runs of the matrix's shape, every 10th on a second model: 944 rows. Before issue 25 its
  // history section was 1,773,936 bytes, 1,879 a row (an inline SVG and a chart's JSON block per
  // row: bench_report at e892b95); the rows' words alone are ~300 bytes.
  const json results = synthetic_history(100, 10);
  const std::string html = render_html(results, synthetic_matrix_catalog(), json::array());
  const std::string section = section_of(html, "history");
  const std::size_t rows = count(section, "<details class=\"figure-row\" data-row=");
  ASSERT_EQ(rows, 944u);
  const double bytes_per_row = double(section.size()) / double(rows);
  EXPECT_LT(bytes_per_row, 700) << section.size() << " bytes";
  EXPECT_EQ(count(section, "<svg"), 0u);
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
