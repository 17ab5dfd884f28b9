// Every experiment's declaration, checked without a GPU: sound on its own (charts name declared
// metrics and params, headlines exist, no duplicates), its wire form read back unchanged, and the
// points it plans made of declared params and metrics only. The gpu suite checks the records a
// run makes against the same declarations (tests/gpu/test_gpu_experiments.cpp).
#include "core/catalog.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/series.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace apod {
namespace {

TEST(Catalog, EveryDeclarationIsSound) {
  ASSERT_GE(declarations().size(), 13u) << "the experiments' declarations were not linked";
  for (const Declaration& d : declarations())
    for (const std::string& problem : declaration_problems(d))
      ADD_FAILURE() << problem;
}

TEST(Catalog, NamesAreUniqueAndOrdered) {
  std::set<std::string> names;
  int order = -1;
  for (const Declaration& d : declarations()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_GE(d.order, order) << d.name << " is out of matrix order";
    order = d.order;
  }
}

TEST(Catalog, WireFormReadsBackUnchanged) {
  PlanInput plan;
  const json written = catalog_json(&plan);
  const std::vector<Declaration> read = catalog_from_json(written);
  ASSERT_EQ(read.size(), declarations().size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    json again = to_json(read[i]);
    json original = written[i];
    original.erase("points");
    EXPECT_EQ(again, original) << read[i].name;
  }
}

// A point a run adds only under a condition says so in the catalog (`when`), and the others do
// not: a reader of `apod list --json` can tell the points every run has from the rest.
TEST(Catalog, ConditionalPointsSayWhen) {
  PlanInput in;
  const json written = catalog_json(&in);
  int conditional = 0;
  for (std::size_t i = 0; i < declarations().size(); ++i) {
    const Declaration& d = declarations()[i];
    const std::vector<PlannedPoint> points = d.plan(in);
    ASSERT_EQ(written[i].at("points").size(), points.size()) << d.name;
    for (std::size_t k = 0; k < points.size(); ++k) {
      const json& point = written[i]["points"][k];
      if (points[k].when.empty()) {
        EXPECT_FALSE(point.contains("when")) << d.name << " " << point.dump();
      } else {
        ++conditional;
        EXPECT_EQ(point.value("when", ""), points[k].when) << d.name;
      }
    }
  }
  EXPECT_GT(conditional, 0) << "no experiment plans a conditional point";
}

TEST(Catalog, PlannedPointsAreDeclared) {
  for (const auto [quick, full] : {std::pair{false, false}, {true, false}, {false, true}}) {
    PlanInput in;
    in.quick = quick;
    in.full = full;
    for (const Declaration& d : declarations()) {
      // Hidden ones too: the gpu suite checks every experiment's records against its plan.
      ASSERT_TRUE(d.plan) << d.name << " plans no points";
      const std::vector<PlannedPoint> points = d.plan(in);
      EXPECT_FALSE(points.empty()) << d.name;
      for (const PlannedPoint& p : points) {
        EXPECT_FALSE(p.metrics.empty()) << d.name << " " << p.params.dump();
        for (const auto& [key, value] : p.params.items())
          EXPECT_NE(d.find_param(key), nullptr) << d.name << " plans undeclared param " << key;
        for (const std::string& metric : p.metrics)
          EXPECT_NE(d.find_metric(metric), nullptr) << d.name << " plans undeclared " << metric;
      }
    }
  }
}

// `apod run --full` adds the long sweeps' points and keeps every default point (same params,
// same metrics, same condition): a --full run's default points compare with any default run's.
TEST(Catalog, AFullRunKeepsEveryDefaultPoint) {
  PlanInput standard, full;
  full.full = true;
  for (const Declaration& d : declarations()) {
    const std::vector<PlannedPoint> wide = d.plan(full);
    for (const PlannedPoint& p : d.plan(standard)) {
      const bool kept = std::any_of(wide.begin(), wide.end(), [&](const PlannedPoint& q) {
        return q.params == p.params && q.metrics == p.metrics && q.when == p.when;
      });
      EXPECT_TRUE(kept) << d.name << " drops a default point under --full: " << p.params.dump();
    }
  }
}

TEST(Catalog, ARecordIsCheckedAgainstItsDeclaration) {
  Declaration d;
  d.name = "probe";
  d.params = {{.key = "n", .title = "n"}};
  d.metrics = {{.name = "rate", .unit = "GB/s", .metric_class = MetricClass::device_memory}};
  d.extras = {{"why", "because"}};
  Measurement m;
  m.metric = "rate";
  m.unit = "GB/s";
  m.params = {{"n", 1}};
  m.extra = {{"why", 1}, {keys::bytes_moved, 2}};
  EXPECT_EQ(declaration_mismatch(d, m), "");
  m.params["m"] = 2;
  EXPECT_NE(declaration_mismatch(d, m).find("param 'm'"), std::string::npos);
  m.params.erase("m");
  m.extra["undeclared"] = 1;
  EXPECT_NE(declaration_mismatch(d, m).find("extra 'undeclared'"), std::string::npos);
  m.extra.erase("undeclared");
  m.unit = "MB/s";
  EXPECT_NE(declaration_mismatch(d, m).find("declared in 'GB/s'"), std::string::npos);
  m.unit = "GB/s";
  m.metric = "speed";
  EXPECT_NE(declaration_mismatch(d, m).find("metric 'speed'"), std::string::npos);
}

TEST(Catalog, ClassCasesPickAPointsClass) {
  const Metric m =
      Metric{.name = "rate", .unit = "GB/s", .metric_class = MetricClass::host_link}
          .with_case({.key = "memory", .equals = "pageable", .then = MetricClass::host_phase})
          .with_case({.key = "bytes", .below = 1024, .then = MetricClass::derived});
  EXPECT_EQ(m.class_of({{"memory", "pinned"}}, {{"bytes", 4096}}), MetricClass::host_link);
  EXPECT_EQ(m.class_of({{"memory", "pageable"}}, {{"bytes", 4096}}), MetricClass::host_phase);
  EXPECT_EQ(m.class_of({{"memory", "pinned"}}, {{"bytes", 512}}), MetricClass::derived);
  EXPECT_EQ(declared_class("no such experiment", "rate", {}, {}), MetricClass::derived);
}

TEST(Catalog, AChartNamingAnUndeclaredNameIsAProblem) {
  Declaration d;
  d.name = "probe";
  d.title = d.description = d.citation = "x";
  d.params = {{.key = "n", .title = "n"}};
  d.metrics = {{.name = "rate", .unit = "GB/s"}};
  d.charts = {Chart::sweep_of(d.metrics[0])};
  d.charts[0].x = "m";
  const auto problems = declaration_problems(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("'m' is no declared param"), std::string::npos);
}

TEST(Catalog, AModelsBoundNeedsAModelAndLiesInZeroToOne) {
  Declaration d;
  d.name = "probe";
  d.title = d.description = d.citation = "x";
  d.params = {{.key = "n", .title = "n"}};
  d.metrics = {{.name = "rate", .unit = "GB/s"}, {.name = "model_rate", .unit = "GB/s"}};
  d.charts = {Chart::sweep_of(d.metrics[0]).along(d.params[0]).within(0.1)};
  auto problems = declaration_problems(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("names no model"), std::string::npos);
  d.charts[0].model(d.metrics[1], "model");
  EXPECT_TRUE(declaration_problems(d).empty());
  d.charts[0].within(1.5);
  problems = declaration_problems(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("outside [0, 1)"), std::string::npos);
}

TEST(Catalog, ABarChartHasNoLogAxis) {
  Declaration d;
  d.name = "probe";
  d.title = d.description = d.citation = "x";
  d.params = {{.key = "n", .title = "n"}};
  d.metrics = {{.name = "rate", .unit = "GB/s"}};
  d.charts = {Chart::sweep_of(d.metrics[0]).along(d.params[0])};
  d.charts[0].mark = "bar";
  EXPECT_TRUE(declaration_problems(d).empty());
  d.charts[0].log_y = true;
  const auto problems = declaration_problems(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("log y axis"), std::string::npos);
  d.charts[0].mark = "point";
  EXPECT_TRUE(declaration_problems(d).empty());
}

TEST(Catalog, GroupedBarsNameTheirColour) {
  Declaration d;
  d.name = "probe";
  d.title = d.description = d.citation = "x";
  d.params = {{.key = "n", .title = "n"}, {.key = "way", .title = "way"}};
  d.metrics = {{.name = "rate", .unit = "GB/s"}};
  d.charts = {Chart::bars_of(d.metrics[0]).along(d.params[0])};
  const auto problems = declaration_problems(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("colour"), std::string::npos);
  d.charts[0].colour(d.params[1]);
  EXPECT_TRUE(declaration_problems(d).empty());
}

TEST(Catalog, ABadCatalogIsRefusedWithItsField) {
  json bad = catalog_json();
  bad[0]["metrics"][0]["class"] = "fast";
  try {
    catalog_from_json(bad);
    FAIL() << "accepted a metric class that does not exist";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a metric class"), std::string::npos) << e.what();
  }
}

// The names an experiment owns: its name, its metrics, and its params and extra keys that are
// identifiers (with an underscore: "flops_per_byte", not a word such as "config" or "series",
// which Vega-Lite and the page use for their own things), less the words core owns and every
// experiment may use (common extras, the shared metrics, the peaks, the device's fields as the
// run record writes them: an experiment may store "sm_clock_khz" beside its figure).
std::set<std::string> experiment_owned_names() {
  std::set<std::string> core;
  for (const Extra& e : common_extras())
    core.insert(e.key);
  const json device = to_json(nominal_device());
  for (const auto& [key, value] : device.items())
    core.insert(key);
  for (const char* name : {keys::achievable_peak, keys::access_peak, keys::access_type})
    core.insert(name);
  core.insert(metrics::effective_bandwidth.name);
  core.insert(metrics::time_ms.name);
  std::set<std::string> owned;
  for (const Declaration& d : declarations()) {
    owned.insert(d.name);
    for (const Metric& m : d.metrics)
      owned.insert(m.name);
    for (const Param& p : d.params)
      if (p.key.find('_') != std::string::npos)
        owned.insert(p.key);
    for (const Extra& e : d.extras)
      if (e.key.find('_') != std::string::npos)
        owned.insert(e.key);
  }
  for (const auto& name : core)
    owned.erase(name);
  return owned;
}

// Every string literal of a C++ source (escapes kept as written).
std::vector<std::string> string_literals(const std::string& text) {
  std::vector<std::string> found;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '/') { // a comment line
      i = text.find('\n', i);
      if (i == std::string::npos)
        break;
      continue;
    }
    if (text[i] == '\'') { // a character literal: skip it whole
      i = text.find('\'', i + 1 + (text[i + 1] == '\\'));
      continue;
    }
    if (text[i] != '"')
      continue;
    std::string literal;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size())
        literal += text[i++];
      literal += text[i];
    }
    found.push_back(literal);
  }
  return found;
}

