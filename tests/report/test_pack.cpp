// The packed page (report/pack.hpp) loses nothing and keeps the bulk out of the markup: inflating
// every packed block gives back the plain page, byte for byte; no chart spec, history data or
// folded value table of any size is left plain. Sizes of real pages: test_page_size.cpp.
#include "fixtures.hpp"
#include "pack.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace apod::report::test {
namespace {

std::string render(const json& results, bool packed) {
  RenderOptions options;
  options.packed = packed;
  return render_html(results, matrix_catalog(), matrix_references(), options);
}

// The libraries are the one difference in form: inline scripts in the plain page, packed
// text/plain blocks (inflated and run by charts.js) in the packed one.
std::string libraries_inline(std::string html) {
  const std::string packed = "<script type=\"text/plain\" data-library>";
  for (std::size_t at = html.find(packed); at != std::string::npos; at = html.find(packed, at))
    html.replace(at, packed.size(), "<script>");
  return html;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(Pack, DeflateBase64RoundTripsEveryTailLength) {
  for (const std::string text : {"", "a", "ab", "abc", "abcd", "{\"x\": [1, 2, 3]}"})
    EXPECT_EQ(inflate_base64(deflate_base64(text)), text);
  std::string long_text;
  for (int i = 0; i < 100000; ++i)
    long_text += std::to_string(i) + ",";
  EXPECT_EQ(inflate_base64(deflate_base64(long_text)), long_text);
  // Repetitive JSON shrinks: the reason the page packs it.
  EXPECT_LT(deflate_base64(long_text).size(), long_text.size() / 2);
}

TEST(Pack, ADamagedBlockIsRefused) {
  std::string packed = deflate_base64(std::string(5000, 'x'));
  EXPECT_THROW(inflate_base64(packed.substr(0, packed.size() / 2)), std::runtime_error);
  EXPECT_THROW(inflate_base64("not*base64"), std::runtime_error);
}

TEST(Pack, UnpackingThePackedPageGivesThePlainPage) {
  for (const json& results : {matrix(), matrix_many()}) {
    const std::string plain = render(results, false);
    const std::string packed = render(results, true);
    EXPECT_LT(packed.size(), plain.size() / 2);
    EXPECT_EQ(libraries_inline(unpack_page(packed)), plain);
  }
}

TEST(Pack, NoChartSpecHistoryDataOrFoldedTableIsLeftPlain) {
  const std::string plain = render(matrix_many(), false);
  const std::string packed = render(matrix_many(), true);
  ASSERT_GT(count(plain, "data-chart-for="), 10u);
  // Every chart spec (each well over 2 KiB) is packed, none is lost.
  EXPECT_EQ(count(packed, "<script type=\"application/json\" data-packed=\"deflate-base64\" "
                          "data-chart-for="),
            count(plain, "<script type=\"application/json\" data-chart-for="));
  EXPECT_EQ(count(packed, "<script type=\"application/json\" data-chart-for="), 0u);
  EXPECT_EQ(count(packed, "\"$schema\""), 0u);
  // The value tables of the experiments are inside packed blocks, opened by page.js.
  ASSERT_GT(count(plain, "<table class=\"values"), 10u);
  EXPECT_EQ(count(packed, "<table class=\"values"), 0u);
  EXPECT_GT(count(packed, "<script type=\"text/html\" data-packed=\"deflate-base64\">"), 10u);
  // The libraries too: no Vega source in the markup, three packed blocks.
  EXPECT_EQ(count(packed, "<script type=\"text/plain\" data-library data-packed="), 3u);
  EXPECT_EQ(count(packed, "vegaEmbed=") + count(packed, "function(t,e){\"object\"==typeof"), 0u);
}

} // namespace
} // namespace apod::report::test
