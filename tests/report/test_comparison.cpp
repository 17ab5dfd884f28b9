// The buyer's comparison (report/matched.cpp, charts/comparison.cpp, sections/comparison.cpp,
// markdown_comparison.cpp): matched points only, of one experiment version; one line per
// workload class, a geometric mean; absolute values first with the run spread; each figure
// against its own device's limit after; published figures beside the same measurement only, DRAM
// and PCIe on charts of their own, per-$ and per-W only with two or more models, per-W only from
// power measured during the work, stable colours, sortable tables and the composite; the --prices
// file's checks (board power included); and a point's own limit (extra.limit_gbs).
#include "charts/comparison.hpp"
#include "class_lines.hpp"
#include "context.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "fixtures.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "markdown.hpp"
#include "matched.hpp"
#include "page_text.hpp"
#include "palette.hpp"
#include "report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
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

const MatchedFigure& matched(const std::vector<MatchedFigure>& figures,
                             const std::string& experiment, const std::string& metric) {
  for (const auto& f : figures)
    if (f.experiment->name == experiment && f.metric->metric == metric)
      return f;
  throw std::runtime_error("no matched figure " + experiment + " " + metric);
}

const std::string h200 = "NVIDIA H200", a100 = "NVIDIA A100-SXM4-40GB";

class Comparison : public ::testing::Test {
protected:
  json results = history();
  PageModel page = build_page_model(results, catalog());
  Prices prices = {{h200, 32000}, {a100, 10000}, {"Tesla V100", 9000}};
  std::vector<MatchedFigure> headline = matched_figures(page, prices, true);
  std::vector<MatchedFigure> every = matched_figures(page, prices, false);
};

TEST_F(Comparison, OnlyPointsMeasuredOnEveryModelAtTheSameParametersAreSetSideBySide) {
  for (const auto& figure : every) {
    ASSERT_GE(figure.models.size(), 2u) << figure.title();
    for (const auto& model : figure.models)
      EXPECT_EQ(*model.across.params, figure.params) << figure.title();
  }
  const MatchedFigure& offset = matched(headline, "offset_copy", "effective_bandwidth");
  // A memory-bound throughput: each model at its own best point among those both measured.
  EXPECT_EQ(offset.workload, Workload::memory_bound);
  EXPECT_TRUE(offset.own_best);
  EXPECT_EQ(offset.params, json({{"word_bytes", 8}, {"offset", 8}}));
  EXPECT_EQ(offset.models[0].model, h200);
  EXPECT_EQ(offset.models[0].across.points.size(), 10u);
  EXPECT_EQ(offset.models[1].across.points.size(), 2u);
  EXPECT_EQ(offset.family, "DRAM");
  EXPECT_EQ(&offset.best(), &offset.models[0]);
  EXPECT_NEAR(offset.advantage(offset.models[1]),
              offset.models[0].across.median / offset.models[1].across.median, 1e-12);
  for (std::size_t m = 0; m < 2; ++m)
    for (const auto& other : every)
      if (other.experiment == offset.experiment && other.metric == offset.metric)
        EXPECT_LE(other.models[m].across.median, offset.models[m].across.median + 1e-9);
}

TEST(ComparisonMatching, APointOneModelLacksIsNeverComparedWithAnotherPoint) {
  json results = history();
  // The A100 never measured offset 8: the comparison moves to points both measured.
  for (std::size_t r = 10; r < 12; ++r) {
    json& measurements = results["runs"][r]["measurements"];
    for (auto it = measurements.begin(); it != measurements.end();)
      it = (*it)["experiment"] == "offset_copy" && (*it)["params"]["offset"] == 8
               ? measurements.erase(it)
               : it + 1;
  }
  const PageModel page = build_page_model(results, catalog());
  const auto figures = matched_figures(page, {}, true);
  const MatchedFigure& offset = matched(figures, "offset_copy", "effective_bandwidth");
  ASSERT_EQ(offset.models.size(), 2u);
  for (const auto& model : offset.models)
    EXPECT_NE((*model.across.params)["offset"], 8) << model.model;
}

