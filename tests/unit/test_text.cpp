// Text that reaches a terminal, markdown, HTML or CSV is neutralised (issues 10, 19): a stored
// label or metric name can clear no screen, set no window title, fake no heading and hide no cell.
#include "core/text.hpp"

#include <gtest/gtest.h>

using namespace apod;

TEST(Text, TerminalTextEscapesControlsAndKeepsPrintableUnicode) {
  EXPECT_EQ(terminal_text("H200 \xE2\x80\x94 Gr\xC3\xBC\xC3\x9F"
                          "e"),
            "H200 \xE2\x80\x94 Gr\xC3\xBC\xC3\x9F"
            "e");
  EXPECT_EQ(terminal_text("\x1b[2J\x1b]0;owned\x07"), "\\x1b[2J\\x1b]0;owned\\x07");
  EXPECT_EQ(terminal_text("a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\\x09d\\x7f");
  EXPECT_EQ(terminal_text("\xC2\x9B"
                          "31m"),
            "\\u009b31m")
      << "C1 CSI";
  EXPECT_EQ(terminal_text("abc\xE2\x80\xAE"
                          "cba"),
            "abc\\u202ecba")
      << "right-to-left override";
  EXPECT_EQ(terminal_text("\xff\xfe"
                          "ok\xC0\xAF"),
            "\xEF\xBF\xBD\xEF\xBF\xBD"
            "ok\xEF\xBF\xBD\xEF\xBF\xBD")
      << "invalid and overlong UTF-8";
  EXPECT_EQ(terminal_text(std::string("a\0b", 3)), "a\\x00b");
}

TEST(Text, MarkdownTextIsLiteral) {
  EXPECT_EQ(markdown_text("effective_bandwidth"), "effective\\_bandwidth");
  EXPECT_EQ(markdown_text("### no regression\n"), "\\#\\#\\# no regression\\\\x0a");
  EXPECT_EQ(markdown_text("[click](http://x)"), "\\[click\\]\\(http\\:\\/\\/x\\)");
  EXPECT_EQ(markdown_text("<!-- a | b -->"), "&lt;\\!\\-\\- a \\| b \\-\\-&gt;");
  EXPECT_EQ(markdown_text("**x** & y"), "\\*\\*x\\*\\* &amp; y");
  EXPECT_EQ(markdown_text("GB/s"), "GB\\/s");
  for (const std::string hostile : {"a\nb", "a\r\nb", "|x|"}) {
    const std::string md = markdown_text(hostile);
    EXPECT_EQ(md.find_first_of("\r\n"), std::string::npos) << md; // one table row stays one line
    for (size_t i = md.find('|'); i != std::string::npos; i = md.find('|', i + 1))
      EXPECT_TRUE(i > 0 && md[i - 1] == '\\') << md;
  }
}

TEST(Text, MarkdownCodeCannotBeClosedFromInside) {
  EXPECT_EQ(markdown_code(R"({"offset":3})"), R"(`{"offset":3}`)");
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`a``"), "``` `a`` ```");
  EXPECT_EQ(markdown_code("a|b\nc"), "`a\\|b\\x0ac`");
}

TEST(Text, CsvFieldsAreQuotedAndNeverFormulas) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(csv_field("+1"), "'+1");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a\xff,b"), "\"a\xEF\xBF\xBD,b\"") << "bytes that are not UTF-8";
}

TEST(Text, HtmlTextOpensNoElementAndShowsControls) {
  EXPECT_EQ(html_text("</script><!-- <img src=x onerror=alert(1)>"),
            "&lt;/script&gt;&lt;!-- &lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(html_text("a\"b'c&d"), "a&quot;b&apos;c&amp;d");
  EXPECT_EQ(html_text("two\nlines\tand\x1b[2J\xC2\x9B"), "two\nlines\tand\\x1b[2J\\u009b")
      << "white space kept, controls shown";
  EXPECT_EQ(html_text("abc\xE2\x80\xAE"
                      "cba\xE2\x81\xA6"),
            "abc\\u202ecba\\u2066")
      << "bidirectional overrides shown";
  EXPECT_EQ(html_text("\xff\xfe"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html_text("H200 \xE2\x80\x94 Gr\xC3\xBC\xC3\x9F"
                      "e"),
            "H200 \xE2\x80\x94 Gr\xC3\xBC\xC3\x9F"
            "e");
}

TEST(Text, TextPrefixNeverCutsACharacter) {
  EXPECT_EQ(text_prefix("0f535a147dca", 8), "0f535a14");
  EXPECT_EQ(text_prefix("short", 8), "short");
  // "abcdefg" then a 3-byte character at bytes 7..9: a cut at 8 stops before it.
  EXPECT_EQ(text_prefix("abcdefg\xE2\x80\xAE"
                        "z",
                        8),
            "abcdefg");
  EXPECT_EQ(text_prefix("abcdefg\xE2\x80\xAE"
                        "z",
                        10),
            "abcdefg\xE2\x80\xAE");
  // A byte that starts no valid sequence is one character: kept, for the escape to replace.
  EXPECT_EQ(text_prefix("\xff\xfe"
                        "abcdefgh",
                        8),
            "\xff\xfe"
            "abcdef");
  EXPECT_EQ(text_prefix("\xE2\x80", 8), "\xE2\x80") << "a cut-off sequence is two bad bytes";
}
