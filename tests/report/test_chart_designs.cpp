// Each experiment's declared charts, drawn from the first run of a committed batch of real H100
// runs (data/runs/nvidia-h100-20261123-validation8.json.gz) with the current catalog: the model
// beside the measurement, limits and bounds in words, the published figures where their
// parameters put them, and percentages against the right limit. Real runs, so that what the
// charts assert (a peak is the best of its type, a bound is below the peak) is physics, not
// fixture arithmetic.
#include "context.hpp"
#include "fixtures.hpp"

#include "charts/littles_bound.hpp"
#include "charts/series.hpp"
#include "charts/sweep.hpp"
#include "core/theory.hpp"
#include "page_text.hpp"
#include "palette.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace apod::report::test {
namespace {

class Designs : public ::testing::Test {
protected:
  static json one_run_of_matrix() {
    static const json document = [] {
      json all = committed_runs("nvidia-h100-20261123-validation8.json.gz");
      all["runs"].erase(all["runs"].begin() + 1, all["runs"].end());
      return all;
    }();
    return document;
  }
  json references = matrix_references();
  std::vector<const json*> figures = published_figures(references);
  PageModel page = build_page_model(one_run_of_matrix(), matrix_catalog());

  std::vector<ChartBlock> charts_of(const std::string& name) const {
    return experiment_charts(page, experiment_in(page, name), figures);
  }
  const PointView& first_point(const std::string& experiment, const std::string& metric) const {
    return metric_in(experiment_in(page, experiment), metric).points.front();
  }
};

json encoding_of(const json& spec, const std::string& mark, const char* channel) {
  for (const auto& layer : layers_with_mark(spec, mark))
    if (layer["encoding"].contains(channel))
      return layer["encoding"][channel];
  return json();
}

std::set<double> ys(const std::vector<json>& rows) {
  std::set<double> values;
  for (const auto& row : rows)
    values.insert(row["y"].get<double>());
  return values;
}

TEST(PublishedFigures, EachNamesADeclaredExperimentMetricAndParams) {
  // data/reference/ is transcribed by hand: a figure whose experiment, metric or param key is
  // misspelt would never be drawn, silently. Each names a declared experiment and either one of
  // its metrics with declared params, or a name one of its charts draws as published figures
  // (Chart::published_metrics: the document's own quantity, with the document's own params).
  const json catalog = matrix_catalog();
  std::size_t figures = 0;
  for (const auto& document : matrix_references())
    for (const auto& figure : document["figures"]) {
      ++figures;
      const std::string where =
          figure.value("citation", "") + " (" + document.value("source", "") + ")";
      const json* experiment = nullptr;
      for (const auto& e : catalog["experiments"])
        if (e["name"] == figure["experiment"])
          experiment = &e;
      ASSERT_NE(experiment, nullptr) << figure["experiment"] << ", " << where;
      std::set<std::string> metrics, params, drawn_as_published;
      for (const auto& m : (*experiment)["metrics"])
        metrics.insert(m["name"].get<std::string>());
      for (const auto& p : (*experiment)["params"])
        params.insert(p["key"].get<std::string>());
      for (const auto& c : (*experiment)["charts"])
        for (const auto& name : c.value("published_metrics", json::array()))
          drawn_as_published.insert(name.get<std::string>());
      const std::string metric = figure["metric"].get<std::string>();
      // a number, or none where the document states the effect but gives no figure
      const json value = figure.value("value", json());
      EXPECT_TRUE(value.is_number() || value.is_null()) << where;
      if (drawn_as_published.count(metric))
        continue;
      EXPECT_TRUE(metrics.count(metric))
          << metric << " is neither a metric of " << figure["experiment"]
          << " nor drawn by one of its charts as published, " << where;
      const json figure_params = figure.value("params", json::object());
      for (const auto& [key, value] : figure_params.items())
        EXPECT_TRUE(params.count(key))
            << key << " is not a param of " << figure["experiment"] << ", " << where;
    }
  EXPECT_GT(figures, 20u);
}

TEST_F(Designs, EveryDeclaredModelIsFollowedByItsResidualMeasuredOverModelLessOne) {
  // Whatever experiment declares a model: its chart is followed by a residual panel whose every
  // point is the measured median over the model's figure at the same x and series, less one, in
  // percent, with the model's stated bound as two dashed rules.
  std::size_t residuals = 0;
  for (const ExperimentView& experiment : page.experiments) {
    const charts::DesignInput in{page, experiment, figures};
    for (const Chart& chart :
         experiment.declaration ? experiment.declaration->charts : std::vector<Chart>{}) {
      const auto block = charts::chart_block(in, chart);
      const auto residual = charts::residual_block(in, chart);
      if (!block || chart.model_extra.empty() && chart.model_metric.empty()) {
        EXPECT_FALSE(residual) << experiment.name << ": a residual without a drawn model";
        continue;
      }
      const auto models = rows_of(block->spec, "model");
      if (models.empty())
        continue;
      ASSERT_TRUE(residual) << experiment.name << " " << chart.metric;
      for (const json& row : rows_of(residual->spec, "measured")) {
        if (!row.contains("residual_pct"))
          continue;
        const auto model = std::find_if(models.begin(), models.end(), [&](const json& m) {
          return m["x"] == row["x"] && m.value("series", "") == row.value("series", "") &&
                 m.value("facet", "") == row.value("facet", "");
        });
        ASSERT_NE(model, models.end()) << experiment.name << " " << row.dump();
        const double expected = (row["y"].get<double>() / (*model)["y"].get<double>() - 1) * 100;
        EXPECT_NEAR(row["residual_pct"].get<double>(), expected, 1e-9 * std::abs(expected) + 1e-12);
        ++residuals;
      }
      const auto bound_rules = layers_with_mark(residual->spec, "rule");
      EXPECT_EQ(bound_rules.size(), chart.model_bound > 0 ? 3u : 1u) << experiment.name;
      EXPECT_NE(residual->caption.find("Residual of the " + chart.model_label), std::string::npos);
    }
  }
  EXPECT_GT(residuals, 0u) << "no model drawn: the test would pass on nothing";
}

TEST_F(Designs, PercentOfAchievablePeakUsesThePeakOfTheSameAccessType) {
  const RunView& run = page.runs.front();
  ASSERT_EQ(run.access_peak_gbs.size(), 4u);
  const PointView& offset = first_point("offset_copy", "effective_bandwidth");
  EXPECT_EQ(offset.peak_access_type, "copy"); // its extra.access_type
  EXPECT_NEAR(*offset.pct_of_peak, 100 * offset.median / run.access_peak_gbs.at("copy"), 1e-9);
  EXPECT_NE(*run.peak_gbs, run.access_peak_gbs.at("copy")); // read is the best type here
  const auto rows = rows_of(charts_of("offset_copy").at(0).spec, "measured");
  EXPECT_NE(rows[0]["pct_peak_text"].get<std::string>().find("of the achievable copy peak"),
            std::string::npos);
  // latency_hiding's points name no access type: they are read against the run's best.
  const PointView& hiding = first_point("latency_hiding", "effective_bandwidth");
  EXPECT_EQ(hiding.peak_access_type, "");
  EXPECT_NEAR(*hiding.pct_of_peak, 100 * hiding.median / *run.peak_gbs, 1e-9);
}

TEST_F(Designs, FiguresNotInGbsAreReadAgainstTheirOwnLimit) {
  const PointView& rate = first_point("roofline", "flop_rate");
  ASSERT_TRUE(rate.unit_limit);
  EXPECT_NEAR(*rate.pct_of_limit,
              100 * rate.median / rate.measurement->extra["limit"].get<double>(), 1e-9);
  const auto rows = rows_of(charts_of("bank_conflicts").at(0).spec, "measured");
  EXPECT_NE(rows[0]["pct_text"].get<std::string>().find("of 32 banks x 4 bytes per clock per SM"),
            std::string::npos);
}

TEST_F(Designs, PeakCopyDrawsEachAccessTypesPeakAndEveryLaunchShapeAsAHeatmap) {
  const auto blocks = charts_of("peak_copy");
  ASSERT_EQ(blocks.size(), 2u);
  const json& peaks = blocks[0].spec;
  EXPECT_EQ(rows_of(peaks, "measured").size(), 4u); // read, write, copy, triad
  const auto notes = rows_of(peaks, "note");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0]["x"], "copy"); // cudaMemcpyAsync, a copy
  EXPECT_EQ(notes[0]["label"], "memcpy");
  // The run's best type: the access type its achievable peak names.
  EXPECT_EQ(notes[1]["x"], metric_in(experiment_in(page, "peak_copy"), "achievable_peak")
                               .points.front()
                               .measurement->extra["access_type"]);
  EXPECT_EQ(notes[1]["label"], "peak");
  EXPECT_EQ(rows_of(peaks, "limit_rule").size(), 1u);

  const json& heatmap = blocks[1].spec;
  EXPECT_EQ(heatmap["facet"]["column"]["field"], "access");
  EXPECT_FALSE(heatmap["facet"].contains("row")); // one device model
  EXPECT_EQ(heatmap["facet"]["column"]["sort"], json({"copy", "triad", "write", "read"}));
  const auto cells = rows_of(heatmap);
  EXPECT_EQ(cells.size(), 16u); // 4 types x 4 launch shapes; memcpy is not a launch shape
  for (const auto& cell : cells) {
    EXPECT_TRUE(cell["pct"].is_number());
    EXPECT_LE(cell["pct"].get<double>(), 100.0 + 1e-9);
  }
  EXPECT_EQ(encoding_of(heatmap["spec"], "rect", "color")["field"], "pct");
  EXPECT_EQ(encoding_of(heatmap["spec"], "rect", "y")["sort"],
            json({"16-byte vectors, one block a tile", "16-byte vectors, one resident wave"}));
}

