// Stored strings (labels, metric and experiment names, device names, parameters) come from other
// machines and people. Before one reaches a terminal, a markdown page or a CSV file it passes
// through one of these, so that it can only ever be read as the text it is: never as a terminal
// command (clear screen, window title, clipboard), a markdown heading, link or HTML comment, or a
// spreadsheet formula. JSON output needs none of this: its encoder escapes every control
// character.
#pragma once

#include <string>
#include <string_view>

namespace apod {

/// `text` for a terminal, on one line: bytes that are not UTF-8 become U+FFFD; C0 and C1
/// control characters (newline and ESC included), DEL and the bidirectional overrides (U+202A to
/// U+202E, U+2066 to U+2069, which reorder what is shown) become visible escapes such as "\x1b"
/// or "\u202e". Everything else is kept as it is.
std::string terminal_text(std::string_view text);

/// `text` as literal markdown inline text (GitHub Flavored Markdown), for a paragraph or a table
/// cell: terminal_text's escapes, then every ASCII punctuation character backslash-escaped (so no
/// emphasis, link, heading, table pipe, HTML tag or comment can start), then `<`, `>` and `&`
/// as character references.
std::string markdown_text(std::string_view text);

/// `text` as a markdown code span (for JSON such as a point's params), safe in a table cell: the
/// fence is one backtick longer than the longest run of backticks inside, `|` is escaped as GFM
/// tables require, and control characters are escaped as by terminal_text.
std::string markdown_code(std::string_view text);

/// `text` as one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes
/// doubled; a field that a spreadsheet would run as a formula (starting with =, +, -, @, tab or
/// CR) gets a leading apostrophe (OWASP, "CSV Injection").
std::string csv_field(std::string_view text);

} // namespace apod
