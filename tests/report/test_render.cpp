// The rendered page: every experiment gets its section in catalog order, the summary holds the
// headline figures, failures are listed with their errors, and odd documents still render.
#include "core/errors.hpp"
#include "fixtures.hpp"
#include "page_text.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

namespace apod::report::test {
namespace {

class RenderedOneRun : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    html = new std::string(render_html(one_run(), catalog(), references()));
  }
  static void TearDownTestSuite() { delete html; }
  static bool has(const std::string& text) { return html->find(text) != std::string::npos; }
  static std::string* html;
};
std::string* RenderedOneRun::html = nullptr;

TEST_F(RenderedOneRun, EveryExperimentHasASectionInCatalogOrderUnknownLast) {
  std::size_t previous = 0;
  int index = 1;
  for (const char* name : {"offset_copy", "stride_copy", "h2d_copy", "staged_copy", "kernel_launch",
                           "atomics_contention", "mystery_probe"}) {
    const std::string anchor =
        "<section class=\"experiment\" id=\"exp-" + std::to_string(index++) + "-" + name + "\"";
    const std::size_t at = html->find(anchor);
    ASSERT_NE(at, std::string::npos) << anchor;
    EXPECT_GT(at, previous) << name;
    previous = at;
  }
  EXPECT_EQ(count(*html, "<section class=\"experiment\""), 7u);
}

TEST_F(RenderedOneRun, SummaryHoldsEachExperimentsBestMedianAndPercent) {
  const std::string summary = html->substr(html->find("id=\"summary\""),
                                           html->find("</section>", html->find("id=\"summary\"")) -
                                               html->find("id=\"summary\""));
  // Best verified medians of the fixture, by each metric's direction.
  for (const char* figure :
       {"3963.8 GB/s", "82.3 %", "word_bytes=8 B, offset=32", "3950.9 GB/s", "82.1 %", "55.02 GB/s",
        "87.3 %", "7.30 ms", "2.10 us", "4014.9 GB/s", "64 ok, 2 failed",
        "failed: CUDA error: out of memory (experiments/atomics_contention.cu:42)"})
    EXPECT_NE(summary.find(figure), std::string::npos) << figure;
  EXPECT_NE(summary.find("href=\"#exp-1-offset_copy\""), std::string::npos);
  // One headline per experiment: h2d_copy's is its GB/s metric, not its transfer time.
  EXPECT_EQ(count(summary, "<tr class="), 7u);
  EXPECT_EQ(summary.find("0.008 ms"), std::string::npos);
}

TEST(RenderedChartMetric, TheCatalogsChartMetricIsChartedAndHeadlined) {
  json experiments = catalog();
  for (json& declaration : experiments["experiments"])
    if (declaration["name"] == "h2d_copy") { // headlined by its time, charted by it alone
      declaration["headline"] = "transfer_time";
      declaration["charts"].erase(declaration["charts"].begin());
    }
  const std::string html = render_html(one_run(), experiments, json::array());
  const std::size_t at = html.find("id=\"summary\"");
  const std::string summary = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(summary.find("0.008 ms"), std::string::npos);
  const std::size_t first = html.find("<section class=\"experiment\"");
  const std::string sections = html.substr(first, html.find("<section id=\"runs\"") - first);
  EXPECT_EQ(count(sections, "<script type=\"application/json\" data-chart-for="),
            6u); // h2d_copy's bandwidth gets no chart of its own
  EXPECT_NE(html.find("55.02 GB/s"), std::string::npos); // but stays in the values table
}

TEST(RenderedReferences, DocumentsOfDataReferenceAreAcceptedToo) {
  const json figures = references();
  const json as_document = {{"source", "synthetic"}, {"figures", figures}};
  for (const json& form : {figures, as_document, json::array({as_document})}) {
    const std::string html = render_html(one_run(), catalog(), form);
    EXPECT_NE(html.find("790.0 GB/s"), std::string::npos) << form.dump().substr(0, 40);
    EXPECT_EQ(count(html, "<h3>Published figures</h3>"), 2u);
  }
}

