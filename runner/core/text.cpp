#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace apod {

namespace {

// The code point at text[i] and its length in bytes; an invalid or overlong sequence gives
// (U+FFFD, 1) so that each bad byte is replaced once (Unicode, "substitution of maximal
// subparts" simplified to one per byte).
std::pair<char32_t, std::size_t> decode(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80)
    return {b0, 1};
  const std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > text.size())
    return {0xFFFD, 1};
  char32_t cp = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return {0xFFFD, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return {0xFFFD, 1};
  return {cp, len};
}

bool shown_escaped(char32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

/// terminal_text, but the characters for which `keep` is true stay as they are (a byte that is
/// not UTF-8 becomes U+FFFD whatever `keep` says).
template <class Keep> std::string neutralised(std::string_view text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, len] = decode(text, i);
    if (cp == 0xFFFD && len == 1)
      out += "\xEF\xBF\xBD";
    else if (keep(cp) || !shown_escaped(cp))
      out.append(text.substr(i, len));
    else if (cp < 0x80)
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    else
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    i += len;
  }
  return out;
}

} // namespace

std::string terminal_text(std::string_view text) {
  return neutralised(text, [](char32_t) { return false; });
}

std::string markdown_text(std::string_view text) {
  std::string out;
  for (const char c : terminal_text(text)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (u < 0x80 && std::ispunct(u))
      out += {'\\', c};
    else
      out += c;
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  const std::string safe = terminal_text(text);
  std::size_t longest = 0, run = 0;
  std::string body;
  for (const char c : safe) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  const std::string fence(longest + 1, '`');
  // A space on each side keeps a backtick at either end from joining the fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string csv_field(std::string_view text) {
  // Bytes that are not UTF-8 become U+FFFD, as in a JSON export, so that the file decodes; the
  // rest is data and stays as it is.
  std::string field = neutralised(text, [](char32_t) { return true; });
  if (!field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos)
    field.insert(0, 1, '\'');
  if (field.find_first_of(",\"\r\n") == std::string::npos)
    return field;
  std::string quoted = "\"";
  for (const char c : field)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string html_text(std::string_view text) {
  std::string out;
  for (const char c : neutralised(text, [](char32_t cp) { return cp == '\n' || cp == '\t'; })) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string_view text_prefix(std::string_view text, std::size_t max_bytes) {
  std::size_t end = 0;
  while (end < text.size()) {
    const std::size_t len = decode(text, end).second;
    if (end + len > max_bytes)
      break;
    end += len;
  }
  return text.substr(0, end);
}

} // namespace apod
