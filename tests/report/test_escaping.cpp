// Strings from the results (labels, device names, errors, params, references) reach the page
// only escaped, JSON blocks cannot end their <script>, and the page requests nothing.
#include "assets.hpp"
#include "fixtures.hpp"
#include "html.hpp"
#include "page_text.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace apod::report::test {
namespace {

const std::string hostile_label = "</script><script>alert(1)</script>";
const std::string hostile_device = "H200 <b>&\"'";
const std::string sql_label = "nightly'; DROP TABLE runs; --";

json hostile_results() {
  json results = three_runs();
  results["runs"][0]["label"] = hostile_label;
  results["runs"][0]["device"]["name"] = hostile_device;
  results["runs"][1]["label"] = sql_label;
  results["runs"][1]["measurements"][0]["params"]["note<>"] = "<i>param</i>";
  results["runs"][2]["measurements"][40]["error"] =
      "<img src=x onerror=alert(2)>"; // a failed point
  return results;
}

// Every data row of a spec, at the top and in its layers.
std::vector<json> data_rows(const json& spec) {
  std::vector<json> rows;
  for (const auto& row : spec.value("data", json::object()).value("values", json::array()))
    rows.push_back(row);
  for (const auto& layer : spec.value("layer", json::array()))
    for (const auto& row : layer.value("data", json::object()).value("values", json::array()))
      rows.push_back(row);
  return rows;
}

std::vector<json> chart_specs(const std::string& html) {
  std::vector<ScriptElement> scripts;
  markup_without_scripts(html, &scripts);
  std::vector<json> specs;
  for (const auto& script : scripts)
    if (script.open_tag.find("application/json") != std::string::npos)
      specs.push_back(json::parse(script.content));
  return specs;
}

TEST(Escaping, HostileLabelAndDeviceNameAppearOnlyEscaped) {
  const std::string html = render_html(hostile_results(), catalog(), references());
  EXPECT_EQ(html.find(hostile_label), std::string::npos);
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<i>param"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("H200 &lt;b&gt;&amp;&quot;&apos;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"), std::string::npos);
}

TEST(Escaping, OnlyOurScriptElementsExist) {
  const std::string html = render_html(hostile_results(), catalog(), references());
  std::vector<ScriptElement> scripts;
  markup_without_scripts(html, &scripts);
  const std::size_t charts = chart_specs(html).size();
  const std::size_t first = html.find("<section class=\"experiment\"");
  const std::string sections = html.substr(first, html.find("<section id=\"runs\"") - first);
  // Six experiments with verified points, h2d_copy with two metrics, and offset_copy's again as
  // % of each device's limit beside its published figure's (issue 25).
  EXPECT_EQ(count(sections, "<script type=\"application/json\" data-chart-for="), 8u);
  EXPECT_EQ(count(html, "class=\"chart-canvas\""), charts); // and the page's own charts
  // vega, vega-lite, vega-embed, charts.js, page.js + specs (one run: no history blocks)
  EXPECT_EQ(scripts.size(), 5 + charts);
  EXPECT_EQ(count(html, "<script"), scripts.size());
  EXPECT_EQ(count(html, "</script>"), scripts.size());
}

TEST(Escaping, SqlLikeLabelIsStoredAndShownVerbatim) {
  const std::string html = render_html(hostile_results(), catalog(), references());
  EXPECT_NE(html.find("nightly&apos;; DROP TABLE runs; --"), std::string::npos);
  bool seen = false;
  for (const auto& spec : chart_specs(html))
    for (const auto& row : data_rows(spec))
      seen = seen || row.value("run", "") == sql_label;
  EXPECT_TRUE(seen) << "the chart data should carry the label exactly";
}

TEST(Escaping, EnvironmentsPricesAndHistoryAppearOnlyEscaped) {
  // The history fixture's A100 run has a hostile host name and an environment key and value
  // with markup; a price names a hostile model.
  RenderOptions options;
  options.prices = {{"NVIDIA H200", 32000}, {"<script>window.__apod_pwned=4</script>", 1}};
  const std::string html = render_html(history(), catalog(), references(), options);
  std::vector<ScriptElement> scripts;
  const std::string markup = markup_without_scripts(html, &scripts);
  EXPECT_EQ(html.find("<script>window.__apod_pwned"), std::string::npos);
  EXPECT_EQ(html.find("<b>odd key"), std::string::npos);
  EXPECT_EQ(html.find("<i>odd value"), std::string::npos);
  EXPECT_NE(markup.find("&lt;script&gt;window.__apod_pwned=3&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(markup.find("&lt;script&gt;window.__apod_pwned=4&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(markup.find("&lt;b&gt;odd key&lt;/b&gt;"), std::string::npos);
  // Our five scripts and JSON blocks (chart specs, and the history's one data block), each of
  // which parses.
  EXPECT_EQ(scripts.size(), 5 + chart_specs(html).size());
  EXPECT_EQ(count(html, "data-history>"), 1u);
  EXPECT_EQ(count(html, "<script"), scripts.size());
  // The history's data carries the hostile host only escaped for a script block.
  EXPECT_NE(html.find("\\u003cscript\\u003ewindow.__apod_pwned=3"), std::string::npos);
}

TEST(JsonForScript, CannotEndOrBendAScriptAndRoundTrips) {
  const json value = {{"label", "</script><!-- <script>\xE2\x80\xA8\xE2\x80\xA9 & done"},
                      {"n", 1.5},
                      {"list", {"a<b", ">"}}};
  const std::string safe = json_for_script(value);
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(safe.find('>'), std::string::npos);
  EXPECT_EQ(safe.find('&'), std::string::npos);
  EXPECT_EQ(safe.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(safe.find("\xE2\x80\xA9"), std::string::npos);
  EXPECT_NE(safe.find("\\u2028\\u2029"), std::string::npos);
  EXPECT_EQ(json::parse(safe), value);
}

TEST(JsonForScript, InvalidUtf8IsReplacedNotThrown) {
  const json value = {{"label", std::string("bad \xFF byte")}};
  EXPECT_NO_THROW(json_for_script(value));
  EXPECT_NE(json_for_script(value).find("\xEF\xBF\xBD"), std::string::npos); // U+FFFD
}

TEST(RenderMustache, WritesEveryVariableThroughHtmlText) {
  kainjow::mustache::data data;
  data.set("label", "\x1b]0;owned\x07\xE2\x80\xAE<b>\"'&\xff");
  kainjow::mustache::data partial =
      kainjow::mustache::partial([] { return std::string("<i>{{label}}</i>"); });
  data.set("part", partial);
  data.set("ours", "<em>apod's own markup</em>");
  const std::string html =
      render_mustache("<p title=\"{{label}}\">{{label}}</p>{{>part}}{{{ours}}}", data);
  const std::string shown = "\\x1b]0;owned\\x07\\u202e&lt;b&gt;&quot;&apos;&amp;\xEF\xBF\xBD";
  EXPECT_EQ(html, "<p title=\"" + shown + "\">" + shown + "</p><i>" + shown +
                      "</i><em>apod's own markup</em>");
}

TEST(SelfContained, MarkupReferencesNothingOutsideThePage) {
  const std::string html = render_html(three_runs(), catalog(), references());
  const std::string markup = markup_without_scripts(html);
  // Library code holds URL strings; our markup (everything outside script elements) must not.
  EXPECT_EQ(markup.find("http://"), std::string::npos);
  EXPECT_EQ(markup.find("https://"), std::string::npos);
  EXPECT_EQ(markup.find("//cdn"), std::string::npos);
  EXPECT_EQ(markup.find("<link"), std::string::npos);
  EXPECT_EQ(markup.find("<img"), std::string::npos);
  EXPECT_EQ(markup.find("<iframe"), std::string::npos);
  EXPECT_EQ(markup.find("url("), std::string::npos);
  EXPECT_EQ(markup.find("@import"), std::string::npos);
  // Escaped text may read "src=" ("&lt;img src=x"); a tag may not (text holds no raw '<').
  EXPECT_FALSE(std::regex_search(markup, std::regex(R"(<[^>]*\ssrc\s*=)", std::regex::icase)));
  const std::regex href(R"re(href\s*=\s*"([^"]*)")re", std::regex::icase);
  std::size_t links = 0;
  for (std::sregex_iterator it(markup.begin(), markup.end(), href), end; it != end; ++it, ++links)
    EXPECT_EQ((*it)[1].str().rfind('#', 0), 0u) << "link off the page: " << (*it)[1];
  EXPECT_GT(links, 0u);
  // The chart data needs no lookup either: an experiment's $schema URL is dropped.
  for (const auto& spec : chart_specs(html))
    EXPECT_FALSE(spec.contains("$schema"));
}

TEST(SelfContained, PolicyForbidsEveryFetchAndUnlistedScript) {
  const std::string html = render_html(one_run(), catalog(), references());
  std::smatch match;
  const std::string head = html.substr(0, html.find("</head>"));
  ASSERT_TRUE(std::regex_search(
      head, match, std::regex(R"re(http-equiv="Content-Security-Policy" content="([^"]*)")re")));
  // The attribute is written through {{csp}}, so its quotes arrive as &apos;, as a browser reads
  // them.
  const std::string policy = std::regex_replace(match[1].str(), std::regex("&apos;"), "'");
  EXPECT_EQ(policy.rfind("default-src 'none';", 0), 0u); // no fetch of any kind is allowed
  ASSERT_TRUE(std::regex_search(policy, match, std::regex("script-src ([^;]*);")));
  const std::string script_src = match[1];
  EXPECT_EQ(count(script_src, "'sha256-"), 5u); // our five scripts, by hash
  EXPECT_EQ(script_src.find("unsafe-inline"), std::string::npos);
  EXPECT_NE(script_src.find(std::string(assets::charts_js.csp_hash)), std::string::npos);
  EXPECT_NE(script_src.find(std::string(assets::page_js.csp_hash)), std::string::npos);
}

TEST(SelfContained, LibrariesAreInlinedWhole) {
  const std::string html = render_html(one_run(), catalog(), json::array());
  for (const auto* asset : {&assets::vega_js, &assets::vega_lite_js, &assets::vega_embed_js,
                            &assets::charts_js, &assets::page_js}) {
    EXPECT_GT(asset->text.size(), 1000u) << asset->name;
    EXPECT_NE(html.find("<script>" + std::string(asset->text) + "</script>"), std::string::npos)
        << asset->name;
    EXPECT_EQ(asset->text.find("sourceMappingURL"), std::string::npos) << asset->name;
  }
  // The versions come from node_modules, checked against package.json's pins at build time.
  EXPECT_EQ(assets::vega_js.version.rfind("vega 5.", 0), 0u);
  EXPECT_EQ(assets::vega_lite_js.version.rfind("vega-lite 5.", 0), 0u);
  EXPECT_EQ(assets::vega_embed_js.version.rfind("vega-embed 6.", 0), 0u);
}

} // namespace
} // namespace apod::report::test