TEST_F(Designs, PeakCopyOfTwoModelsHasAHeatmapRowPerModel) {
  const PageModel two = build_page_model(matrix(), matrix_catalog());
  const json heatmap = experiment_charts(two, experiment_in(two, "peak_copy")).at(1).spec;
  EXPECT_EQ(heatmap["facet"]["row"]["field"], "facet");
  EXPECT_EQ(rows_of(heatmap).size(), 32u);
}

TEST_F(Designs, LittlesLawBoundOfTheGuidesLaunchFromTheSameRunsLatencyAndPeak) {
  // The real H100's DRAM latency keeps even the guide's launch at the peak; three times that
  // latency puts its bound below it, where it is drawn.
  json document = one_run_of_matrix();
  for (auto& m : document["runs"][0]["measurements"])
    if (m["experiment"] == "memory_latency" && m["metric"] == "latency_ns")
      for (auto& sample : m["samples"])
        sample = sample.get<double>() * 3;
  const PageModel slow = build_page_model(document, matrix_catalog());
  const PointView& guide =
      metric_in(experiment_in(slow, "offset_copy"), "effective_bandwidth").points.front();
  const FigureRef latency_ref =
      *experiment_in(slow, "offset_copy").declaration->charts.at(0).littles_law_latency;
  const charts::RunFigures latencies = charts::run_figures(slow, latency_ref);
  ASSERT_TRUE(latencies.count(guide.run));
  const double latency = latencies.at(guide.run);
  const auto bound = charts::littles_law_bound(guide, latencies);
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->in_flight_bytes_per_sm, 2048 * 4.0); // 8 blocks x 256 x one word
  EXPECT_DOUBLE_EQ(bound->gbs,
                   littles_law_bandwidth_gbs(132, 8192, latency, *guide.run->peak_gbs, 2.0));
  EXPECT_FALSE(bound->capped);

  const auto blocks = experiment_charts(slow, experiment_in(slow, "offset_copy"), figures);
  std::vector<json> guide_rules;
  for (const auto& row : rows_of(blocks[0].spec, "rule_series"))
    if (row["series"] == "guide, 4-byte words")
      guide_rules.push_back(row);
  ASSERT_EQ(guide_rules.size(), 1u);
  EXPECT_NEAR(guide_rules[0]["y"].get<double>(), bound->gbs, 1e-6);
  EXPECT_NE(blocks[0].caption.find("guide, 4-byte words, 8 KiB in flight per SM, at most"),
            std::string::npos);
  EXPECT_NE(blocks[0].caption.find("Little's-law table"), std::string::npos);
  // At the real latency the bound exceeds the peak, and the caption says so.
  const auto real = charts_of("offset_copy");
  EXPECT_NE(real[0].caption.find("bound to exceed the achievable peak"), std::string::npos);
}

