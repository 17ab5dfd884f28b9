// Where each number came from: the environment panels, what differs between the runs, where the
// time went, and telemetry, on the history fixture.
#include "charts/time.hpp"
#include "fixtures.hpp"
#include "page_text.hpp"
#include "provenance.hpp"
#include "report.hpp"
#include "telemetry.hpp"
#include "watts.hpp"

#include <gtest/gtest.h>

#include <set>

namespace apod::report::test {
namespace {

std::string environment_section(const std::string& html) {
  const std::size_t start = html.find("<section id=\"environment\"");
  return html.substr(start, html.find("</section>", start) - start);
}

TEST(Flatten, NestedObjectsListsAndScalarsBecomeDottedKeysAndText) {
  const json environment = {{"host", "gpu-1"},
                            {"apod_dirty", true},
                            {"gpu_state", {{"power_limit_w", 700.5}, {"mig_mode", nullptr}}},
                            {"plan", {{{"name", "peak_copy"}, {"version", 2}}, {{"name", "x"}}}},
                            {"archs", {75, 90}}};
  const auto facts = flatten(environment);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"host", "gpu-1"},
      {"apod_dirty", "yes"},
      {"gpu_state.power_limit_w", "700.5"},
      {"gpu_state.mig_mode", "—"},
      {"plan", "peak_copy v2, x"},
      {"archs", "75, 90"}};
  EXPECT_EQ(facts, expected);
}

class Environment : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    html = new std::string(render_html(history(), catalog(), json::array()));
    section = new std::string(environment_section(*html));
  }
  static void TearDownTestSuite() {
    delete html;
    delete section;
  }
  static bool has(const std::string& text) { return section->find(text) != std::string::npos; }
  static std::string* html;
  static std::string* section;
};
std::string* Environment::html = nullptr;
std::string* Environment::section = nullptr;

TEST_F(Environment, EveryRunHasACollapsedPanelWithItsEnvironmentInGroups) {
  EXPECT_EQ(count(*section, "<details class=\"environment\">"), 12u);
  for (const char* text :
       {"<summary><strong>nightly (0f535a14)</strong> — NVIDIA H200 on gpu-node-1, started "
        "2026-02-01 02:00:00 UTC</summary>",
        "<h4>host</h4>", "<dt>kernel</dt><dd>Linux 6.8.0</dd>", "<h4>build</h4>",
        "<dt>apod_commit</dt><dd>0123456789ab</dd>", "<dt>apod_dirty</dt><dd>no</dd>",
        "<h4>GPU state (NVML)</h4>", "<dt>driver_version</dt><dd>570.86.15</dd>",
        "<dt>power_limit_w</dt><dd>700</dd>", "<h4>sampling</h4>",
        "<dt>target_ci_rel</dt><dd>0.005</dd>", "<h4>repeat</h4>", "<dt>batch</dt><dd>batch-0</dd>",
        "<dt>plan</dt><dd>peak_copy v1, offset_copy v1, stride_copy v1</dd>", "<h4>device</h4>",
        "<dt>uuid</dt><dd>GPU-00000000-synthetic-h200</dd>"})
    EXPECT_TRUE(has(text)) << text;
}

TEST_F(Environment, EachPanelCountsNoisyPointsAndDroppedSamplesPerExperiment) {
  // Run 1's peak_copy: 5 verified points, 1 noisy, 2 samples dropped, 3.5 s (the fixture's).
  EXPECT_TRUE(
      has("<tr class=\"noisy\"><td class=\"mono\">peak_copy</td><td class=\"\">complete</td>"
          "<td class=\"num\">3.50 s</td><td class=\"num\">5</td><td class=\"num\">0</td>"
          "<td class=\"num\">1</td><td class=\"num\">2</td></tr>"));
  EXPECT_TRUE(has("<th class=\"num\" scope=\"col\">dropped samples</th>"));
}

TEST_F(Environment, DifferencesListTheSettingsThatChangeWithTheirRuns) {
  const std::string differences = section->substr(0, section->find("<h3>Where the time went</h3>"));
  for (const char* text :
       {"<td class=\"mono\">gpu_state.driver_version</td>",
        "<li><code>570.86.15</code> — 6 runs: nightly (0f535a14), nightly (0f535b14), nightly "
        "(0f535814), nightly (0f535914) and 2 more</li>",
        "<li><code>570.133.20</code> — 4 runs:", "<td class=\"mono\">kernel</td>",
        "<td class=\"mono\">repeat.batch</td>",
        "device facts that differ only between device models"})
    EXPECT_NE(differences.find(text), std::string::npos) << text;
  // The index inside a batch differs by design; the bus id differs only between the two models.
  EXPECT_EQ(differences.find(">repeat.index<"), std::string::npos);
  EXPECT_EQ(differences.find(">device.pci_bus_id<"), std::string::npos);
  EXPECT_EQ(differences.find(">sampling."), std::string::npos); // the same in every run
}

