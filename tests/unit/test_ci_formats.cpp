// The formats CI systems read, on hand-made verdicts and runs: JUnit XML (compare), Bencher's
// metric format and OpenMetrics (export). What each promises in its header: counts that agree
// with the test cases written, a regression as a failure and anything undecided as skipped, one
// family per metric declared once, and stored names that stay text. Their schemas and grammars
// are checked on committed runs by tests/cli/test_ci_formats.sh.
#include "analysis/verdict_junit.hpp"
#include "core/results_bmf.hpp"
#include "core/results_openmetrics.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

using namespace apod;

namespace {

/// A stored name no writer may pass through as it is: quotes, markup, a control character (ESC,
/// which would also start a terminal sequence), a line feed and a byte that is not UTF-8.
const std::string hostile = "a\"b'c<d>&e\x1b[31m\nf\xff";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

PointVerdict point(const std::string& metric, int offset, Change change) {
  PointVerdict p;
  p.experiment = "offset_copy";
  p.metric = metric;
  p.unit = "GB/s";
  p.params = {{"word_bytes", 4}, {"offset", offset}};
  p.baseline = 100;
  p.candidate = change == Change::slower ? 90 : 100;
  p.slowdown = change == Change::slower ? std::log(100.0 / 90) : 0;
  p.change = change;
  p.noise = 0.002;
  p.p_adjusted = change == Change::slower ? 1e-6 : 1;
  p.detectable = 0.015;
  return p;
}

/// A verdict with one point of each kind: a regression, an unconfirmed slowdown (noisy in the
/// candidate), one the same, a derived point (not gated), an experiment taken whole and a point
/// left out.
Verdict verdict() {
  Verdict v;
  v.baseline.id = "aa01";
  v.candidate = {"cc03", "night 3", "2026-01-03T00:00:00.000Z", "Synthetic GPU", "GPU-1",
                 "ci",   "580"};
  v.fwer = 0.01;
  PointVerdict regressed = point("effective_bandwidth", 1, Change::slower);
  regressed.regression = true;
  PointVerdict noisy = point("effective_bandwidth", 2, Change::slower);
  noisy.noisy_candidate = true;
  PointVerdict same = point("effective_bandwidth", 3, Change::same);
  PointVerdict derived = point("ratio_to_first_row", 3, Change::same);
  derived.gated = false;
  v.points = {regressed, noisy, same, derived};
  v.gated_points = 3;
  PointVerdict whole = point("effective_bandwidth", 0, Change::same);
  whole.params = json::object();
  whole.points_taken_whole = 3;
  v.wholes = {whole};
  v.left_out = {
      {"offset_copy", "effective_bandwidth", {{"offset", 9}}, LeftOutReason::new_point, ""}};
  return v;
}

/// The value of attribute `name` on the first element `tag` of `xml`.
std::string attribute(const std::string& xml, const std::string& tag, const std::string& name) {
  std::smatch m;
  const std::regex re(fmt::format("<{} (?:[^>]* )?{}=\"([^\"]*)\"", tag, name));
  return std::regex_search(xml, m, re) ? m[1].str() : "(absent)";
}

RunRecord run_with(const std::string& experiment, const std::string& metric, const json& params,
                   const std::string& label = "") {
  const json m = {{"experiment", experiment},
                  {"params", params},
                  {"metric", metric},
                  {"unit", "GB/s"},
                  {"direction", "higher"},
                  {"samples", {10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0}},
                  {"status", "ok"},
                  {"verified", true}};
  json failed = m;
  failed["params"] = {{"offset", 99}};
  failed["error"] = "launch failed";
  failed["status"] = "failed";
  return run_from_json({{"id", "ab12"},
                        {"label", label},
                        {"status", "complete"},
                        {"started_at", "2026-01-01T00:00:00.000Z"},
                        {"device", {{"name", "NVIDIA H100"}, {"uuid", "GPU-7"}}},
                        {"environment", {{"host", "node-1"}}},
                        {"experiments", {{{"name", experiment}, {"version", 1}}}},
                        {"measurements", {m, failed}}},
                       "run");
}

} // namespace