// A fixture where the H200 measured offset_copy at versions 1 and 2 and the A100 at version 2
// only: only version 2's points are compared, never pooled with version 1's.
TEST(ComparisonMatching, TwoVersionsOfOneExperimentAreNeverMatched) {
  json results = history();
  for (std::size_t r = 0; r < results["runs"].size(); ++r) {
    json& run = results["runs"][r];
    const bool old = r < 5; // H200 runs 0-4: version 1, at half the bandwidth
    for (json& e : run["experiments"])
      if (e["name"] == "offset_copy")
        e["version"] = old ? 1 : 2;
    if (!old)
      continue;
    for (json& m : run["measurements"])
      if (m["experiment"] == "offset_copy") {
        for (json& sample : m["samples"])
          sample = sample.get<double>() / 2;
        for (const char* key : {"median", "min", "max", "mean", "q1", "q3", "ci_low", "ci_high"})
          if (m[key].is_number())
            m[key] = m[key].get<double>() / 2;
      }
  }
  const PageModel page = build_page_model(results, catalog());
  const auto figures = matched_figures(page, {}, true);
  const MatchedFigure& offset = matched(figures, "offset_copy", "effective_bandwidth");
  EXPECT_EQ(offset.version, 2);
  EXPECT_EQ(offset.other_versions, std::vector<long long>{1});
  const ModelFigure& h = offset.models[0];
  ASSERT_EQ(h.model, h200);
  ASSERT_EQ(h.across.points.size(), 5u); // runs 5-9 only
  std::vector<double> medians;
  for (const PointView* point : h.across.points) {
    EXPECT_GE(point->run->index, 5u);
    medians.push_back(point->median);
  }
  std::sort(medians.begin(), medians.end());
  EXPECT_DOUBLE_EQ(h.across.median, medians[2]); // the median of the five v2 run medians
  EXPECT_NEAR(offset.advantage(offset.models[1]), h.across.median / offset.models[1].across.median,
              1e-12);
  for (const auto& figure : matched_figures(page, {}, false))
    if (figure.experiment == offset.experiment)
      for (const auto& model : figure.models)
        for (const PointView* point : model.across.points)
          EXPECT_TRUE(model.model != h200 || point->run->index >= 5) << figure.title();
  // Without a version both measured, nothing is compared.
  for (json& run : results["runs"])
    for (json& e : run["experiments"])
      if (e["name"] == "offset_copy")
        e["version"] = run["device"]["name"] == h200 ? 1 : 2;
  const PageModel apart = build_page_model(results, catalog());
  for (const auto& figure : matched_figures(apart, {}, true))
    EXPECT_NE(figure.experiment->name, "offset_copy");
}

TEST_F(Comparison, TimesAreComparedTheRightWayRound) {
  const MatchedFigure& staged = matched(headline, "staged_copy", "elapsed");
  EXPECT_FALSE(staged.metric->higher_is_better);
  const ModelFigure& best = staged.best();
  for (const auto& model : staged.models)
    EXPECT_LE(best.across.median, model.across.median);
  EXPECT_FALSE(staged.is_throughput()); // no per-$ or per-W for a time
  EXPECT_FALSE(staged.models[0].per_kusd);
}

TEST_F(Comparison, PerDollarAndPerWattNeedTwoModelsWithAPriceOrPower) {
  const MatchedFigure& offset = matched(headline, "offset_copy", "effective_bandwidth");
  EXPECT_NEAR(*offset.models[0].per_kusd, offset.models[0].across.median / 32.0, 1e-9);
  EXPECT_NEAR(*offset.models[1].per_kusd, offset.models[1].across.median / 10.0, 1e-9);
  // The fixture's telemetry does not name the experiment in flight: no per-W figure, and the
  // reason, never the whole run's median power.
  EXPECT_FALSE(offset.models[0].per_w);
  EXPECT_EQ(offset.models[0].per_w_missing,
            "power not measured during this experiment in these runs");
  EXPECT_EQ(offset.models[1].per_w_missing, // its second run has no telemetry at all
            "power not measured during this experiment in these runs");
  const auto colours = stable_colours(page.device_models);
  EXPECT_FALSE(
      matched_chart(headline, "DRAM", Measure::per_kusd, page.device_models, colours).is_null());
  // One model priced: nothing to compare per dollar, so no chart and no column.
  const auto one_priced = matched_figures(page, {{h200, 32000}}, true);
  EXPECT_TRUE(
      matched_chart(one_priced, "DRAM", Measure::per_kusd, page.device_models, colours).is_null());
  RenderOptions options;
  options.prices = {{h200, 32000}};
  const std::string section =
      comparison_of(render_html(results, catalog(), json::array(), options));
  EXPECT_EQ(section.find("per $1000</th>"), std::string::npos);
  options.prices = prices;
  const std::string priced = comparison_of(render_html(results, catalog(), json::array(), options));
  EXPECT_NE(priced.find("per $1000</th>"), std::string::npos);
  EXPECT_NE(priced.find("<td class=\"num\" data-sort=\"32000\">$32000</td>"), std::string::npos);
}