TEST_F(Designs, NoBoundWithoutTheSameRunsLatency) {
  json document = one_run_of_matrix();
  auto& measurements = document["runs"][0]["measurements"];
  for (auto it = measurements.begin(); it != measurements.end();)
    it = (*it)["experiment"] == "memory_latency" ? measurements.erase(it) : it + 1;
  const PageModel without = build_page_model(document, matrix_catalog());
  // The guide kernel's chart (the second) draws the bound of its launch.
  const auto blocks = experiment_charts(without, experiment_in(without, "stride_copy"));
  ASSERT_GE(blocks.size(), 2u);
  EXPECT_TRUE(rows_of(blocks[1].spec, "rule").empty());
  EXPECT_NE(blocks[1].caption.find("No Little's-law bound is drawn"), std::string::npos);
}

TEST_F(Designs, OffsetCopyDrawsThePublishedFiguresAtTheirOffsets) {
  const auto published = rows_of(charts_of("offset_copy")[0].spec, "published");
  ASSERT_EQ(published.size(), 10u); // V100: 2, FX5800: 8 (data/reference)
  std::set<std::string> devices;
  for (const auto& row : published) {
    EXPECT_TRUE(row["x"].is_number());
    devices.insert(row["published"].get<std::string>());
  }
  EXPECT_EQ(devices, (std::set<std::string>{"Tesla V100", "Quadro FX5800"}));
}

