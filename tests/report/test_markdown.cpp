// `apod report --format markdown` (report/markdown.cpp): the verdict first and once (against the
// pinned baseline, or the previous run of the machine), the headline figures of the newest run
// against the baseline grouped by chapter, then nvbench-shaped tables per experiment and run
// (parameters, samples, GPU time, noise, median, % of limit, status), escaping, and the newest
// run per model past 8 runs.
#include "fixtures.hpp"
#include "format.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "verdict.hpp"

#include "core/text.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace apod::report::test {
namespace {

std::string line_with(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos)
    return "";
  const std::size_t start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

TEST(Markdown, EachExperimentGetsAnNvbenchShapedTablePerRun) {
  const std::string md = render_markdown(one_run(), catalog());
  EXPECT_EQ(md.rfind("# apod: 1 run\n", 0), 0u);
  EXPECT_NE(md.find("## Misaligned copy (offset\\_copy)"), std::string::npos);
  EXPECT_NE(
      md.find("| word\\_bytes | offset | samples used | excluded | GPU time | noise | median | "
              "% of limit | status |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n"),
      std::string::npos);
  // The best offset point of the fixture: its figure and its % of the H200's DRAM limit.
  const std::string row = line_with(md, "| 8 B | 32 |");
  ASSERT_FALSE(row.empty());
  EXPECT_NE(row.find("| 3963\\.8 GB\\/s | 82.3 % | ok |"), std::string::npos) << row;
  // Failed points keep their row and say why; times are their own GPU time.
  EXPECT_NE(md.find("failed: output mismatch at element 1048577\\: got 0\\, expected 3\\.5"),
            std::string::npos);
  const std::string launch =
      line_with(md.substr(md.find("## Kernel launch latency")), "| 2.10 us |");
  EXPECT_EQ(count(launch, "2.10 us"), 1u) << launch; // GPU time, and the median (its unit stored)
  EXPECT_EQ(count(launch, "2\\.10 us"), 1u) << launch;
}

TEST(Markdown, GpuTimeComesFromTheBytesMovedAndNoiseFromTheSamples) {
  json results = one_run();
  json& m = results["runs"][0]["measurements"][0];
  m["samples"] = {100.0, 100.0, 100.0, 100.0, 120.0, 80.0};
  m["sample_excluded"] = json::array({0, 0, 0, 0, 0, 0});
  m["n"] = 6;
  m["unit"] = "GB/s";
  m["extra"] = {{"bytes_moved", 2e9}};
  const std::string md = render_markdown(results, catalog());
  // 2e9 bytes at 100 GB/s: 20 ms; rsd (sample stddev over the mean) of {100 x4, 120, 80}: 12.6 %.
  const std::string row = line_with(md, "| 100\\.0 GB\\/s |");
  ASSERT_FALSE(row.empty()) << md.substr(0, 2000);
  EXPECT_NE(row.find("| 6 | 0 | 20.00 ms | 12.6 % | 100\\.0 GB\\/s |"), std::string::npos) << row;
}

TEST(Markdown, TheVerdictComesFirstAndOnceThenTheHeadlines) {
  json results = history();
  RenderOptions options;
  options.baseline_run = results["runs"][0]["id"];
  const std::string md = render_markdown(results, catalog(), options);
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, options.baseline_run);
  ASSERT_TRUE(verdict.comparison);
  const std::string word = outcome_word(verdict.comparison->outcome());
  // The title, then the verdict: compare's count line, which opens with the outcome word.
  EXPECT_EQ(md.rfind("# apod: 12 runs\n\n" + markdown_text(summary_line(*verdict.comparison)) +
                         " — the newest run " + markdown_text("nightly (0f536314) (2026-02-10)") +
                         " on NVIDIA H200 against " +
                         markdown_text("the pinned baseline nightly (0f535a14) (2026-02-01)") +
                         ".\n",
                     0),
            0u)
      << md.substr(0, 600);
  EXPECT_EQ(count(md, word), 1u) << "the verdict once";
  EXPECT_EQ(count(md, markdown_text(summary_line(*verdict.comparison))), 1u);
  const std::size_t sees = md.find("Sees: ");
  const std::size_t headlines = md.find("## Headline figures: the newest run against the baseline");
  const std::size_t tables = md.find("## Achievable copy bandwidth");
  ASSERT_NE(headlines, std::string::npos);
  EXPECT_LT(sees, headlines);
  EXPECT_LT(headlines, tables);
  // The judged model: newest against baseline, grouped by chapter; the other model its newest.
  const std::size_t h200 =
      md.find("### NVIDIA H200: newest " + markdown_text("nightly (0f536314) (2026-02-10)") +
              " against " + markdown_text("nightly (0f535a14) (2026-02-01)"));
  ASSERT_NE(h200, std::string::npos) << md.substr(headlines, 1500);
  EXPECT_LT(h200, md.find("### " + markdown_text("NVIDIA A100-SXM4-40GB") + ": newest " +
                          markdown_text("a100 (d501a7d1)")));
  EXPECT_NE(md.find("| figure | at | newest | baseline | change | noise | verdict | % of limit | "
                    "flags |",
                    h200),
            std::string::npos);
  EXPECT_NE(md.find("| **Device memory** |", h200), std::string::npos);
  EXPECT_NE(md.find("| figure | at | newest | % of limit | spread | runs | flags |", h200),
            std::string::npos);
  // 12 runs: the newest run of each model, and it says so.
  EXPECT_NE(md.find("Points of the newest run of each device model (2 of 12 runs"),
            std::string::npos);
  EXPECT_EQ(count(md, "### nightly \\(0f536314\\) · NVIDIA H200"), 6u); // one per experiment
  EXPECT_EQ(md.find("### nightly \\(0f535a14\\) ·"), std::string::npos);
}

