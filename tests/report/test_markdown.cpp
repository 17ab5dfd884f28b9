// `apod report --format markdown` (report/markdown.cpp): nvbench-shaped tables per experiment and
// run (parameters, samples, GPU time, noise, median, % of limit, status), the headline figures,
// the verdict against the pinned baseline, escaping, and the newest run per model past 8 runs.
#include "fixtures.hpp"
#include "page_text.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

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

TEST(Markdown, HeadlinesAndTheVerdictComeFirst) {
  json results = history();
  RenderOptions options;
  options.baseline_run = results["runs"][0]["id"];
  const std::string md = render_markdown(results, catalog(), options);
  const std::size_t headlines = md.find("## Headline figures");
  const std::size_t verdict = md.find("## Against the pinned baseline");
  const std::size_t tables = md.find("## Achievable copy bandwidth");
  ASSERT_NE(headlines, std::string::npos);
  EXPECT_LT(headlines, verdict);
  EXPECT_LT(verdict, tables);
  EXPECT_NE(
      md.find("| NVIDIA H200 | Misaligned copy\\: effective bandwidth | word\\_bytes\\=4 B\\, "
              "offset\\=8 | 3938\\.5 GB\\/s | 81.8 % | 25.3 % | 10 |"),
      std::string::npos);
  EXPECT_NE(md.find(": run nightly \\(0f536314\\) against the pinned "
                    "baseline nightly \\(0f535a14\\)."),
            std::string::npos);
  // 12 runs: the newest run of each model, and it says so.
  EXPECT_NE(md.find("Points of the newest run of each device model (2 of 12 runs"),
            std::string::npos);
  EXPECT_EQ(count(md, "### nightly \\(0f536314\\) · NVIDIA H200"), 6u); // one per experiment
  EXPECT_EQ(md.find("### nightly \\(0f535a14\\)"), std::string::npos);
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