// A run of an older version, whose points lack the chart's colour parameter (offset_copy 1 had no
// kernel or variant), still gets the declared chart: offset across, its points one series "—".
TEST_F(Designs, AnOlderVersionsPointsWithoutTheColourStayOnTheDeclaredAxis) {
  json document = one_run_of_matrix();
  const json older = committed_runs("nvidia-h200-20261122.json");
  document["runs"].push_back(older["runs"][0]);
  const PageModel mixed = build_page_model(document, matrix_catalog());
  const auto blocks = experiment_charts(mixed, experiment_in(mixed, "offset_copy"), figures);
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(encoding_of(blocks[0].spec, "point", "x")["title"], "offset (words)");
  std::set<std::string> series;
  for (const auto& row : rows_of(blocks[0].spec, "measured"))
    series.insert(row["series"].get<std::string>());
  EXPECT_GT(series.size(), 2u);
}

// stride_copy 3 stores its sector model in each copy point's extra (model_gbs); the committed
// batch predates it, so its saturating points are given one.
TEST_F(Designs, StrideCopyDrawsTheSectorModelOfEachPoint) {
  json document = one_run_of_matrix();
  for (auto& m : document["runs"][0]["measurements"])
    if (m["experiment"] == "stride_copy" && m["metric"] == "effective_bandwidth")
      m["extra"]["model_gbs"] = 1000.0 / m["params"]["stride"].get<double>();
  const PageModel current = build_page_model(document, matrix_catalog());
  const json spec = experiment_charts(current, experiment_in(current, "stride_copy")).at(0).spec;
  const auto measured = rows_of(spec, "measured"), model = rows_of(spec, "model");
  ASSERT_EQ(model.size(), measured.size());
  EXPECT_EQ(measured.size(), 14u); // the saturating copy's strides alone
  std::set<double> expected;
  for (const auto& row : measured)
    expected.insert(1000.0 / row["x"].get<double>());
  EXPECT_EQ(ys(model), expected);
  EXPECT_EQ(layers_with_mark(spec, "line").size(), 2u); // measured and model; no limit line
}

TEST_F(Designs, MemoryLatencyIsLogLogWithItsLevelsNamedAndThePublishedCycles) {
  const auto blocks = charts_of("memory_latency");
  ASSERT_EQ(blocks.size(), 2u); // ns and cycles
  for (const auto& block : blocks) {
    EXPECT_EQ(encoding_of(block.spec, "point", "x")["scale"]["base"], 2);
    EXPECT_EQ(encoding_of(block.spec, "point", "y")["scale"]["type"], "log");
    std::set<std::string> labels;
    for (const auto& note : rows_of(block.spec, "note"))
      labels.insert(note["label"].get<std::string>());
    EXPECT_EQ(labels, (std::set<std::string>{"L1", "L2", "DRAM"}));
  }
  EXPECT_TRUE(rows_of(blocks[0].spec, "published_rule").empty());
  EXPECT_EQ(ys(rows_of(blocks[1].spec, "published_rule")), (std::set<double>{400, 800}));
}

TEST_F(Designs, LittlesLawDrawsItsModelAndThe90PercentPoints) {
  const json spec = charts_of("littles_law")[0].spec;
  const auto model = rows_of(spec, "model");
  EXPECT_EQ(model.size(), rows_of(spec, "measured").size());
  const auto verticals = rows_of(spec, "vertical");
  ASSERT_EQ(verticals.size(), 2u); // measured and by the model
  const auto& crossing = metric_in(experiment_in(page, "littles_law"), "in_flight_per_sm");
  EXPECT_NEAR(verticals[0]["x"].get<double>(), crossing.points[0].median * 1e3, 1e-6);
}

TEST_F(Designs, LatencyHidingMarksStichsAdviceAtItsThreadCount) {
  const json spec = charts_of("latency_hiding")[0].spec;
  const auto verticals = rows_of(spec, "vertical");
  ASSERT_EQ(verticals.size(), 1u);
  EXPECT_EQ(verticals[0]["x"], 512.0);
  EXPECT_EQ(verticals[0]["label"], "GT200 (published): 512 threads");
  EXPECT_FALSE(rows_of(spec, "model").empty());
}