TEST(JUnit, OneCasePerGatedPointWholeAndLeftOutWithCountsThatAgree) {
  const std::string xml = format_junit({verdict(), verdict()});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
  EXPECT_EQ(count(xml, "<testsuite "), 2u);
  // 3 gated points, 1 whole, 1 left out; the derived point is not a test.
  EXPECT_EQ(attribute(xml, "testsuite", "tests"), "5");
  EXPECT_EQ(count(xml, "<testcase "), 10u);
  EXPECT_EQ(attribute(xml, "testsuite", "failures"), "1");
  EXPECT_EQ(count(xml, "<failure "), 2u);
  EXPECT_EQ(attribute(xml, "testsuite", "skipped"), "2") << "unconfirmed and left out";
  EXPECT_EQ(count(xml, "<skipped>"), 4u);
  EXPECT_EQ(attribute(xml, "testsuites", "tests"), "10");
  EXPECT_EQ(attribute(xml, "testsuites", "failures"), "2");
  EXPECT_EQ(xml.find("ratio_to_first_row"), std::string::npos);
  EXPECT_EQ(attribute(xml, "testsuite", "name"), "cc03 night 3");
  EXPECT_NE(xml.find("<testcase classname=\"offset_copy\" name=\"effective_bandwidth offset=1 "
                     "word_bytes=4\">\n      <failure type=\"regression\" message=\"regression: "
                     "1.11x slower (baseline 100 GB/s, candidate 90 GB/s); noise ±0.2%; p (Holm) "
                     "1e-06; detectable change 1.5%\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped>unconfirmed: "), std::string::npos);
  EXPECT_NE(xml.find("name=\"device memory taken whole (3 points)\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped>left out (new)</skipped>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"fwer\" value=\"1%\"/>"), std::string::npos);
}

TEST(JUnit, NothingComparedIsAnError) {
  Verdict v;
  v.candidate.id = "ee05";
  v.nothing_compared = "the baseline ran on one GPU model and the candidate on another";
  const std::string xml = format_junit({v});
  EXPECT_EQ(attribute(xml, "testsuite", "errors"), "1");
  EXPECT_EQ(attribute(xml, "testsuite", "tests"), "1");
  EXPECT_NE(xml.find("<error type=\"nothing_compared\""), std::string::npos);
}

TEST(JUnit, StoredNamesStayText) {
  Verdict v = verdict();
  v.candidate.label = hostile;
  v.points[0].experiment = hostile;
  v.points[0].params["label"] = hostile;
  v.left_out[0].detail = hostile + "\xEF\xBF\xBE"; // U+FFFE: UTF-8, but no XML character
  const std::string xml = format_junit({v});
  for (const char c : xml)
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << int(c);
  EXPECT_EQ(xml.find("\xff"), std::string::npos);
  EXPECT_EQ(xml.find("\xEF\xBF\xBE"), std::string::npos);
  EXPECT_EQ(xml.find("<d>"), std::string::npos);
  EXPECT_NE(xml.find("a&quot;b&apos;c&lt;d&gt;&amp;e\\x1b[31m\\x0af\xEF\xBF\xBD"),
            std::string::npos)
      << xml;
  EXPECT_EQ(count(xml, "<testcase "), 5u);
}

TEST(Bmf, OneBenchmarkPerPointItsMedianAndTheMediansInterval) {
  const json doc = bmf_document(
      run_with("offset_copy", "effective_bandwidth", {{"word_bytes", 4}, {"offset", 3}}));
  ASSERT_EQ(doc.size(), 1u) << "the failed point carries no figure";
  const json& m = doc["offset_copy offset=3 word_bytes=4"]["effective_bandwidth (GB/s)"];
  EXPECT_EQ(m["value"], 14.0);
  EXPECT_EQ(m["lower_value"], 11.0) << "order statistics 2 and 8 of 9 (summarize)";
  EXPECT_EQ(m["upper_value"], 17.0);
  EXPECT_EQ(bmf_measure_name("efficiency", "1"), "efficiency");
  EXPECT_EQ(bmf_benchmark_name("x", {{"p", "a-bencher-ignore"}}), "x p=a-bencher-ignore_")
      << "a stored name cannot silence Bencher's alerts";
  EXPECT_LE(bmf_benchmark_name("x", {{"p", std::string(5000, 'a')}}).size(),
            bmf_max_benchmark_name);
  EXPECT_LE(bmf_measure_name(std::string(100, 'm'), "GB/s").size(), bmf_max_measure_name);
}

