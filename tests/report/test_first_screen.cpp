// The first screen (report/sections/first_screen.cpp, verdict.cpp, trust.cpp), answer first
// (issue 25): the newest run's verdict against the pinned baseline, or with none pinned against
// the previous run of its machine, as the page's first words; per device model each headline
// figure of the newest run against the baseline (change, noise, compare's word) and as % of its
// limit; trust tags where a run is dirty or its clocks were low; with two or more models, which
// is better for what; then the table of contents, which lists only the sections the page has.
#include "fixtures.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "verdict.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace apod::report::test {
namespace {

std::string first_screen(const std::string& html) {
  const std::size_t start = html.find("<section id=\"glance\"");
  if (start == std::string::npos)
    return "";
  return html.substr(start, html.find("</section>", start) - start);
}

// The text a reader sees, tags dropped and white space folded.
std::string visible_text(const std::string& html) {
  std::string text;
  bool in_tag = false;
  for (const char c : html) {
    if (c == '<')
      in_tag = true;
    else if (c == '>') {
      in_tag = false;
      text += ' ';
    } else if (!in_tag)
      text += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  }
  std::string folded;
  for (const char c : text)
    if (c != ' ' || (!folded.empty() && folded.back() != ' '))
      folded += c;
  return folded;
}

// The history fixture's H200 runs alone: ten nightly runs of one machine.
json h200_only(json results) {
  auto& runs = results["runs"];
  runs.erase(runs.begin() + 10, runs.end());
  return results;
}

// The row of `figure` in the card of `model` on the first screen.
std::string glance_row(const std::string& glance, const std::string& model,
                       const std::string& figure) {
  const std::size_t card = glance.find(model + "</h2>");
  const std::size_t at = glance.find(">" + figure + "</a>", card);
  if (card == std::string::npos || at == std::string::npos)
    return "";
  const std::size_t start = glance.rfind("<tr", at);
  return glance.substr(start, glance.find("</tr>", at) - start);
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

TEST(FirstScreen, EachDeviceGetsItsNewestHeadlineFiguresAsPercentOfLimit) {
  // No pin, and the newest run (the second A100's) has no earlier run on its machine: no model is
  // judged, and each card shows its newest run's figures with the run-to-run spread.
  const json results = history();
  const std::string glance = first_screen(render_html(results, catalog(), json::array()));
  const std::size_t h200 =
      glance.find("<h2><span class=\"swatch\" aria-hidden=\"true\"></span>NVIDIA H200</h2>");
  const std::size_t a100 = glance.find("NVIDIA A100-SXM4-40GB</h2>");
  ASSERT_NE(h200, std::string::npos);
  ASSERT_NE(a100, std::string::npos);
  const std::string card = glance.substr(h200, a100 - h200);
  EXPECT_NE(card.find("10 runs, 2026-02-01 to 2026-02-10. Newest: nightly (0f536314) "
                      "(2026-02-10)."),
            std::string::npos);
  // Misaligned copy's headline in the newest H200 run, not the median of the ten (3938.5 GB/s):
  // its value and its % of theoretical DRAM and of its run's peak; the spread over the 10 runs.
  const PageModel page = build_page_model(results, catalog());
  const auto headlines = headline_series(page);
  const auto offset = std::find_if(headlines.begin(), headlines.end(), [](const auto& s) {
    return s.experiment->name == "offset_copy" && s.device_model == "NVIDIA H200";
  });
  ASSERT_NE(offset, headlines.end());
  const PointView& newest = *offset->newest();
  EXPECT_EQ(newest.run, &page.runs[9]);
  ASSERT_NE(format_with_unit(newest.median, "GB/s"), format_with_unit(offset->median, "GB/s"));
  const std::string row = glance_row(glance, "NVIDIA H200", "Misaligned copy");
  for (const std::string text :
       {format_with_unit(newest.median, "GB/s"),
        "<strong>" + format_percent(*newest.pct_of_limit) + "</strong>", std::string("of DRAM"),
        format_percent(*newest.pct_of_peak) + " of achievable peak", std::string("25.3 %"),
        std::string("10 runs"), std::string("title=\"theoretical DRAM bandwidth\"")})
    EXPECT_NE(row.find(text), std::string::npos) << text << "\n" << row;
  EXPECT_EQ(row.find(format_with_unit(offset->median, "GB/s")), std::string::npos)
      << "the median of all runs is not the newest value";
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

TEST(DidAnythingChange, TheFirstWordsOfThePageAreTheVerdict) {
  const json planted = with_planted_regression();
  RenderOptions pinned;
  pinned.baseline_run = planted["runs"][0]["id"];
  struct Case {
    json results;
    RenderOptions options;
    const char* word;
  };
  for (const Case& c :
       {Case{planted, pinned, "REGRESSION"}, Case{history(), {}, "NOTHING COMPARED"},
        Case{h200_only(planted), {}, "REGRESSION"}, Case{one_run(), {}, "NOTHING COMPARED"}}) {
    const std::string glance =
        first_screen(render_html(c.results, catalog(), json::array(), c.options));
    const std::string text = visible_text(glance);
    EXPECT_EQ(text.rfind(c.word, 0), 0u) << text.substr(0, 300);
    EXPECT_LT(glance.find("id=\"did-anything-change\""), glance.find("class=\"glance-device"))
        << "the verdict comes before the device cards";
    EXPECT_EQ(count(glance, c.word), 1u) << "the outcome word once: " << text.substr(0, 600);
  }
}

TEST(DidAnythingChange, WithoutAPinTheNewestRunIsJudgedAgainstThePreviousRunOfItsMachine) {
  const json results = h200_only(with_steady_history(history()));
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, "");
  ASSERT_TRUE(verdict.comparison) << verdict.why_none;
  EXPECT_FALSE(verdict.pinned);
  EXPECT_EQ(verdict.candidate, &page.runs[9]);
  EXPECT_EQ(verdict.baseline, &page.runs[8]);
  const std::string glance = first_screen(render_html(results, catalog(), json::array()));
  EXPECT_NE(glance.find("the newest run, nightly (0f536314) (2026-02-10), on NVIDIA H200, against "
                        "the previous run of this machine, nightly (0f536214) (2026-02-09); no "
                        "baseline is pinned."),
            std::string::npos)
      << visible_text(glance).substr(0, 600);
  EXPECT_NE(glance.find("<code>apod baseline set RUN</code> pins the run"), std::string::npos);
  // The rest of the page's runs are the noise history, as with a pin.
  EXPECT_EQ(verdict.comparison->history_runs, 9);
}

TEST(DidAnythingChange, ARunOfAnotherMachineIsNeverThePreviousRun) {
  // The history fixture's two A100 runs are of two hosts: the newest has no earlier run of its
  // machine, and the verdict says so rather than judge one machine against another.
  const json results = history();
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, "");
  EXPECT_FALSE(verdict.comparison);
  EXPECT_EQ(verdict.candidate, &page.runs[11]);
  EXPECT_EQ(verdict.baseline, nullptr);
  const std::string glance = first_screen(render_html(results, catalog(), json::array()));
  EXPECT_NE(glance.find("class=\"change change-none\""), std::string::npos);
  EXPECT_NE(glance.find("No earlier run of the newest run&apos;s machine (gpu-node-1 · "),
            std::string::npos)
      << visible_text(glance).substr(0, 600);
  EXPECT_NE(glance.find("no baseline is pinned."), std::string::npos);
  // A pin not among the runs: the same rule, and the words say why.
  RenderOptions options;
  options.baseline_run = "ffffffffffff";
  EXPECT_NE(first_screen(render_html(results, catalog(), json::array(), options))
                .find("the pinned baseline ffffffffffff is not among the runs of this report."),
            std::string::npos);
  // One run: nothing compared, and why.
  EXPECT_NE(first_screen(render_html(one_run(), catalog(), json::array()))
                .find("NOTHING COMPARED</strong>: Only one run, "),
            std::string::npos);
}

TEST(DidAnythingChange, ASlowerNewestRunIsARegressionInItsRowWithItsBaselineAndChange) {
  // No pin: the planted 20 % slower newest H200 run against the run before it.
  const json results = h200_only(with_planted_regression());
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, "");
  ASSERT_TRUE(verdict.comparison);
  EXPECT_EQ(verdict.comparison->outcome(), Outcome::regression);
  const auto headlines = headline_series(page);
  const auto offset = std::find_if(headlines.begin(), headlines.end(), [](const auto& s) {
    return s.experiment->name == "offset_copy";
  });
  ASSERT_NE(offset, headlines.end());
  const PointVerdict* pair = verdict.pair_for(*offset->headline->key);
  ASSERT_NE(pair, nullptr);
  EXPECT_TRUE(pair->regression);
  EXPECT_NEAR(relative_change(*pair), -0.2, 0.01);