TEST_F(Designs, RooflineDrawsBothRooflinesTheBalanceAndThePublishedPeaks) {
  const json spec = charts_of("roofline")[0].spec;
  const auto limit_line = rows_of(spec, "limit_line");
  EXPECT_EQ(limit_line.size(), rows_of(spec, "measured").size()); // the theoretical roofline
  EXPECT_FALSE(rows_of(spec, "model").empty());                   // the achievable one
  EXPECT_EQ(rows_of(spec, "vertical_series").size() + rows_of(spec, "vertical").size(), 2u);
  EXPECT_EQ(ys(rows_of(spec, "rule")), (std::set<double>{805.0, 2288.64}));
  EXPECT_EQ(encoding_of(spec, "point", "y")["scale"]["type"], "log");
}

TEST_F(Designs, BankConflictsTicksTheModelAndPlacesTheFx5800) {
  const json spec = charts_of("bank_conflicts")[0].spec;
  EXPECT_FALSE(layers_with_mark(spec, "tick").empty());
  const auto limits = rows_of(spec, "limit_rule");
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_EQ(limits[0]["label"], "32 banks x 4 bytes per clock per SM: 128.0 B/clk/SM");
  const auto published = rows_of(spec, "published");
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0]["x"], "stride 1 (no conflict)");
}

TEST_F(Designs, L2PersistenceReadsEverySpeedUpAgainstNoSetAsideAndStatesTheCarveOutsCost) {
  // Version 2 (issue 20) from its committed H100 batch: the 2026-11-23 runs are version 1, whose
  // points lack the set-aside axis, so the declared charts draw nothing from them.
  json document = committed_runs("nvidia-h100-20261126-explain.json.gz");
  document["runs"].erase(document["runs"].begin() + 1, document["runs"].end());
  const PageModel v2 = build_page_model(document, matrix_catalog());
  const std::vector<ChartBlock> blocks =
      experiment_charts(v2, experiment_in(v2, "l2_persistence"), figures);
  std::size_t speedups = 0, guide = 0;
  bool cost = false, gain = false;
  for (const ChartBlock& block : blocks) {
    cost = cost ||
           block.caption.find("A plain copy's rate at the largest set-aside") != std::string::npos;
    gain = gain ||
           block.caption.find("Best net gain over no set-aside and no window") != std::string::npos;
    if (block.caption.find("Residual") != std::string::npos)
      continue;
    ++speedups;
    if (ys(rows_of(block.spec, "published_rule")) == std::set<double>{0.9, 1.5})
      ++guide; // the guide's A100 figures, a reference beside the measurement
  }
  EXPECT_GE(speedups, 2u);
  EXPECT_GE(guide, 1u);
  EXPECT_TRUE(cost) << "no caption states what the carve-out costs a plain copy";
  EXPECT_TRUE(gain) << "no caption states the best net gain";
}

TEST_F(Designs, ScalingDrawsIdealScalingEachModelTheKneeAndTheFittedFractions) {
  const auto block = charts_of("scaling").at(0);
  const auto ideal = rows_of(block.spec, "limit_line");
  ASSERT_FALSE(ideal.empty());
  double smallest = ideal[0]["x"].get<double>();
  for (const auto& row : ideal)
    smallest = std::min(smallest, row["x"].get<double>());
  for (const auto& row : ideal) // S = N: the SMs over the smallest partition's
    EXPECT_NEAR(row["y"].get<double>(), row["x"].get<double>() / smallest, 1e-9);
  EXPECT_FALSE(rows_of(block.spec, "model").empty());
  EXPECT_EQ(rows_of(block.spec, "vertical").size(), 1u);
  EXPECT_NE(block.caption.find("Fitted parallel fractions (Best Practices Guide 3.1.3): Amdahl "
                               "P = 0.9"),
            std::string::npos)
      << block.caption;
  EXPECT_NE(block.caption.find("Gustafson P = 0."), std::string::npos);
}

TEST_F(Designs, HostTransferMarksBatchedPointsAndNamesBothPcieLimits) {
  const json spec = charts_of("host_transfer")[0].spec;
  std::set<std::string> shapes;
  for (const auto& row : rows_of(spec, "measured"))
    shapes.insert(row["shape"].get<std::string>());
  EXPECT_EQ(shapes.size(), 2u);
  std::set<std::string> labels;
  for (const auto& row : rows_of(spec, "limit_rule"))
    labels.insert(row["label"].get<std::string>());
  EXPECT_EQ(labels, (std::set<std::string>{"PCIe line rate per direction: 63.02 GB/s",
                                           "PCIe line rate, both directions: 126.0 GB/s"}));
  EXPECT_EQ(ys(rows_of(spec, "published_rule")), (std::set<double>{12.0}));
}