TEST_F(Comparison, DramAndPcieFiguresNeverShareAnAxis) {
  const auto colours = stable_colours(page.device_models);
  for (const char* family : {"DRAM", "PCIe"})
    for (const Measure measure : {Measure::pct_of_limit, Measure::per_kusd, Measure::per_w}) {
      const json spec = matched_chart(headline, family, measure, page.device_models, colours);
      if (spec.is_null())
        continue;
      for (const auto& row : spec["data"]["values"]) {
        const MatchedFigure* figure = nullptr;
        for (const auto& f : headline)
          if (row["figure"].get<std::string>().find(short_title(f.experiment->title)) == 0)
            figure = &f;
        ASSERT_NE(figure, nullptr) << row.dump();
        EXPECT_EQ(figure->family, family) << row.dump();
      }
    }
  const json dram = matched_chart(headline, "DRAM", Measure::per_kusd, page.device_models, colours);
  EXPECT_EQ(dram["layer"][0]["encoding"]["x"]["title"], "GB/s per $1000");
  // The % chart draws the 100 % its caption promises.
  const json pct =
      matched_chart(headline, "DRAM", Measure::pct_of_limit, page.device_models, colours);
  ASSERT_EQ(layers_with_mark(pct, "rule").size(), 1u);
  EXPECT_EQ(layers_with_mark(pct, "rule")[0]["encoding"]["x"]["datum"], 100);
}

TEST(StableColours, AModelKeepsItsColourInEveryReport) {
  // FNV-1a of the name into the fixed palette: the same in every report, whatever else is in it.
  EXPECT_EQ(palette_slot("NVIDIA H200"), palette_slot("NVIDIA H200"));
  const auto alone = stable_colours({"NVIDIA H200"});
  const auto with_others = stable_colours({"NVIDIA H100 80GB HBM3", "NVIDIA H200", "Tesla V100"});
  EXPECT_EQ(alone[0], with_others[1]);
  EXPECT_EQ(alone[0], palette()[palette_slot("NVIDIA H200")]);
  // Two names that hash alike still get two colours within one chart.
  std::string first = "a", second;
  for (int i = 0; second.empty(); ++i)
    if (const std::string name = fmt::format("m{}", i); palette_slot(name) == palette_slot(first))
      second = name;
  const auto pair = stable_colours({first, second});
  EXPECT_NE(pair[0], pair[1]);
  // The comparison's charts carry that colour per model.
  const json results = history();
  const PageModel page = build_page_model(results, catalog());
  const auto colours = stable_colours(page.device_models);
  const json spec = matched_chart(matched_figures(page, {}, true), "DRAM", Measure::pct_of_limit,
                                  page.device_models, colours);
  EXPECT_EQ(spec["layer"][0]["encoding"]["color"]["scale"]["range"][0],
            palette()[palette_slot("NVIDIA H200")]);
}

TEST_F(Comparison, TheCompositeIsTheGeometricMeanOfPercentOfLimitPerFamily) {
  const std::string section = comparison_of(render_html(results, catalog(), json::array()));
  double log_sum = 0;
  int n = 0;
  for (const auto& figure : headline)
    if (figure.family == "DRAM" && figure.models.size() == 2 &&
        figure.models[0].across.pct_of_limit && figure.models[1].across.pct_of_limit) {
      log_sum += std::log(*figure.models[0].across.pct_of_limit);
      ++n;
    }
  ASSERT_GT(n, 1);
  const std::string expected = format_percent(std::exp(log_sum / n));
  EXPECT_NE(section.find("<td class=\"\">device memory (DRAM)</td><td class=\"num\" data-sort=\"" +
                         std::to_string(n) + "\">" + std::to_string(n) + "</td><td class=\"num\""),
            std::string::npos);
  EXPECT_NE(section.find(">" + expected + "</td>"), std::string::npos) << expected;
  // After the absolute values, and labelled as each card's own limit.
  const std::size_t own = section.find("<h3>% of each card's own limit</h3>");
  ASSERT_NE(own, std::string::npos);
  EXPECT_LT(section.find("<h3>Headline figures, matched: absolute values</h3>"), own);
  EXPECT_NE(section.find("A card that reaches more of a lower limit is not the faster card"),
            std::string::npos);
}