TEST(Catalog, NothingInReportOrAnalysisSpellsAnExperimentsNames) {
  // The declaration is the contract: report/ and runner/analysis/ read it and never name an
  // experiment, a metric, a param or an extra key of one (a renamed metric must not keep a
  // chart or a verdict working by a literal of its old name).
  const std::set<std::string> owned = experiment_owned_names();
  ASSERT_GT(owned.size(), 100u);
  std::size_t files = 0;
  for (const char* folder : {"report", "runner/analysis"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::filesystem::path(APOD_SOURCE_ROOT) / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp")
        continue;
      ++files;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      for (const std::string& literal : string_literals(text))
        EXPECT_FALSE(owned.count(literal))
            << entry.path().string() << " spells \"" << literal << "\", a name an experiment owns";
    }
  EXPECT_GT(files, 50u);
}

TEST(Catalog, TheLiteralScanFindsAPlantedName) {
  const std::set<std::string> owned = experiment_owned_names();
  const auto literals = string_literals("// \"offset_copy\" in a comment\n"
                                        "const char c = '\"'; f(\"latency_ns\", \"a\\\"b\");");
  ASSERT_EQ(literals.size(), 2u);
  EXPECT_TRUE(owned.count(literals[0])) << literals[0];
  EXPECT_EQ(literals[1], "a\\\"b");
}

} // namespace
} // namespace apod