TEST_F(Designs, StagedCopyDrawsItsModelBesideItAndTheSequentialBaseline) {
  const auto block = charts_of("staged_copy").at(0);
  const auto measured = rows_of(block.spec, "measured");
  EXPECT_EQ(measured.size(), 6u); // staged, nStreams 1..32
  EXPECT_EQ(rows_of(block.spec, "model").size(), 6u);
  const auto baseline = rows_of(block.spec, "rule");
  ASSERT_EQ(baseline.size(), 1u);
  EXPECT_NE(baseline[0]["label"].get<std::string>().find("sequential"), std::string::npos);
  EXPECT_NE(block.caption.find("tT (copy alone)"), std::string::npos);
}

// The committed batch predates host_buffer (overlap_matrix 3): its points are given the value
// every row of it had, the host buffer just written, as a run of version 3 stores it.
TEST_F(Designs, OverlapMatrixPanelsInMeasuredOrderWithTheGistsOwnRows) {
  json document = one_run_of_matrix();
  for (auto& m : document["runs"][0]["measurements"])
    if (m["experiment"] == "overlap_matrix") {
      m["params"]["host_buffer"] = "just_written";
      m["comparability_key"] = nullptr; // other params, another key: apod derives it
    }
  const PageModel current = build_page_model(document, matrix_catalog());
  const json spec =
      experiment_charts(current, experiment_in(current, "overlap_matrix"), figures).at(0).spec;
  ASSERT_TRUE(spec.contains("hconcat"));
  std::vector<std::string> titles;
  for (const auto& panel : spec["hconcat"])
    titles.push_back(panel["title"]);
  EXPECT_EQ(titles, (std::vector<std::string>{"gist, 16 Ki floats, just_written",
                                              "corrected, 16 Ki floats, just_written",
                                              "corrected, 4 Mi floats, just_written"}));
  EXPECT_EQ(encoding_of(spec["hconcat"][0], "bar", "y")["title"], "overall time, median (ms)");
  const auto published = rows_of(spec["hconcat"][0], "published");
  EXPECT_EQ(published.size(), 36u); // NVS 5200M and K20c, 18 rows each
  EXPECT_TRUE(rows_of(spec["hconcat"][1], "published").empty());
}

TEST_F(Designs, AnOlderVersionWithoutTheDesignsParametersGetsTheGenericChart) {
  json document = one_run_of_matrix();
  for (auto& m : document["runs"][0]["measurements"])
    if (m["experiment"] == "peak_copy") {
      m["params"] = {{"config", m["params"].value("config", "best")}};
      m["comparability_key"] = nullptr; // other params, another key: apod derives it
    }
  const PageModel old = build_page_model(document, matrix_catalog());
  const auto blocks = experiment_charts(old, experiment_in(old, "peak_copy"));
  // A generic chart of each metric the declaration charts; 17 configurations of the copies.
  ASSERT_EQ(blocks.size(), 2u);
  const json bars = layers_with_mark(blocks[0].spec, "bar").at(0);
  EXPECT_EQ(bars["encoding"]["y"]["type"], "ordinal"); // 17 > 16 categories: down the side
}