TEST_F(Comparison, PublishedFiguresAreShownOnlyBesideTheSameMeasurement) {
  const std::string section = comparison_of(render_html(results, catalog(), references()));
  // The V100's offsetCopy at word_bytes=4, offset=0, beside ours at that point on both models.
  const std::size_t v100 = section.find("Tesla V100 (synthetic) (published)");
  ASSERT_NE(v100, std::string::npos);
  EXPECT_NE(section.find("<td class=\"\">word_bytes=4 B, offset=0</td>", v100), std::string::npos);
  EXPECT_NE(section.find("88.0 %", v100), std::string::npos);
  EXPECT_EQ(section.find("must not be shown"), std::string::npos);
  EXPECT_EQ(section.find("nowhere"), std::string::npos);
  // A published figure whose point was not measured is left out rather than set beside another.
  json other = references();
  other[0]["params"]["offset"] = 99;
  const std::string without = comparison_of(render_html(results, catalog(), other));
  EXPECT_EQ(without.find("Tesla V100 (synthetic) (published)</td><td class=\"\">word_bytes"),
            std::string::npos);
}

TEST_F(Comparison, TablesAreSortable) {
  const std::string section = comparison_of(render_html(results, catalog(), json::array()));
  EXPECT_NE(section.find("<table class=\"compared-devices sortable\">"), std::string::npos);
  EXPECT_NE(section.find("<table class=\"comparison sortable\">"), std::string::npos);
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
  const auto figures = matched_figures(page, {}, true);
  const ModelFigure& offset = matched(figures, "offset_copy", "effective_bandwidth").models[0];
  ASSERT_TRUE(offset.per_w);
  EXPECT_NEAR(*offset.per_w, offset.across.median / 400.0, 1e-6);
  for (const auto& model : matched(figures, "h2d_copy", "effective_bandwidth").models) {
    EXPECT_FALSE(model.per_w) << "no power was measured during h2d_copy: no figure, not the "
                                 "run's median";
    EXPECT_FALSE(model.per_w_missing.empty());
  }
  // The class line carries the measured per W of the figures that have one.
  const auto lines = class_lines(figures, page.device_models);
  const auto memory = std::find_if(lines.begin(), lines.end(),
                                   [](const ClassLine& l) { return l.label == "memory-bound"; });
  ASSERT_NE(memory, lines.end());
  EXPECT_TRUE(memory->per_w);
  EXPECT_NE(memory->text().find(", per W " + format_ratio(*memory->per_w)), std::string::npos)
      << memory->text();
}

TEST(PerWatt, NotAvailableWithTheReasonWhereTelemetryDoesNotNameTheExperiment) {
  RenderOptions options;
  options.board_power_w = {{h200, 700}, {a100, 400}}; // never a measured power
  const json results = history();
  const PageModel page = build_page_model(results, catalog());
  for (const auto& figure : matched_figures(page, options.prices, true))
    for (const auto& model : figure.models)
      EXPECT_FALSE(model.per_w) << figure.title();
  const std::string section =
      comparison_of(render_html(results, catalog(), json::array(), options));
  EXPECT_NE(section.find("per W n/a (power not measured during this experiment in these runs)"),
            std::string::npos);
  EXPECT_NE(section.find(">n/a: not measured during this experiment</td>"), std::string::npos);
  // The whole run's median power (the fixture's readings: about 500 W) is nowhere a per-W.
  EXPECT_EQ(section.find("power drawn during the work"), std::string::npos);
}