  const std::string glance = first_screen(render_html(results, catalog(), json::array()));
  EXPECT_NE(glance.find("class=\"change change-bad\""), std::string::npos);
  const std::string row = glance_row(glance, "NVIDIA H200", "Misaligned copy");
  ASSERT_FALSE(row.empty());
  // Newest, baseline, change, noise and compare's word, in that order.
  std::size_t at = 0;
  for (const std::string text :
       {format_with_unit(pair->candidate, "GB/s"), format_with_unit(pair->baseline, "GB/s"),
        format_change(relative_change(*pair)), "±" + format_percent(100 * pair->noise),
        "sees " + format_percent(100 * pair->detectable),
        std::string("class=\"fig-verdict verdict-regression\""), std::string(">regression<")}) {
    const std::size_t found = row.find(text, at);
    EXPECT_NE(found, std::string::npos) << text << "\n" << row;
    at = found == std::string::npos ? at : found;
  }
  EXPECT_EQ(row.find(format_with_unit(offset->median, "GB/s")), std::string::npos);
  // The bar is of the newest value.
  const PointView* newest = offset->point_in(verdict.candidate);
  ASSERT_NE(newest, nullptr);
  EXPECT_NE(row.find(fmt::format("style=\"width: {:.1f}%\"", *newest->pct_of_limit)),
            std::string::npos);
}