// Issue 25: a 2009 GPU's published 46-80 GB/s lay on the x axis of a 0-3500 GB/s chart. Beside
// the sweep, the same points as % of each device's own limit, and each published figure as % of
// the limit its own source states for its device: shape against shape.
TEST_F(Designs, PublishedFiguresAreDrawnAsPercentOfTheirOwnDevicesLimitBesideTheMeasurement) {
  const auto blocks = charts_of("offset_copy");
  const auto share = std::find_if(blocks.begin(), blocks.end(), [](const ChartBlock& b) {
    return b.caption.rfind("The same as a share of each device's limit", 0) == 0;
  });
  ASSERT_NE(share, blocks.end());
  const auto published = rows_of(share->spec, "published");
  ASSERT_FALSE(published.empty());
  std::size_t checked = 0;
  for (const json* figure : figures) {
    if ((*figure)["experiment"] != "offset_copy" || !figure->contains("theoretical_bandwidth_gbs"))
      continue;
    const double pct = (*figure)["value"].get<double>() /
                       (*figure)["theoretical_bandwidth_gbs"].get<double>() * 100;
    EXPECT_TRUE(
        std::any_of(published.begin(), published.end(),
                    [&](const json& row) { return std::abs(row["y"].get<double>() - pct) < 1e-9; }))
        << (*figure)["device"] << " " << pct;
    ++checked;
  }
  EXPECT_GT(checked, 2u);
  const PointView& point = first_point("offset_copy", "effective_bandwidth");
  ASSERT_TRUE(point.limit_gbs);
  const auto measured = rows_of(share->spec, "measured");
  EXPECT_TRUE(std::any_of(measured.begin(), measured.end(), [&](const json& row) {
    return std::abs(row["y"].get<double>() - point.median / *point.limit_gbs * 100) < 1e-9;
  }));
  for (const auto& row : measured)
    EXPECT_LT(row["y"].get<double>(), 100) << "a copy above its device's theoretical bandwidth";
  EXPECT_TRUE(rows_of(share->spec, "limit_rule").empty()) << "no GB/s rule on a % axis";
  EXPECT_NE(share->caption.find("Quadro FX5800 102.0 GB/s"), std::string::npos) << share->caption;
}

TEST_F(Designs, VerticalRuleWordsStandFromThePanelsBottomALineApart) {
  // Issue 25: the roofline's balance words at the top of the panel lay on its curves and on each
  // other. They stand from the bottom up, one line apart per panel, on the side with room.
  const json spec = charts_of("roofline").front().spec;
  std::map<std::string, std::set<int>> slots;
  std::size_t words = 0;
  for (const json& row : rows_of(spec)) {
    if (row["kind"] != "vertical" && row["kind"] != "vertical_series")
      continue;
    const int slot = row["slot_px"].get<int>();
    EXPECT_GT(slot, 300 / 2) << "words in the upper half of the panel: " << row.dump();
    EXPECT_TRUE(slots[row.value("facet", "")].insert(slot).second) << "two words on one line";
    EXPECT_EQ(row["label"].get<std::string>().find("NVIDIA"), std::string::npos)
        << "the panel's title names the device already";
    ++words;
  }
  EXPECT_GE(words, 2u);
}

TEST_F(Designs, ALineNeverJoinsTwoPointsOfOneXItSplitsByWhatDiffersThere) {
  // Issue 25: points an older version stored without the colour parameter formed one series
  // "—" whose line zigzagged between the word sizes it mixed at each offset.
  json document = one_run_of_matrix();
  for (auto& m : document["runs"][0]["measurements"])
    if (m["experiment"] == "offset_copy") {
      m["params"].erase("variant");
      m["comparability_key"] = nullptr;
    }
  const PageModel old = build_page_model(document, matrix_catalog());
  const auto blocks = experiment_charts(old, experiment_in(old, "offset_copy"), figures);
  ASSERT_FALSE(blocks.empty());
  std::map<int, std::set<std::string>> xs_of_line;
  std::size_t points = 0;
  for (const json& row : rows_of(blocks.front().spec, "measured")) {
    EXPECT_TRUE(xs_of_line[row["line"].get<int>()].insert(row["x"].dump()).second)
        << "two points of one line at x = " << row["x"];
    ++points;
  }
  EXPECT_GT(xs_of_line.size(), 1u) << "the kernels and word sizes are lines of their own";
  EXPECT_GT(points, xs_of_line.size());
  EXPECT_NE(layers_with_mark(blocks.front().spec, "line").front().dump().find("\"line\""),
            std::string::npos);
}

TEST(SeriesColours, ASeriesNameKeepsItsColourInEveryChartOfThePage) {
  SeriesColours page({"NVIDIA H100 80GB HBM3", "NVIDIA H200"});
  const SeriesColoursScope scope(page);
  const json first = charts::colour_encoding({"fp32", "fp64"}, "precision");
  const json second = charts::colour_encoding({"int8", "fp64", "tf32", "fp32"}, "precision");
  const auto colour_in = [](const json& encoding, const std::string& name) {
    const auto& domain = encoding["scale"]["domain"];
    const auto at = std::find(domain.begin(), domain.end(), name) - domain.begin();
    return encoding["scale"]["range"][at].get<std::string>();
  };
  EXPECT_EQ(colour_in(first, "fp32"), colour_in(second, "fp32"));
  EXPECT_EQ(colour_in(first, "fp64"), colour_in(second, "fp64"));
  std::set<std::string> distinct;
  for (const auto& colour : second["scale"]["range"])
    distinct.insert(colour.get<std::string>());
  EXPECT_EQ(distinct.size(), 4u) << "two series of one chart in one colour";
  // A device model is drawn in the colour the first screen and the history give it.
  const json models = charts::colour_encoding({"NVIDIA H200"}, "device");
  EXPECT_EQ(models["scale"]["range"][0],
            stable_colours({"NVIDIA H100 80GB HBM3", "NVIDIA H200"})[1]);
}

