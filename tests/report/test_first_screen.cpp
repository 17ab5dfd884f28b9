// The first screen (report/sections/first_screen.cpp, verdict.cpp): per device model each headline
// figure as % of its limit with its run-to-run spread; the newest run against the pinned
// baseline with the regressions listed; with two or more models, which is better for what; then
// the table of contents, which lists only the sections the page has.
#include "fixtures.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "verdict.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace apod::report::test {
namespace {

std::string first_screen(const std::string& html) {
  const std::size_t start = html.find("<section id=\"glance\"");
  if (start == std::string::npos)
    return "";
  return html.substr(start, html.find("</section>", start) - start);
}

// The newest H200 run of the history fixture with every offset_copy sample 20 % slower: a
// regression planted in real-shaped samples, against the first run as the pinned baseline.
json with_planted_regression() {
  json results = with_steady_history(history());
  for (auto& m : results["runs"][9]["measurements"])
    if (m["experiment"] == "offset_copy")
      for (auto& sample : m["samples"])
        sample = sample.get<double>() * 0.8;
  return results;
}

TEST(FirstScreen, ComesFirstThenTheContents) {
  const std::string html = render_html(history(), catalog(), json::array());
  const std::size_t glance = html.find("<section id=\"glance\"");
  const std::size_t contents = html.find("<nav class=\"toc\" id=\"contents\"");
  const std::size_t history_at = html.find("<section id=\"history\"");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_LT(glance, contents);
  EXPECT_LT(contents, history_at);
  // The contents list the sections the page has, and each experiment.
  const std::string toc = html.substr(contents, html.find("</nav>", contents) - contents);
  for (const char* anchor : {"#history", "#comparison", "#summary", "#experiments", "#runs",
                             "#environment", "#exp-2-offset_copy"})
    EXPECT_NE(toc.find(std::string("href=\"") + anchor + "\""), std::string::npos) << anchor;
  const std::string one = render_html(one_run(), catalog(), json::array());
  const std::string one_toc = one.substr(one.find("id=\"contents\""), 2000);
  EXPECT_EQ(one_toc.find("href=\"#history\""), std::string::npos);
  EXPECT_EQ(one_toc.find("href=\"#comparison\""), std::string::npos);
}

TEST(FirstScreen, EachDeviceGetsItsHeadlineFiguresAsPercentOfLimitWithTheirSpread) {
  const std::string glance = first_screen(render_html(history(), catalog(), json::array()));
  const std::size_t h200 =
      glance.find("<h2><span class=\"swatch\" aria-hidden=\"true\"></span>NVIDIA H200</h2>");
  const std::size_t a100 = glance.find("NVIDIA A100-SXM4-40GB</h2>");
  ASSERT_NE(h200, std::string::npos);
  ASSERT_NE(a100, std::string::npos);
  const std::string card = glance.substr(h200, a100 - h200);
  EXPECT_NE(card.find("10 runs, 2026-02-01 to 2026-02-10"), std::string::npos);
  // Misaligned copy's headline: 3938.5 GB/s, 81.8 % of theoretical DRAM, 93.5 % of its runs'
  // peaks, spread (max - min) / median over the 10 runs.
  for (const char* text :
       {"3938.5 GB/s", "<strong>81.8 %</strong>", "of DRAM", "93.5 % of achievable peak", "25.3 %",
        "10 runs", "title=\"theoretical DRAM bandwidth\"", "style=\"width: 81.8%\""})
    EXPECT_NE(card.find(text), std::string::npos) << text;
  // A time has no limit, and says so.
  EXPECT_NE(card.find("no limit applies"), std::string::npos);
  // The A100 has no PCIe limit in the fixture: its transfer figure says the limit is unknown.
  EXPECT_NE(glance.substr(a100).find("limit not known for this device"), std::string::npos);
  // One run: no spread to give.
  EXPECT_NE(first_screen(render_html(one_run(), catalog(), json::array())).find("one run"),
            std::string::npos);
}

TEST(FirstScreen, HeadlinesAreGroupedByTheCatalogsChaptersEachExperimentOnce) {
  // The real matrix: every experiment's headline under its chapter, in the chapters' order.
  const PageModel page = build_page_model(matrix(), matrix_catalog());
  const std::string glance = first_screen(render_html(matrix(), matrix_catalog(), json::array()));
  const std::string card = glance.substr(0, glance.find("</table>"));
  std::size_t at = 0;
  std::vector<std::string> seen;
  for (const Chapter chapter : chapters) {
    const std::string heading = std::string("scope=\"rowgroup\">") + chapter_title(chapter);
    const std::size_t found = card.find(heading);
    const bool declared =
        std::any_of(page.experiments.begin(), page.experiments.end(),
                    [&](const ExperimentView& e) { return e.chapter == chapter; });
    EXPECT_EQ(found != std::string::npos, declared) << chapter_title(chapter);
    if (found == std::string::npos)
      continue;
    EXPECT_GT(found, at) << chapter_title(chapter) << " is out of order";
    at = found;
    seen.push_back(chapter_title(chapter));
  }
  EXPECT_GE(seen.size(), 5u);
  for (const ExperimentView& e : page.experiments) // each experiment's figure once per card
    EXPECT_EQ(count(card, "href=\"#" + e.anchor + "\""), 1u) << e.name;
}

TEST(DidAnythingChange, WithoutABaselineItSaysHowToPinOne) {
  const std::string glance = first_screen(render_html(history(), catalog(), json::array()));
  EXPECT_NE(glance.find("class=\"change change-none\""), std::string::npos);
  EXPECT_NE(glance.find("No baseline is pinned: `apod baseline set RUN`"), std::string::npos);
  RenderOptions options;
  options.baseline_run = "ffffffffffff";
  EXPECT_NE(first_screen(render_html(history(), catalog(), json::array(), options))
                .find("The pinned baseline ffffffffffff is not among the runs of this report."),
            std::string::npos);
}

TEST(DidAnythingChange, TheNewestRunIsJudgedAgainstThePinnedBaselineWithItsRegressionsListed) {
  const json results = with_planted_regression();
  RenderOptions options;
  options.baseline_run = results["runs"][0]["id"];
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, options.baseline_run);
  ASSERT_TRUE(verdict.comparison);
  EXPECT_EQ(verdict.baseline, &page.runs[0]);
  EXPECT_EQ(verdict.candidate, &page.runs[9]);
  const auto regressions = verdict.regressions();
  ASSERT_FALSE(regressions.empty());
  for (const PointVerdict* pair : regressions)
    EXPECT_TRUE(pair->regression);
  bool offset = false;
  for (const PointVerdict* pair : regressions)
    offset = offset || pair->experiment == "offset_copy";
  EXPECT_TRUE(offset);

