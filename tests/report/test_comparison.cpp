// The hardware comparison (several device models, published devices for context, GB/s per $1000
// and per W), the --prices file's checks, and a point's own limit (extra.limit_gbs).
#include "comparison.hpp"
#include "core/errors.hpp"
#include "fixtures.hpp"
#include "headlines.hpp"
#include "page_text.hpp"
#include "report.hpp"
#include "sections.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

namespace apod::report::test {
namespace {

std::string comparison_of(const std::string& html) {
  const std::size_t start = html.find("<section id=\"comparison\"");
  if (start == std::string::npos)
    return "";
  return html.substr(start, html.find("</section>", start) - start);
}

const DeviceFigure& figure_of(const std::vector<DeviceFigure>& figures, const std::string& figure,
                              const std::string& device) {
  for (const auto& f : figures)
    if (f.figure == figure && f.device == device)
      return f;
  throw std::runtime_error("no figure " + figure + " for " + device);
}

class Comparison : public ::testing::Test {
protected:
  json results = history();
  PageModel page = build_page_model(results, catalog());
  std::vector<HeadlineSeries> headlines = headline_series(page);
  json published = references();
  std::vector<const json*> figures_published = published_figures(published);
  Prices prices = {{"NVIDIA H200", 32000}, {"NVIDIA A100-SXM4-40GB", 10000}, {"Tesla V100", 9000}};
  std::vector<DeviceFigure> figures =
      device_figures(page, headlines, figures_published, catalog(), prices);
};

TEST_F(Comparison, EachDevicesFiguresAreNormalisedToItsOwnLimit) {
  const DeviceFigure& h200 =
      figure_of(figures, "Misaligned copy: effective bandwidth", "NVIDIA H200");
  EXPECT_NEAR(h200.gbs, 3938.53125, 1e-6);
  EXPECT_EQ(h200.limit, LimitKind::dram);
  EXPECT_NEAR(*h200.pct_of_limit, 81.79372, 1e-4);
  const DeviceFigure& a100 =
      figure_of(figures, "Misaligned copy: effective bandwidth", "NVIDIA A100-SXM4-40GB");
  EXPECT_NEAR(*a100.pct_of_limit, 100.0 * a100.gbs / 1555.2, 0.1);
  // Transfers against PCIe: the H200 has a PCIe limit, the fixture's A100 none.
  const std::string h2d = "Host-to-device copy <pinned & pageable>: effective bandwidth";
  EXPECT_EQ(figure_of(figures, h2d, "NVIDIA H200").limit, LimitKind::pcie);
  EXPECT_NEAR(*figure_of(figures, h2d, "NVIDIA H200").pct_of_limit, 100.0 * 55.01 / 63.0, 0.1);
  EXPECT_FALSE(figure_of(figures, h2d, "NVIDIA A100-SXM4-40GB").pct_of_limit);
  // Times are not bandwidth figures: no comparison row.
  for (const auto& f : figures)
    EXPECT_EQ(f.figure.find("elapsed"), std::string::npos);
}

TEST_F(Comparison, PublishedDevicesAreNormalisedTheSameWayForExperimentsMeasured) {
  const DeviceFigure& v100 =
      figure_of(figures, "Misaligned copy: effective bandwidth", "Tesla V100 (synthetic)");
  EXPECT_TRUE(v100.published);
  EXPECT_DOUBLE_EQ(v100.gbs, 790.0);
  EXPECT_NEAR(*v100.pct_of_limit, 100.0 * 790 / 898, 1e-9);
  EXPECT_FALSE(v100.gbs_per_kusd); // a price for a published device is not ours to apply
  for (const auto& f : figures)
    EXPECT_NE(f.device, "nowhere"); // its experiment was not measured
  // The real reference documents: V100, Quadro FX5800, and the gist's times-only devices.
  const json documents = reference_figures();
  const auto real = published_figures(documents);
  const auto with_real = device_figures(page, headlines, real, catalog(), prices);
  const DeviceFigure& fx5800 =
      figure_of(with_real, "Misaligned copy: effective bandwidth", "Quadro FX5800");
  EXPECT_DOUBLE_EQ(fx5800.gbs, 80.0); // the best of its published offset-copy figures
  EXPECT_NEAR(*fx5800.pct_of_limit, 100.0 * 80 / 102, 1e-9);
  const std::string section = comparison_of(render_html(results, catalog(), documents));
  for (const char* device : {"Tesla V100", "Quadro FX5800", "NVS 5200M", "Tesla K20c"})
    EXPECT_NE(section.find("<td class=\"\">" + std::string(device) + "</td>"), std::string::npos)
        << device;
  EXPECT_NE(section.find("times only, no bandwidth to normalise: overlap_matrix"),
            std::string::npos);
  EXPECT_NE(section.find("25.10 GB/s"), std::string::npos); // NVS 5200M's theoretical DRAM
}

TEST_F(Comparison, PerDollarAndPerWattUseThePriceAndEachRunsMedianPower) {
  const DeviceFigure& h200 =
      figure_of(figures, "Misaligned copy: effective bandwidth", "NVIDIA H200");
  EXPECT_NEAR(*h200.gbs_per_kusd, 3938.53125 / 32.0, 1e-9);
  EXPECT_NEAR(*h200.gbs_per_w, 7.560227339779324, 1e-9); // median over runs of GB/s / median W
  RenderOptions options;
  options.prices = prices;
  const std::string section = comparison_of(render_html(results, catalog(), published, options));
  for (const char* text :
       {"<th class=\"num\" scope=\"col\">GB/s per $1000</th>",
        "<th class=\"num\" scope=\"col\">GB/s per W</th>", "<td class=\"num\">123.1</td>",
        "<td class=\"num\">7.56</td>", "<td class=\"num\">$32000</td>",
        "<td class=\"num\">520.5 W</td>", "Prices for models not in these results: Tesla V100."})
    EXPECT_NE(section.find(text), std::string::npos) << text;
  EXPECT_EQ(count(section, "data-chart-for="), 3u); // % of theoretical, per dollar, per watt
}

// Runs whose telemetry names the experiment in flight: per-watt figures use the power drawn
// during the point's work, never the run's median power.
TEST(PerWatt, UsesThePowerDrawnDuringThePointsWork) {
  json results = history();
  for (json& run : results["runs"]) {
    for (json& reading : run["telemetry"])
      reading["experiment"] = "peak_copy"; // offset_copy's points are not in flight in any reading
    for (json& m : run["measurements"])
      if (m["experiment"] == "offset_copy") // half a second of sampling that used 200 J: 400 W
        m["extra"]["sampling_window"] = {
            {"start_s", 1.0}, {"end_s", 1.5}, {"busy_s", 0.5}, {"energy_j", 200.0}};
  }
  const PageModel page = build_page_model(results, catalog());
  const std::vector<HeadlineSeries> headlines = headline_series(page);
  const auto figures = device_figures(page, headlines, {}, catalog(), {});
  const DeviceFigure& h200 =
      figure_of(figures, "Misaligned copy: effective bandwidth", "NVIDIA H200");
  EXPECT_NEAR(*h200.gbs_per_w, h200.gbs / 400.0, 1e-9);
  const std::string h2d = "Host-to-device copy <pinned & pageable>: effective bandwidth";
  EXPECT_FALSE(figure_of(figures, h2d, "NVIDIA H200").gbs_per_w)
      << "no power was measured during host_transfer: no figure, not the run's median";
}

TEST(ComparisonShown, OnlyForSeveralModelsOrWithPrices) {
  EXPECT_EQ(comparison_of(render_html(one_run(), catalog(), references())), "");
  RenderOptions options;
  options.prices = {{"NVIDIA H200 <b>&\"'", 30000}};
  const std::string section =
      comparison_of(render_html(one_run(), catalog(), references(), options));
  ASSERT_NE(section, "");
  EXPECT_NE(section.find("<td class=\"num\">$30000</td>"), std::string::npos);
  // No telemetry in this run: per dollar but no per watt.
  EXPECT_EQ(section.find("GB/s per W</th>"), std::string::npos);
  EXPECT_NE(section.find("No run has power telemetry"), std::string::npos);
}

TEST(Prices, AValidFileGivesEachModelsPrice) {
  const Prices prices = parse_prices(json::parse(R"({"NVIDIA H200": 32000, "A100": 9999.5})"));
  const Prices expected = {{"NVIDIA H200", 32000}, {"A100", 9999.5}};
  EXPECT_EQ(prices, expected);
}

TEST(Prices, BadDocumentsAreInputErrorsThatSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([32000])", "expected a JSON object"},
      {R"({"NVIDIA H200": "32000"})", "the price of \"NVIDIA H200\" is \"32000\""},
      {R"({"NVIDIA H200": -1})", "not a positive number"},
      {R"({"NVIDIA H200": 0})", "not a positive number"},
      {R"({"NVIDIA H200": null})", "is null"},
      {R"({"": 5})", "a device model is empty"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_prices(json::parse(text), "--prices p.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const apod::InputError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).rfind("--prices p.json: ", 0), 0u) << error.what();
    }
  }
}

TEST(Prices, UnreadableAndMalformedFilesAreInputErrors) {
  EXPECT_THROW(load_prices("/nonexistent/prices.json"), apod::InputError);
  const std::string path = ::testing::TempDir() + "apod_bad_prices.json";
  std::ofstream(path) << "{\"NVIDIA H200\": 32000,";
  try {
    load_prices(path);
    ADD_FAILURE() << "accepted a truncated file";
  } catch (const apod::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("not valid JSON"), std::string::npos);
  }
  std::ofstream(path) << "{\"NVIDIA H200\": 32000}";
  EXPECT_EQ(load_prices(path).size(), 1u);
  std::remove(path.c_str());
}

TEST(OwnLimit, APointsExtraLimitReplacesItsDevicesLimit) {
  json results = one_run();
  json* zero_copy = nullptr;
  for (auto& m : results["runs"][0]["measurements"])
    if (m["experiment"] == "h2d_copy" && m["metric"] == "effective_bandwidth" && !zero_copy)
      zero_copy = &m;
  ASSERT_NE(zero_copy, nullptr);
  (*zero_copy)["extra"]["limit_gbs"] = 126.0; // both directions of a 63 GB/s link
  const PageModel page = build_page_model(results, catalog());
  const auto& points = metric_in(experiment_in(page, "h2d_copy"), "effective_bandwidth").points;
  EXPECT_TRUE(points[0].own_limit);
  EXPECT_NEAR(*points[0].pct_of_limit, 100.0 * points[0].median / 126.0, 1e-9);
  EXPECT_NEAR(*points[1].pct_of_limit, 100.0 * points[1].median / 63.0, 1e-9);
  const json spec = spec_for(page, "h2d_copy", "effective_bandwidth");
  std::set<std::string> labels;
  for (const auto& row : rows_of(spec, "limit_rule"))
    labels.insert(row["label"].get<std::string>());
  // Two limits on one device: each rule is named in words.
  EXPECT_EQ(labels, (std::set<std::string>{"PCIe line rate per direction: 63.00 GB/s",
                                           "the point's own limit: 126.0 GB/s"}));
}

} // namespace
} // namespace apod::report::test