TEST_F(Designs, ValueAxesRoundTicksToThreeDigitsAndCountTflopsPastTenThousandGflops) {
  bool tflops = false, bytes = false;
  for (const ExperimentView& experiment : page.experiments)
    for (const ChartBlock& block : charts_of(experiment.name)) {
      const std::string text = block.spec.dump();
      EXPECT_EQ(text.find("'~g'"), std::string::npos) << experiment.name << ": unrounded ticks";
      tflops = tflops || text.find("TFLOP/s") != std::string::npos;
      bytes = bytes || text.find("'.3~g') + ' MiB'") != std::string::npos;
    }
  EXPECT_TRUE(tflops) << "the roofline's axis counts TFLOP/s";
  EXPECT_TRUE(bytes);
  const json spec = charts_of("peak_copy").front().spec;
  EXPECT_EQ(spec.dump().find("\"format\":\",.3~r\"") == std::string::npos, false);
}

TEST(ModelMiss, ASentenceOnlyWhereTheModelMissesPastItsBoundOrStatesNone) {
  EXPECT_EQ(charts::model_miss_sentence({12, 4.0, 1.04}, 0.10, "sector model"), "");
  EXPECT_EQ(charts::model_miss_sentence({12, 14.5, 0.855}, 0.10, "sector model"),
            "The model (sector model) misses by 14.5% (median over 12 points; its bound is 10%).");
  EXPECT_EQ(
      charts::model_miss_sentence({7, 280, 3.8}, 0.25, "Little's law"),
      "The model (Little's law) misses by a factor of 3.8, measured over model (median over 7 "
      "points; its bound is 25%).");
  EXPECT_EQ(charts::model_miss_sentence({5, 74, 0.25}, 0.25, "Little's law"),
            "The model (Little's law) misses by a factor of 4, model over measured (median over 5 "
            "points; its bound is 25%).");
  EXPECT_EQ(charts::model_miss_sentence({3, 2.0, 1.02}, 0, "model"),
            "The model is off by 2% (median over 3 points; it declares no bound).");
}

TEST_F(Designs, EveryModelMissingPastItsBoundSaysSoUnderItsChart) {
  std::size_t said = 0;
  for (const ExperimentView& experiment : page.experiments) {
    const charts::DesignInput in{page, experiment, figures};
    for (const Chart& chart : experiment.declaration->charts) {
      const auto residual = charts::residual_block(in, chart);
      if (!residual)
        continue;
      std::vector<double> misses;
      for (const json& row : rows_of(residual->spec, "measured"))
        if (row.contains("residual_pct"))
          misses.push_back(std::abs(row["residual_pct"].get<double>()));
      std::sort(misses.begin(), misses.end());
      const double median = misses.size() % 2
                                ? misses[misses.size() / 2]
                                : (misses[misses.size() / 2 - 1] + misses[misses.size() / 2]) / 2;
      const bool past = chart.model_bound == 0 || median > chart.model_bound * 100;
      EXPECT_EQ(residual->caption.find(" points; ") != std::string::npos, past)
          << experiment.name << ": median miss " << median << "%, bound " << chart.model_bound;
      said += past;
    }
  }
  EXPECT_GT(said, 0u) << "no model misses in the committed run: the test would pass on nothing";
}

TEST_F(Designs, NoStoredKeyInThePagesVisibleTextOutsideTheMethodNotes) {
  const std::string html = render_html(one_run_of_matrix(), matrix_catalog(), references);
  std::string visible = markup_without_scripts(html);
  // The method notes keep the stored names on purpose (folded).
  for (std::size_t open; (open = visible.find("<details class=\"method\">")) != std::string::npos;)
    visible.erase(open, visible.find("</details>", open) + 10 - open);
  const std::regex stored_key(R"(extra\.[a-z_]+)");
  std::smatch found;
  EXPECT_FALSE(std::regex_search(visible, found, stored_key)) << found.str();
  EXPECT_EQ(visible.find(">elements_per_thread<"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"method\">"), std::string::npos);
  // Value tables start folded.
  EXPECT_EQ(html.find("<details class=\"values\" open>\n<summary>Values"), std::string::npos);
}

} // namespace
} // namespace apod::report::test
