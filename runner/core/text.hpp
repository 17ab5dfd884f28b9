// Stored strings (labels, dates, metric and experiment names, device names, parameters) come from
// other machines and people. Before one reaches a terminal, a markdown page, an HTML page or a
// CSV file it passes through the one function of that kind here, so that it can only ever be
// read as the text it is: never as a terminal command (clear screen, window title, clipboard), a
// markdown heading, link, image or HTML comment, an HTML element, or a spreadsheet formula. JSON
// needs none of this: its encoder escapes every control character (written with
// error_handler_t::replace, so that bytes that are not UTF-8 become U+FFFD rather than an
// exception); JSON inside an HTML <script> goes through report/html.hpp's json_for_script.
// A writer that cuts stored text (a short id, the date of a time) cuts it with text_prefix first
// and escapes the piece, never the other way round.
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
/// CR) gets a leading apostrophe (OWASP, "CSV Injection"); bytes that are not UTF-8 become U+FFFD.
std::string csv_field(std::string_view text);

/// `text` as HTML text or a quoted attribute value: control characters, DEL, C1 and the
/// bidirectional overrides made visible as by terminal_text (line feed and tab kept: they are
/// white space in HTML), bytes that are not UTF-8 as U+FFFD, then `&`, `<`, `>`, `"` and `'` as
/// character references. No element, comment or attribute can start from inside it.
std::string html_text(std::string_view text);

/// The longest start of `text` that is at most `max_bytes` long and does not end inside a
/// UTF-8 sequence (a byte that starts no valid sequence counts as one character): a cut of
/// stored text that leaves no half character for an escape to turn into U+FFFD.
std::string_view text_prefix(std::string_view text, std::size_t max_bytes);

} // namespace apod