  const std::string glance = first_screen(render_html(results, catalog(), json::array(), options));
  EXPECT_NE(glance.find("class=\"change change-bad\""), std::string::npos);
  EXPECT_NE(glance.find("REGRESSION: the newest run"), std::string::npos);
  // The page says compare's own count line: the counts agree (issue 24).
  EXPECT_NE(glance.find(summary_line(*verdict.comparison)), std::string::npos)
      << summary_line(*verdict.comparison);
  EXPECT_NE(glance.find("against the pinned baseline nightly (0f535a14) (2026-02-01) on NVIDIA "
                        "H200"),
            std::string::npos);
  EXPECT_NE(glance.find("<ul class=\"regressions\"><li>offset_copy · effective bandwidth at "),
            std::string::npos);
  // Worst first, and the rest one click away.
  EXPECT_GE(std::fabs(regressions.front()->slowdown), std::fabs(regressions.back()->slowdown));
  if (regressions.size() > 6) {
    EXPECT_NE(glance.find(fmt::format("and {} more", regressions.size() - 6)), std::string::npos);
  }
}

// A run dated in 9999 (a writer whose clock was far ahead) once stayed "the newest run" for ever:
// the verdict is the newest run within this machine's clock, as compare's.
TEST(DidAnythingChange, ARunFromTheFutureIsNotTheNewest) {
  json results = with_planted_regression();
  json future = results["runs"][9];
  future["id"] = "0f535a147d00000000000000000000fe";
  future["started_at"] = "9999-02-02T02:00:00.000Z";
  future["finished_at"] = "9999-02-02T02:01:00.000Z";
  results["runs"].push_back(future);
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, results["runs"][0]["id"]);
  ASSERT_NE(verdict.candidate, nullptr);
  EXPECT_EQ(verdict.candidate->id, results["runs"][9]["id"]);
}

TEST(DidAnythingChange, TheSameRunTwiceWithoutHistoryIsInconclusive) {
  json results = history();
  results["runs"].erase(results["runs"].begin() + 1, results["runs"].end());
  json copy = results["runs"][0];
  copy["id"] = "0f535a147d00000000000000000000ff";
  copy["started_at"] = "2026-02-02T02:00:00.000Z";
  copy["finished_at"] = "2026-02-02T02:01:00.000Z";
  results["runs"].push_back(copy);
  RenderOptions options;
  options.baseline_run = results["runs"][0]["id"];
  const std::string glance = first_screen(render_html(results, catalog(), json::array(), options));
  // One run of history is none: nothing changed, but nothing could have been seen either.
  EXPECT_NE(glance.find("class=\"change change-inconclusive\""), std::string::npos) << glance;
  EXPECT_NE(glance.find("INCONCLUSIVE: the newest run"), std::string::npos);
  EXPECT_NE(glance.find("Sees: with"), std::string::npos)
      << "what it could see, on the first screen";
}

TEST(BetterForWhat, OnlyWithTwoModelsAndOnlyOnMatchedPoints) {
  EXPECT_EQ(first_screen(render_html(one_run(), catalog(), json::array()))
                .find("Which is better for what"),
            std::string::npos);
  RenderOptions options;
  options.prices = {{"NVIDIA H200", 32000}, {"NVIDIA A100-SXM4-40GB", 10000}};
  const std::string glance =
      first_screen(render_html(history(), catalog(), json::array(), options));
  const std::size_t better = glance.find("Which is better for what");
  ASSERT_NE(better, std::string::npos);
  const std::string lines = glance.substr(better);
  // The H200 leads device-memory bandwidth about 3x at the same point; per dollar the A100 does.
  EXPECT_NE(lines.find("Misaligned copy · effective bandwidth</a>: <strong class=\"device-name\""),
            std::string::npos);
  EXPECT_NE(lines.find("× over NVIDIA A100-SXM4-40GB"), std::string::npos);
  EXPECT_NE(lines.find("at word_bytes=8 B, offset=8"), std::string::npos);
  EXPECT_NE(lines.find("per $1000: NVIDIA A100-SXM4-40GB"), std::string::npos);
  // The same time on both within 2 %: no winner is named.
  EXPECT_NE(lines.find("on par with NVIDIA A100-SXM4-40GB"), std::string::npos);
  // Without prices for both models, no per-dollar verdict.
  options.prices = {{"NVIDIA H200", 32000}};
  EXPECT_EQ(
      first_screen(render_html(history(), catalog(), json::array(), options)).find("per $1000:"),
      std::string::npos);
}

} // namespace
} // namespace apod::report::test