TEST(Markdown, ASlowerNewestRunIsARegressionInItsHeadlineRowWithoutAPin) {
  // The history fixture's H200 runs made steady, the newest 20 % slower on offset_copy.
  json results = with_steady_history(history());
  results["runs"].erase(results["runs"].begin() + 10, results["runs"].end());
  for (auto& m : results["runs"][9]["measurements"])
    if (m["experiment"] == "offset_copy")
      for (auto& sample : m["samples"])
        sample = sample.get<double>() * 0.8;
  const std::string md = render_markdown(results, catalog());
  const PageModel page = build_page_model(results, catalog());
  const BaselineVerdict verdict = baseline_verdict(page, "");
  ASSERT_TRUE(verdict.comparison);
  EXPECT_EQ(md.find("# apod: 10 runs\n\nREGRESSION\\: "), 0u) << md.substr(0, 400);
  EXPECT_EQ(count(md, "REGRESSION"), 1u);
  EXPECT_NE(md.find(markdown_text("against the previous run of this machine, nightly (0f536214) "
                                  "(2026-02-09); no baseline is pinned")),
            std::string::npos)
      << md.substr(0, 600);
  const auto headlines = headline_series(page);
  const auto offset = std::find_if(headlines.begin(), headlines.end(), [](const auto& s) {
    return s.experiment->name == "offset_copy";
  });
  ASSERT_NE(offset, headlines.end());
  const PointVerdict* pair = verdict.pair_for(*offset->headline->key);
  ASSERT_NE(pair, nullptr);
  const std::string row =
      line_with(md, "| " + markdown_text("Misaligned copy: effective bandwidth") + " |");
  EXPECT_NE(row.find(" | " + markdown_text(format_with_unit(pair->candidate, "GB/s")) + " | " +
                     markdown_text(format_with_unit(pair->baseline, "GB/s")) + " | " +
                     markdown_text(format_change(relative_change(*pair))) + " | ±"),
            std::string::npos)
      << row;
  EXPECT_NE(row.find(" | regression | "), std::string::npos) << row;
  // The headline table comes before the tables and after the verdict's regression list.
  EXPECT_LT(md.find("- regression: " + markdown_text("offset_copy")),
            md.find("## Headline figures"));
}

TEST(Markdown, ADirtyBuildIsSaidUnderTheVerdictAndBesideItsModel) {
  json results = history();
  results["runs"][11]["environment"]["apod_dirty"] = true;
  const std::string md = render_markdown(results, catalog());
  EXPECT_NE(md.find("- **dirty build**: " +
                    markdown_text("a100 (d501a7d1) was measured by apod built from commit")),
            std::string::npos)
      << md.substr(0, 800);
  EXPECT_NE(md.find("### " + markdown_text("NVIDIA A100-SXM4-40GB") + ": newest " +
                    markdown_text("a100 (d501a7d1) (2026-02-21)") + " (" +
                    markdown_text("dirty build") + ")"),
            std::string::npos);
  EXPECT_EQ(render_markdown(history(), catalog()).find("dirty build"), std::string::npos);
}

TEST(Markdown, CellsAreEscapedSoNoTableBreaks) {
  json results = one_run();
  results["runs"][0]["label"] = "a|b <i>*x*</i>";
  const std::string md = render_markdown(results, catalog());
  EXPECT_NE(md.find("a\\|b &lt;i&gt;\\*x\\*&lt;\\/i&gt;"), std::string::npos)
      << "core/text's markdown_text";
  EXPECT_EQ(md.find("a|b"), std::string::npos);
}

TEST(Markdown, NoRunsNothingToReport) {
  const json empty = {{"format", "apod-results"}, {"schema_version", 1}, {"runs", json::array()}};
  EXPECT_NE(render_markdown(empty, catalog()).find("nothing to report"), std::string::npos);
}

} // namespace
} // namespace apod::report::test