TEST(DidAnythingChange, ADirtyBuildAndLowClocksAreTaggedBesideWhatTheyTouch) {
  const json clean = h200_only(with_planted_regression());
  const std::string plain = first_screen(render_html(clean, catalog(), json::array()));
  EXPECT_EQ(plain.find(">dirty build<"), std::string::npos);
  EXPECT_EQ(plain.find(">low clocks<"), std::string::npos);

  json results = clean;
  json& newest = results["runs"][9];
  newest["environment"]["apod_dirty"] = true;
  // Every offset_copy point of the newest run: 3 of 12 samples under a low SM clock.
  for (json& m : newest["measurements"])
    if (m["experiment"] == "offset_copy") {
      json flags = json::array();
      for (std::size_t i = 0; i < m["samples"].size(); ++i)
        flags.push_back(i < 3 ? 1 : 0);
      m["sample_excluded"] = flags;
    }
  const std::string glance = first_screen(render_html(results, catalog(), json::array()));
  const std::string verdict = glance.substr(0, glance.find("class=\"glance-devices\""));
  EXPECT_NE(verdict.find("<span class=\"glance-tag\" title=\"nightly (0f536314) was measured by "
                         "apod built from commit 0123456789ab with uncommitted changes"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find(">low clocks</span> nightly (0f536314): "), std::string::npos);
  const std::string row = glance_row(glance, "NVIDIA H200", "Misaligned copy");
  EXPECT_NE(row.find("title=\"3 of 12 samples were taken under a low SM clock or throttling and "
                     "left out of the median.\">low clocks</span>"),
            std::string::npos)
      << row;
  // A figure the low clocks did not touch carries no tag.
  EXPECT_EQ(glance_row(glance, "NVIDIA H200", "Kernel launch latency").find(">low clocks<"),
            std::string::npos);

  // A point that stopped short of its confidence target is noisy, in its own row only.
  const std::string noisy_title = "title=\"Sampling stopped before the median reached its "
                                  "confidence target.\">noisy</span>";
  EXPECT_EQ(glance_row(plain, "NVIDIA H200", "Kernel launch latency").find(noisy_title),
            std::string::npos);
  for (json& m : results["runs"][9]["measurements"])
    if (m["experiment"] == "kernel_launch")
      m["noisy"] = true;
  const std::string noisy = first_screen(render_html(results, catalog(), json::array()));
  EXPECT_NE(glance_row(noisy, "NVIDIA H200", "Kernel launch latency").find(noisy_title),
            std::string::npos)
      << glance_row(noisy, "NVIDIA H200", "Kernel launch latency");
  EXPECT_EQ(glance_row(noisy, "NVIDIA H200", "Strided copy").find(noisy_title), std::string::npos);
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
  EXPECT_NE(glance.find("<strong class=\"change-word\">REGRESSION</strong>: the newest run"),
            std::string::npos);
  // The page says compare's own count line, its outcome word once at the head of the verdict:
  // the counts agree (issue 24).
  const std::string counts =
      summary_line(*verdict.comparison).substr(std::string("REGRESSION: ").size());
  EXPECT_NE(glance.find("<p class=\"change-counts\">" + counts), std::string::npos) << counts;
  EXPECT_NE(glance.find("on NVIDIA H200, against the pinned baseline nightly (0f535a14) "
                        "(2026-02-01)."),
            std::string::npos);
  EXPECT_EQ(glance.find("apod baseline set RUN"), std::string::npos) << "a pin is set";
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
  EXPECT_NE(glance.find("<strong class=\"change-word\">INCONCLUSIVE</strong>: the newest run"),
            std::string::npos);
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
  // One line per workload class (class_lines.hpp): the H200 leads memory-bound figures
  // about 3x; per dollar the A100 does (below 1x).
  EXPECT_NE(lines.find("memory-bound</a>: <strong class=\"device-name\""), std::string::npos);
  EXPECT_NE(lines.find("over NVIDIA A100-SXM4-40GB"), std::string::npos);
  EXPECT_NE(lines.find("the geometric mean of"), std::string::npos);
  EXPECT_NE(lines.find("per $ 0."), std::string::npos);
  EXPECT_NE(lines.find("per W n/a (power not measured during this experiment in these runs)"),
            std::string::npos);
  // Without prices for both models, no per-dollar verdict.
  options.prices = {{"NVIDIA H200", 32000}};
  EXPECT_NE(first_screen(render_html(history(), catalog(), json::array(), options))
                .find("per $ n/a (needs a price for both models: --prices)"),
            std::string::npos);
}

} // namespace
} // namespace apod::report::test
