// Helpers that read a rendered page the way a browser would split it: the markup, and the
// contents of each <script> element.
#pragma once

#include <string>
#include <vector>

namespace apod::report::test {

struct ScriptElement {
  std::string open_tag; ///< "<script>" or "<script type=\"application/json\" ...>"
  std::string content;
};

/// The page with every <script> element's content removed (tags kept), and the contents.
/// Like the HTML tokenizer, a script ends at the first "</script".
inline std::string markup_without_scripts(const std::string& html,
                                          std::vector<ScriptElement>* scripts = nullptr) {
  std::string markup;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = html.find("<script", at);
    if (open == std::string::npos)
      break;
    const std::size_t open_end = html.find('>', open);
    const std::size_t close = html.find("</script", open_end);
    if (open_end == std::string::npos || close == std::string::npos)
      break;
    markup += html.substr(at, open_end + 1 - at);
    if (scripts)
      scripts->push_back({html.substr(open, open_end + 1 - open),
                          html.substr(open_end + 1, close - open_end - 1)});
    at = close;
  }
  return markup + html.substr(at);
}

inline std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

} // namespace apod::report::test