TEST(ComparisonShown, OnlyWithTwoOrMoreModels) {
  EXPECT_EQ(comparison_of(render_html(one_run(), catalog(), references())), "");
  RenderOptions options;
  options.prices = {{"NVIDIA H200 <b>&\"'", 30000}};
  EXPECT_EQ(comparison_of(render_html(one_run(), catalog(), references(), options)), "");
  EXPECT_NE(comparison_of(render_html(history(), catalog(), references())), "");
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

TEST(Prices, BoardPowerLoadsAndIsShownAsBoardPowerNeverAsMeasured) {
  const PriceFile file = parse_price_file(json::parse(
      R"({"NVIDIA H200": {"usd": 32000, "board_power_w": 700}, "NVIDIA A100-SXM4-40GB": 10000,
          "Tesla V100": {"board_power_w": 300}})"));
  const Prices prices = {{"NVIDIA H200", 32000}, {"NVIDIA A100-SXM4-40GB", 10000}};
  const BoardPowers boards = {{"NVIDIA H200", 700}, {"Tesla V100", 300}};
  EXPECT_EQ(file.prices, prices);
  EXPECT_EQ(file.board_power_w, boards);
  RenderOptions options;
  options.prices = file.prices;
  options.board_power_w = file.board_power_w;
  const std::string section =
      comparison_of(render_html(history(), catalog(), json::array(), options));
  EXPECT_NE(section.find("board power (prices file), not measured</th>"), std::string::npos);
  EXPECT_NE(section.find(">700.0 W board power</td>"), std::string::npos);
  EXPECT_NE(section.find("a rated figure and not a measurement"), std::string::npos);
  EXPECT_NE(section.find("n/a (not measured during the work)"), std::string::npos);
  // The markdown says the same.
  const std::string md = render_markdown(history(), catalog(), options);
  EXPECT_NE(md.find("| board power (prices file), not measured |"), std::string::npos);
  EXPECT_NE(md.find("| 700.0 W |"), std::string::npos);
}

TEST(Prices, BadEntriesAreOneSentenceNamingTheFileAndTheEntry) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"NVIDIA H200": {"usd": "a"}})", "the price of \"NVIDIA H200\" is \"a\""},
      {R"({"NVIDIA H200": {"usd": 32000, "watts": 700}})",
       "the entry of \"NVIDIA H200\" has an unknown field \"watts\""},
      {R"({"NVIDIA H200": {}})", "the entry of \"NVIDIA H200\" is empty"},
      {R"({"NVIDIA H200": {"board_power_w": 0}})", "the board power of \"NVIDIA H200\" is 0"},
      {R"({"NVIDIA H200": {"board_power_w": 7e6}})", "outside the plausible range 1 to 100000"},
      {R"({"NVIDIA H200": {"board_power_w": [700]}})", "not a positive number of watts"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_price_file(json::parse(text), "--prices p.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const apod::InputError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(message), std::string::npos) << what;
      EXPECT_EQ(what.rfind("--prices p.json: ", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

// One line per workload class: the geometric mean, over the class's headline figures, of one
// model's figure over the other's; per $ the same over the prices.
TEST_F(Comparison, ClassLinesAreGeometricMeansOfTheClassesFigures) {
  const auto lines = class_lines(headline, page.device_models);
  const auto memory = std::find_if(lines.begin(), lines.end(),
                                   [](const ClassLine& l) { return l.label == "memory-bound"; });
  ASSERT_NE(memory, lines.end());
  double log_sum = 0;
  std::size_t n = 0;
  for (const auto& figure : headline)
    if (figure.workload == Workload::memory_bound && figure.models.size() == 2) {
      log_sum += std::log(figure.models[0].across.median / figure.models[1].across.median);
      ++n;
    }
  ASSERT_GE(n, 3u); // peak_copy, offset_copy, stride_copy, atomics_contention
  const double by_hand = std::exp(log_sum / n);
  EXPECT_EQ(memory->figures, n);
  EXPECT_EQ(memory->best, h200);
  EXPECT_EQ(memory->runner_up, a100);
  EXPECT_NEAR(memory->ratio, by_hand, 1e-9);
  ASSERT_TRUE(memory->per_usd);
  EXPECT_NEAR(*memory->per_usd, by_hand * 10000.0 / 32000.0, 1e-9);
  EXPECT_EQ(memory->text(),
            fmt::format("memory-bound: {} {} over {}, per $ {}, per W n/a (power not measured "
                        "during this experiment in these runs); geometric mean of {} figures",
                        h200, format_ratio(by_hand), a100,
                        format_ratio(by_hand * 10000.0 / 32000.0), n));
  // The host link class: h2d_copy's best pinned transfer on each.
  const auto host = std::find_if(lines.begin(), lines.end(),
                                 [](const ClassLine& l) { return l.label == "host link"; });
  ASSERT_NE(host, lines.end());
  // In the section and on the first screen.
  RenderOptions options;
  options.prices = prices;
  const std::string html = render_html(results, catalog(), json::array(), options);
  const std::string section = comparison_of(html);
  EXPECT_NE(section.find("<li><strong>memory-bound</strong>: " + h200 + " " +
                         format_ratio(by_hand) + " over " + a100),
            std::string::npos);
  const std::size_t better = html.find("id=\"better-for-what\"");
  ASSERT_NE(better, std::string::npos);
  EXPECT_NE(html.find(">memory-bound</a>", better), std::string::npos);
  EXPECT_NE(html.find("per $ " + format_ratio(by_hand * 10000.0 / 32000.0), better),
            std::string::npos);
}

TEST(ComparisonClasses, AClassOneModelMeasuredIsNotAvailableWithTheReason) {
  json results = history();
  for (json& run : results["runs"])
    if (run["device"]["name"] == a100) {
      json& measurements = run["measurements"];
      for (auto it = measurements.begin(); it != measurements.end();)
        it = (*it)["experiment"] == "h2d_copy" ? measurements.erase(it) : it + 1;
    }
  const PageModel page = build_page_model(results, catalog());
  const auto lines = class_lines(matched_figures(page, {}, true), page.device_models);
  EXPECT_TRUE(std::none_of(lines.begin(), lines.end(),
                           [](const ClassLine& l) { return l.label == "host link"; }));
  const auto missing = classes_not_compared(page, lines);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].label, "host link");
  EXPECT_EQ(missing[0].why(), "n/a (measured on NVIDIA H200 only)");
  EXPECT_NE(comparison_of(render_html(results, catalog(), json::array()))
                .find("<li><strong>host link</strong>: n/a (measured on NVIDIA H200 only)</li>"),
            std::string::npos);
  EXPECT_NE(render_markdown(results, catalog(), {})
                .find("- **host link**: n/a (measured on NVIDIA H200 only)"),
            std::string::npos);
}

TEST_F(Comparison, MarkdownHasTheClassLinesAndHonoursPrices) {
  const auto lines = class_lines(headline, page.device_models);
  ASSERT_FALSE(lines.empty());
  RenderOptions options;
  options.prices = prices;
  const std::string md = render_markdown(results, catalog(), options);
  const std::size_t start = md.find("## Buyer's comparison\n");
  ASSERT_NE(start, std::string::npos);
  for (const auto& line : lines) {
    EXPECT_NE(md.find(markdown_text(line.label), start), std::string::npos) << line.label;
    EXPECT_NE(md.find(line.efficiency_text(), start), std::string::npos) << line.efficiency_text();
  }
  EXPECT_NE(md.find("per $ " + format_ratio(*lines.front().per_usd), start), std::string::npos);
  EXPECT_NE(md.find("| $32000 |", start), std::string::npos);
  EXPECT_NE(md.find("| per $1000 |", start), std::string::npos);
  const std::string unpriced = render_markdown(results, catalog(), {});
  EXPECT_NE(unpriced.find("per $ n/a ("), std::string::npos);
  EXPECT_EQ(unpriced.find("| per $1000 |"), std::string::npos);
  // One model: no comparison.
  EXPECT_EQ(render_markdown(one_run(), catalog(), options).find("## Buyer's comparison"),
            std::string::npos);
}

// The committed runs (data/runs): an H100 at peak_copy v2 and an H200 at v1 (2026-11-22, before
// the telemetry named the experiment) and v2. The comparison is v2 only; the latency at DRAM is
// each model's largest working set (their sweeps end at 100 and 120 MiB), never L1.
TEST(CommittedRuns, TheH200AndH100CompareAtOneVersionAndLatencyAtDram) {
  json document = committed_runs("nvidia-h100-20261126-memory.json.gz");
  for (const char* name :
       {"nvidia-h200-20261122-session2.json.gz", "nvidia-h200-20261126-memory.json.gz"}) {
    json more = committed_runs(name);
    for (json& run : more["runs"])
      document["runs"].push_back(std::move(run));
  }
  const PageModel page = build_page_model(document, matrix_catalog());
  ASSERT_EQ(page.device_models.size(), 2u);
  const auto figures = matched_figures(page, {}, true);
  // Every figure of an experiment measured at two versions: its points are of one only.
  const MatchedFigure* peak = nullptr; // the best bandwidth of them: the achievable peak
  std::size_t versioned = 0;
  for (const auto& f : figures) {
    if (f.other_versions.empty())
      continue;
    ++versioned;
    for (const auto& model : f.models)
      for (const PointView* point : model.across.points)
        for (const auto& e : point->run->run->experiments)
          if (e.name == f.experiment->name)
            EXPECT_EQ(e.version, f.version) << f.title() << " " << model.model;
    if (f.workload == Workload::memory_bound &&
        (!peak || f.best().across.median > peak->best().across.median))
      peak = &f;
  }
  EXPECT_GE(versioned, 3u); // peak_copy, offset_copy, stride_copy at least
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->version, 2);
  EXPECT_EQ(peak->other_versions, std::vector<long long>{1});
  const ModelFigure& h200_figure =
      peak->models[0].model.find("H200") != std::string::npos ? peak->models[0] : peak->models[1];
  EXPECT_EQ(h200_figure.across.points.size(), 3u); // the three v2 runs, not the two v1 runs
  EXPECT_NEAR(peak->advantage(peak->models[0]) * peak->advantage(peak->models[1]), 1.42, 0.02);
  // Per W: power measured during the work in every v2 run of both.
  for (const auto& model : peak->models)
    EXPECT_TRUE(model.per_w) << model.model << ": " << model.per_w_missing;
  // Latency at DRAM: each model's largest working set, in the hundreds of ns.
  const auto latency = std::find_if(figures.begin(), figures.end(), [](const MatchedFigure& f) {
    return f.workload == Workload::latency;
  });
  ASSERT_NE(latency, figures.end());
  std::set<double> sets;
  for (const auto& model : latency->models) {
    EXPECT_GT(model.across.median, 200) << model.model; // DRAM, not L1's ~16 ns
    for (const auto& [key, value] : model.across.params->items())
      if (value.is_number() && value.get<double>() > 1e6)
        sets.insert(value.get<double>());
  }
  EXPECT_EQ(sets, (std::set<double>{100.0 * 1024 * 1024, 120.0 * 1024 * 1024}));
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
  (*zero_copy)["extra"]["limit_label"] = "PCIe line rate, both directions";
  const PageModel page = build_page_model(results, catalog());
  const auto& points = metric_in(experiment_in(page, "h2d_copy"), "effective_bandwidth").points;
  EXPECT_TRUE(points[0].own_limit);
  EXPECT_NEAR(*points[0].pct_of_limit, 100.0 * points[0].median / 126.0, 1e-9);
  EXPECT_EQ(points[0].limit_text, "PCIe line rate, both directions");
  EXPECT_NEAR(*points[1].pct_of_limit, 100.0 * points[1].median / 63.0, 1e-9);
  EXPECT_EQ(points[1].limit_text, "PCIe line rate per direction");
  const json spec = spec_for(page, "h2d_copy", "effective_bandwidth");
  std::set<std::string> labels;
  for (const auto& row : rows_of(spec, "limit_rule"))
    labels.insert(row["label"].get<std::string>());
  // Two limits on one device: each rule is named in words (the point's own limit by its label).
  EXPECT_EQ(labels, (std::set<std::string>{"PCIe line rate per direction: 63.00 GB/s",
                                           "PCIe line rate, both directions: 126.0 GB/s"}));
}

TEST(OwnLimit, FiguresInOtherUnitsAreReadAgainstTheirExtraLimit) {
  json results = one_run();
  json* launch = nullptr;
  for (auto& m : results["runs"][0]["measurements"])
    if (m["experiment"] == "kernel_launch" && !launch)
      launch = &m;
  ASSERT_NE(launch, nullptr);
  (*launch)["extra"]["limit"] = 4.2; // in the point's own unit
  (*launch)["extra"]["limit_label"] = "theoretical peak: a made-up bound";
  const PageModel page = build_page_model(results, catalog());
  const PointView& point =
      metric_in(experiment_in(page, "kernel_launch"), "launch_latency").points[0];
  ASSERT_TRUE(point.limit_value);
  EXPECT_DOUBLE_EQ(*point.limit_value, 4.2);
  EXPECT_FALSE(point.limit_gbs); // never drawn as a GB/s rule
  EXPECT_NEAR(*point.pct_of_limit, 100.0 * point.median / 4.2, 1e-9);
  EXPECT_EQ(point.limit_text, "theoretical peak: a made-up bound");
}

} // namespace
} // namespace apod::report::test