TEST(RenderedStatistics, ConfidenceIntervalsAndNoisyPointsAreShown) {
  json results = one_run();
  json& point = results["runs"][0]["measurements"][66]; // stride_copy, stride 1
  // Ten samples: the 95% CI of the median is [x(2), x(9)] (runner/core/measurement.cpp), always
  // computed from the samples, never taken from a document's stored figures.
  point["samples"] = {3930.0, 3940.0, 3945.0, 3946.0, 3947.0,
                      3948.0, 3949.0, 3950.0, 3960.5, 3970.0};
  point["sample_excluded"] = json::array({0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  point["n"] = 10;
  point["ci_low"] = 1.0; // a stored figure that disagrees with the samples is ignored
  point["noisy"] = true;
  const std::string html = render_html(results, catalog(), json::array());
  EXPECT_NE(html.find("<th class=\"num\" scope=\"col\">95% CI of median</th>"), std::string::npos);
  EXPECT_NE(html.find("3940.0 GB/s – 3960.5 GB/s"), std::string::npos);
  EXPECT_NE(html.find("yes; noisy: confidence target not reached"), std::string::npos);
}

TEST_F(RenderedOneRun, DeviceFactsCarryUnits) {
  for (const char* fact :
       {"4815.2 GB/s", "63.0 GB/s per direction", "139.8 GiB", "3201 MHz", "6016 bits", "60 MiB",
        "Gen 5 x16", "CUDA 13.0", "132 SMs", "2026-01-15 10:00:00 UTC"})
    EXPECT_TRUE(has(fact)) << fact;
}

TEST_F(RenderedOneRun, FailedPointsAreListedWithTheirErrorAndNoFigure) {
  EXPECT_TRUE(has("failed: cudaErrorLaunchFailure: unspecified launch failure "
                  "(experiments/offset_copy.cu:88)"));
  EXPECT_TRUE(has("failed: output mismatch at element 1048577: got 0, expected 3.5"));
  EXPECT_TRUE(has("<tr class=\"failed\">"));
  EXPECT_TRUE(has("<strong>Failed</strong> in run"));
  EXPECT_TRUE(has("Values: 66 points, 2 failed"));
}

TEST_F(RenderedOneRun, NotesPublishedFiguresAndVersions) {
  EXPECT_TRUE(has("790.0 GB/s")); // published figure and its share of its own device's limit
  EXPECT_TRUE(has("88.0 %"));
  EXPECT_FALSE(has("must not be shown")); // a reference for an experiment not in the results
  EXPECT_TRUE(has("Measured with version 1 of this experiment; this build describes version 2"));
  EXPECT_TRUE(has("Not in this build&apos;s experiment catalog"));
  EXPECT_TRUE(has("Red dashed: theoretical DRAM bandwidth."));
}

TEST_F(RenderedOneRun, ValueTablesStartFolded) {
  // Every value table, short ones too (issue 25: the charts draw the points; a one-run page was
  // 29 screens long); a short table of published figures stays open.
  EXPECT_TRUE(has("<details class=\"values\">\n<summary>Values: 66 points"));
  EXPECT_TRUE(has("<details class=\"values\">\n<summary>Values: 7 points"));
  EXPECT_TRUE(has("<h3>Published figures</h3>\n<details class=\"values\" open>\n"
                  "<summary>1 published figure</summary>"));
}

TEST(RenderedReferences, LongPublishedTablesStartFoldedToo) {
  json figures = json::array();
  for (int i = 0; i < 41; ++i)
    figures.push_back(references()[0]); // offset_copy's
  const std::string html = render_html(one_run(), catalog(), figures);
  EXPECT_NE(html.find("<h3>Published figures</h3>\n<details class=\"values\">\n"
                      "<summary>41 published figures</summary>"),
            std::string::npos);
}

TEST(RenderedThreeRuns, RunsAreNamedApartAndTablesGetARunColumn) {
  const std::string html = render_html(three_runs(), catalog(), json::array());
  EXPECT_NE(html.find("3 runs on 2 devices"), std::string::npos);
  EXPECT_NE(html.find("nightly (0a1b2c3d)"), std::string::npos);
  EXPECT_NE(html.find("nightly (1b2c3d4e)"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"\" scope=\"col\">run</th>"), std::string::npos);
  EXPECT_NE(html.find("<dd>unknown</dd>"), std::string::npos); // the A100's PCIe limit
  EXPECT_EQ(html.find("Published figures"), std::string::npos);
}

TEST(RenderedOddDocuments, EmptyAndSparseResultsStillRender) {
  const json empty = {{"format", "apod-results"}, {"schema_version", 1}, {"runs", json::array()}};
  const std::string html = render_html(empty, json::object(), json::array());
  EXPECT_NE(html.find("nothing to report"), std::string::npos);

  // What import would refuse, the report refuses too (one validation: core/run_record.hpp).
  json sparse = {
      {"runs",
       {{{"id", "abc"},
         {"measurements",
          {{{"experiment", "bare"}, {"median", 1.0}, {"status", "ok"}, {"verified", true}}}}}}}};
  EXPECT_THROW(render_html(sparse, json::object(), json::array()), InputError);
  // The least a valid document holds still renders, drawn against the run.
  sparse = {{"format", "apod-results"},
            {"schema_version", 2},
            {"runs",
             {{{"id", "abc"},
               {"started_at", "2026-11-22T00:00:00.000Z"},
               {"status", "complete"},
               {"device", {{"name", "GPU"}}},
               {"measurements",
                {{{"experiment", "bare"},
                  {"params", json::object()},
                  {"metric", "value"},
                  {"unit", "1"},
                  {"samples", {1.0}},
                  {"verified", true}}}}}}}};
  std::string page;
  EXPECT_NO_THROW(page = render_html(sparse, json::object(), json::array()));
  EXPECT_NE(page.find("id=\"exp-1-bare\""), std::string::npos);
  EXPECT_NE(page.find("data-chart-for=\"chart-1\""), std::string::npos); // drawn against run
}

TEST(Model, BestFollowsTheMetricsDirection) {
  const json results = one_run();
  const PageModel page = build_page_model(results, catalog());
  EXPECT_DOUBLE_EQ(metric_in(experiment_in(page, "h2d_copy"), "transfer_time").best()->median,
                   0.008);
  EXPECT_NEAR(metric_in(experiment_in(page, "h2d_copy"), "effective_bandwidth").best()->median,
              55.024, 1e-9);
  EXPECT_EQ(experiment_in(page, "atomics_contention").failures.size(), 1u);
}

} // namespace
} // namespace apod::report::test