TEST(Bmf, StoredNamesSurviveAsValidJson) {
  const json doc = bmf_document(run_with(hostile, hostile, {{hostile, hostile}}));
  const std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_EQ(json::parse(text).size(), 1u);
  EXPECT_NE(text.find("\\u001b"), std::string::npos) << "escaped by the JSON encoder";
}

TEST(OpenMetrics, UnitsAndNames) {
  EXPECT_EQ(openmetrics_unit("GB/s"), "gb_per_s");
  EXPECT_EQ(openmetrics_unit("results/clk/SM"), "results_per_clk_per_sm");
  EXPECT_EQ(openmetrics_unit("%"), "percent");
  EXPECT_EQ(openmetrics_unit("1"), "ratio");
  EXPECT_EQ(openmetrics_unit(""), "");
  EXPECT_EQ(openmetrics_family("effective_bandwidth", "GB/s"), "apod_effective_bandwidth_gb_per_s");
  EXPECT_EQ(openmetrics_family("latency_ns", "ns"), "apod_latency_ns");
  EXPECT_EQ(openmetrics_family("a-b c", ""), "apod_a_b_c");
}

TEST(OpenMetrics, EachFamilyDeclaredOnceWithAllItsSamples) {
  RunRecord r = run_with("offset_copy", "effective_bandwidth", {{"offset", 1}});
  RunRecord other = run_with("stride_copy", "effective_bandwidth", {{"stride", 2}});
  r.experiments.push_back(other.experiments[0]);
  RunRecord third = run_with("offset_copy", "latency_ns", {{"offset", 1}});
  r.experiments[0].measurements.push_back(third.experiments[0].measurements[0]);
  const std::string text = openmetrics_text(r);
  EXPECT_EQ(count(text, "# TYPE apod_effective_bandwidth_gb_per_s gauge\n"), 1u);
  EXPECT_EQ(count(text, "# UNIT apod_effective_bandwidth_gb_per_s gb_per_s\n"), 1u);
  // Its two samples (two experiments) follow its metadata before the next family starts.
  const auto family = text.find("# TYPE apod_effective_bandwidth_gb_per_s");
  const auto next = text.find("# TYPE apod_latency_ns");
  ASSERT_NE(next, std::string::npos) << text;
  EXPECT_EQ(count(text.substr(family, next - family), "\napod_effective_bandwidth_gb_per_s{"), 2u)
      << text;
  EXPECT_NE(text.find("apod_effective_bandwidth_gb_per_s{device=\"NVIDIA H100\",gpu_uuid=\"GPU-7\","
                      "host=\"node-1\",run=\"ab12\",experiment=\"offset_copy\",offset=\"1\"} 14\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(OpenMetrics, ParamLabelsNeverClashAndStoredNamesStayText) {
  const std::string text =
      openmetrics_text(run_with(hostile, "m", {{"run", "x"}, {"2x", "y"}, {hostile, hostile}}));
  EXPECT_NE(text.find(",param_run=\"x\""), std::string::npos) << text;
  EXPECT_NE(text.find(",param_2x=\"y\""), std::string::npos) << text;
  // Quotes and backslashes escaped, control characters made visible, bad bytes replaced.
  EXPECT_NE(text.find("experiment=\"a\\\"b'c<d>&e\\\\x1b[31m\\\\x0af\xEF\xBF\xBD\""),
            std::string::npos)
      << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    EXPECT_FALSE(line.empty()) << "the grammar has no blank line";
  const std::regex sample_name("^[a-zA-Z_:][a-zA-Z0-9_:]*\\{");
  for (std::string line : {text.substr(text.find("\napod_") + 1)})
    EXPECT_TRUE(std::regex_search(line, sample_name)) << line;
}
