// The report says what the runner and compare say, because it asks the same owners: compare's
// word for a point (analysis/verdict_word.hpp), core/text's escaping of stored strings, and the
// run summary's headline point (core/catalog.hpp). Built from hand-made runs and an empty
// catalog (every experiment declared from its stored points), so nothing here depends on the
// fixtures' catalog.
#include "headlines.hpp"
#include "report.hpp"
#include "timeline.hpp"
#include "verdict.hpp"

#include "analysis/compare.hpp"
#include "core/catalog.hpp"
#include "core/text.hpp"
#include "core/vocabulary.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

namespace apod::report::test {
namespace {

const json no_catalog = json::array();

/// One stored point of offset_copy (a gated device-memory figure) at `offset`, eleven samples
/// around `center`.
json stored_point(int offset, double center, const std::string& metric = "effective_bandwidth") {
  std::vector<double> samples;
  for (int i = 0; i < 11; ++i)
    samples.push_back(center * (1 + 0.001 * (i - 5) / 5.0));
  return {{"experiment", "offset_copy"},
          {"params", {{"offset", offset}}},
          {"metric", metric},
          {"unit", "GB/s"},
          {"direction", "higher"},
          {"samples", samples},
          {"verified", true},
          {"class", "device_memory"}};
}

RunRecord stored_run(int index, std::vector<json> points, const std::string& label = "nightly") {
  return run_from_json(
      {{"id", fmt::format("{:02x}", index)},
       {"label", label},
       {"status", "complete"},
       {"started_at", fmt::format("2026-11-22T00:{:02d}:00.000Z", index)},
       {"device", {{"name", "NVIDIA H200"}, {"uuid", "GPU-1"}}},
       {"environment", {{"host", "vm"}, {"gpu_state", {{"driver_branch", "580"}}}}},
       {"experiments", {{{"name", "offset_copy"}, {"version", 1}}}},
       {"measurements", points}},
      "run");
}

/// Five steady runs of six points, then a candidate with offset 2 7% slower and, if
/// `noisy_slowdown`, flagged noisy by its own run (as compare's unconfirmed case).
std::vector<RunRecord> runs_with_a_slowdown(bool noisy_slowdown) {
  std::vector<RunRecord> runs;
  for (int i = 0; i < 6; ++i) {
    std::vector<json> points;
    for (int k = 0; k < 6; ++k) {
      const double wobble = 0.001 * std::sin(1.7 * i + k);
      json p = stored_point(k, (i == 5 && k == 2 ? 93 : 100) * (1 + wobble));
      p["noisy"] = i == 5 && k == 2 && noisy_slowdown;
      points.push_back(std::move(p));
    }
    runs.push_back(stored_run(i, points));
  }
  return runs;
}

RenderOptions pinned_first(const std::vector<RunRecord>& runs) {
  RenderOptions options;
  options.baseline_run = runs.front().id;
  return options;
}

TEST(SameWords, APointCompareCallsUnconfirmedIsUnconfirmedInTheReport) {
  const std::vector<RunRecord> runs = runs_with_a_slowdown(true);
  const Verdict compare = judge_in(runs, runs.front(), runs.back());
  ASSERT_EQ(compare.count(Decision::unconfirmed), 1);
  ASSERT_EQ(compare.regressions(), 0);

  const PageModel page = build_page_model(runs, no_catalog);
  const BaselineVerdict verdict = baseline_verdict(page, runs.front().id);
  EXPECT_EQ(verdict.count(Decision::unconfirmed), 1u);
  EXPECT_EQ(verdict.count(Decision::slower), 0u) << "never called just slower";
  const Timeline timeline = build_timeline(page, headline_series(page), verdict);
  const PointView* slowed = nullptr;
  for (const FigureHistory& figure : timeline.figures)
    if ((*figure.params)["offset"] == 2) {
      ASSERT_NE(figure.verdict, nullptr);
      EXPECT_EQ(decision_of(*figure.verdict), Decision::unconfirmed);
      slowed = figure.newest();
    }
  ASSERT_NE(slowed, nullptr);

  const std::string html = render_html(runs, no_catalog, json::array(), pinned_first(runs), "test");
  EXPECT_NE(html.find("unconfirmed against the baseline (−7."), std::string::npos);
  EXPECT_EQ(html.find("slower against the baseline"), std::string::npos);
  EXPECT_NE(html.find("1 unconfirmed (re-measure: apod confirm)"), std::string::npos)
      << "the first screen counts it by its word, in compare's own count line";

  const std::string md = render_markdown(runs, no_catalog, pinned_first(runs));
  EXPECT_NE(md.find("- unconfirmed: offset\\_copy · effective bandwidth at offset\\=2:"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("0 regressions\\, 1 unconfirmed"), std::string::npos) << md;
}

TEST(SameWords, TheSameSlowdownMeasuredCleanlyIsARegressionInBoth) {
  const std::vector<RunRecord> runs = runs_with_a_slowdown(false);
  ASSERT_EQ(judge_in(runs, runs.front(), runs.back()).regressions(), 1);
  const std::string md = render_markdown(runs, no_catalog, pinned_first(runs));
  EXPECT_NE(md.find("REGRESSION\\: 1 regression\\, "), std::string::npos) << md;
  EXPECT_NE(md.find("- regression: offset\\_copy"), std::string::npos) << md;
  EXPECT_EQ(md.find("- unconfirmed:"), std::string::npos);
  const std::string html = render_html(runs, no_catalog, json::array(), pinned_first(runs), "test");
  EXPECT_NE(html.find("verdict-regression"), std::string::npos);
}

TEST(SameWords, StoredTextIsNeutralisedInTheReportsMarkdownAsInComparesMarkdown) {
  // Markdown syntax, a pipe, backticks, an HTML comment, a terminal escape and a right-to-left
  // override, in a run's label and in a metric's name (no underscore: shown as stored).
  const std::string hostile = "**x** | `y` <!-- z --> \x1b[2J\x1b]0;t\x07 \xE2\x80\xAE"
                              "cba [l](http://e) # h";
  std::vector<RunRecord> runs;
  for (int i = 0; i < 2; ++i)
    runs.push_back(
        stored_run(i, {stored_point(0, 100), stored_point(0, 50, "rate" + hostile)}, hostile));
  const std::string report = render_markdown(runs, no_catalog, pinned_first(runs));
  const std::string compare = format_markdown({judge_in(runs, runs.front(), runs.back())});
  for (const std::string& name : {hostile, "rate" + hostile}) {
    const std::string neutral = markdown_text(name);
    EXPECT_NE(report.find(neutral), std::string::npos) << name;
    EXPECT_NE(compare.find(neutral), std::string::npos) << name;
  }
  for (const std::string& raw : {"**x**", "| `y`", "<!--", "\x1b", "\xE2\x80\xAE", "](http"})
    for (const std::string* md : {&report, &compare})
      EXPECT_EQ(md->find(raw), std::string::npos) << "raw " << raw << " in\n" << *md;
}

/// Two runs of offset_copy's points at `medians` (offset = index), the newest with the point at
/// `marked` (if any) marked as the experiment's headline.
std::vector<RunRecord> runs_at(const std::vector<double>& medians, int marked,
                               const std::string& direction) {
  std::vector<RunRecord> runs;
  for (int i = 0; i < 2; ++i) {
    std::vector<json> points;
    for (int k = 0; k < static_cast<int>(medians.size()); ++k) {
      json p = stored_point(k, medians[k] * (1 + 0.01 * i));
      p["direction"] = direction;
      if (i == 1 && k == marked)
        p["extra"] = {{keys::headline, true}};
      points.push_back(std::move(p));
    }
    runs.push_back(stored_run(i, points));
  }
  return runs;
}

TEST(SameWords, TheReportsHeadlineIsTheRunSummarysHeadlinePoint) {
  struct Case {
    int marked;
    std::string direction;
    int expected_offset;
  };
  for (const Case& c : {Case{-1, "higher", 1}, Case{3, "higher", 3}, Case{-1, "lower", 2}}) {
    const std::vector<RunRecord> runs = runs_at({100, 120, 90, 110}, c.marked, c.direction);
    const PageModel page = build_page_model(runs, no_catalog);
    const std::vector<HeadlineSeries> series = headline_series(page);
    ASSERT_EQ(series.size(), 1u);
    const Measurement* summary =
        headline_point(*page.experiments[0].declaration, runs.back().measurements());
    EXPECT_EQ(series[0].headline->measurement, summary) << c.direction << " " << c.marked;
    EXPECT_EQ(summary->params["offset"], c.expected_offset);
    EXPECT_EQ(series[0].points.size(), 2u) << "followed through both runs";
  }
}

TEST(SameWords, ExcludedSamplesAreCountedApartFromTheUsedOnes) {
  // Eleven samples, the first and the last taken under low clocks: the median is of nine.
  json stored = stored_point(0, 100);
  stored["sample_excluded"] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  const std::vector<RunRecord> runs = {stored_run(0, {stored})};
  const PageModel page = build_page_model(runs, no_catalog);
  const PointView& point = page.experiments.at(0).metrics.at(0).points.at(0);
  EXPECT_EQ(point.samples.used, 9u);
  EXPECT_EQ(point.samples.excluded, 2u);

  const std::string html = render_html(runs, no_catalog, json::array(), {}, "test");
  EXPECT_NE(html.find(">n used</th>"), std::string::npos);
  EXPECT_NE(html.find(">excluded</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">9</td><td class=\"num\">2</td>"), std::string::npos)
      << "the values table";
  EXPECT_NE(html.find("9 samples used, 2 excluded"), std::string::npos) << "the chart's tooltip";

  const std::string md = render_markdown(runs, no_catalog, {});
  EXPECT_NE(md.find("| samples used | excluded |"), std::string::npos);
  EXPECT_NE(md.find("| 9 | 2 |"), std::string::npos) << md;
}

TEST(SameWords, AFailedExperimentTheCatalogLacksHasNoHeadlineAndStillRenders) {
  // Its declaration is made from its stored points, of which it has none: no headline metric.
  json doc = to_json(stored_run(0, {stored_point(0, 100)}));
  doc["experiments"].push_back(
      {{"name", "gone"}, {"version", 1}, {"status", "failed"}, {"error", "no such device"}});
  const std::vector<RunRecord> runs = {run_from_json(doc, "run")};
  const PageModel page = build_page_model(runs, no_catalog);
  ASSERT_EQ(page.experiments.size(), 2u);
  EXPECT_EQ(headline_series(page).size(), 1u) << "offset_copy's alone";
  EXPECT_NE(render_html(runs, no_catalog, json::array(), {}, "test").find("no such device"),
            std::string::npos);
}

} // namespace
} // namespace apod::report::test