TEST(EnvironmentOfSameRuns, SaysSoInsteadOfAnEmptyTable) {
  // Three runs, identical environments but for their writing process (bookkeeping that always
  // differs, so it must not turn the note below into a table of differences); the H200 and A100
  // device facts differ only by model.
  json runs = three_runs();
  int pid = 100;
  for (auto& run : runs["runs"])
    run["environment"]["writer"] = {{"host", "h"}, {"pid", pid++}};
  const std::string section = environment_section(render_html(runs, catalog(), json::array()));
  EXPECT_NE(section.find("Every run has the same environment and device settings (a --repeat "
                         "batch&apos;s run index, the writing process and resume records are left "
                         "out, and so are device facts that differ "
                         "only between device models: their cards are above)."),
            std::string::npos);
  EXPECT_EQ(section.find("<table class=\"differences\">"), std::string::npos);
}

TEST(Flatten, FractionalSettingsReadAsSettings) {
  const auto facts = flatten(json{{"khz", 3201000.0}, {"gbs", 63.01538461538462}, {"rel", 0.005}});
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"khz", "3201000"}, {"gbs", "63.0154"}, {"rel", "0.005"}};
  EXPECT_EQ(facts, expected);
}

TEST(EnvironmentOfOneRun, NoDifferencesButAPanel) {
  const std::string section = environment_section(render_html(one_run(), catalog(), json::array()));
  EXPECT_EQ(section.find("What differs"), std::string::npos);
  EXPECT_EQ(count(section, "<details class=\"environment\">"), 1u);
  EXPECT_NE(section.find("No run stored telemetry"), std::string::npos);
}

TEST_F(Environment, WhereTheTimeWentHasABarPerRunAndExperiment) {
  const json results = history();
  const PageModel page = build_page_model(results, catalog());
  ChartIds chart_ids;
  const mustache::data block = time_chart(page, 60, chart_ids);
  ASSERT_TRUE(block.is_object());
  const json spec = json::parse(block.get("spec_json")->string_value());
  const json& rows = spec["data"]["values"];
  EXPECT_EQ(rows.size(), 71u); // 10 runs x 6 experiments, 6 + 5 on the A100s
  EXPECT_EQ(rows[0]["run"], "nightly (0f535a14)");
  EXPECT_EQ(rows[0]["experiment"], "peak_copy");
  EXPECT_DOUBLE_EQ(rows[0]["wall_s"].get<double>(), 3.5);
  EXPECT_EQ(rows[0]["points_text"], "5 ok, 0 failed, 1 noisy; 2 samples dropped");
  EXPECT_EQ(spec["encoding"]["y"]["stack"], "zero");
  EXPECT_TRUE(has("<h3>Where the time went</h3>"));
}

TEST_F(Environment, TelemetryIsSummarisedPerRunAndDrawnForTheNewest) {
  const json results = history();
  const PageModel page = build_page_model(results, catalog());
  const TelemetrySummary first = summarise_telemetry(page.runs[0]);
  EXPECT_EQ(first.readings, 40u);
  EXPECT_DOUBLE_EQ(first.span_s, 9.75);
  EXPECT_DOUBLE_EQ(*first.power_median_w, 520.25);
  EXPECT_DOUBLE_EQ(*first.sm_clock_median_mhz, 1980);
  EXPECT_DOUBLE_EQ(*first.sm_clock_min_mhz, 1410);
  EXPECT_DOUBLE_EQ(*first.temperature_max_c, 47);
  EXPECT_EQ(first.throttled, 2u);
  EXPECT_DOUBLE_EQ(*median_power_w(page.runs[0]), 520.25);
  EXPECT_FALSE(median_power_w(page.runs[11])); // no telemetry

  const json spec = telemetry_chart_spec(page);
  std::set<std::string> runs, quantities;
  for (const auto& row : spec["data"]["values"]) {
    runs.insert(row["run"].get<std::string>());
    quantities.insert(row["quantity"].get<std::string>());
  }
  // The newest three runs that have telemetry (the newest run has none).
  EXPECT_EQ(runs,
            (std::set<std::string>{"nightly (0f536214)", "nightly (0f536314)", "a100 (d501a6d1)"}));
  EXPECT_EQ(quantities, (std::set<std::string>{"SM clock (MHz)", "power (W)", "temperature (°C)"}));
  EXPECT_EQ(spec["data"]["values"].size(), 3u * 40 * 3);
  // Thinned to at most max_points readings per run.
  EXPECT_EQ(telemetry_chart_spec(page, 1, 10)["data"]["values"].size(), 10u * 3);

  EXPECT_TRUE(has("<summary>Telemetry of 11 runs</summary>"));
  EXPECT_TRUE(has("<td class=\"num\">520.2 W (561.1)</td>"));
}

} // namespace
} // namespace apod::report::test
