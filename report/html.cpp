#include "html.hpp"

#include "core/text.hpp"

#include <stdexcept>

namespace apod::report {

std::string json_for_script(const nlohmann::ordered_json& value) {
  const std::string json_text =
      value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string safe;
  safe.reserve(json_text.size() + json_text.size() / 16);
  // These characters can only occur inside JSON strings, where a \u escape means the same.
  for (std::size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<')
      safe += "\\u003c";
    else if (c == '>')
      safe += "\\u003e";
    else if (c == '&')
      safe += "\\u0026";
    else if (c == '\xE2' && i + 2 < json_text.size() && json_text[i + 1] == '\x80' &&
             (json_text[i + 2] == '\xA8' || json_text[i + 2] == '\xA9')) {
      safe += json_text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      safe += c;
    }
  }
  return safe;
}

std::string render_mustache(std::string_view text, const kainjow::mustache::data& data) {
  kainjow::mustache::mustache page_template{std::string(text)};
  if (!page_template.is_valid())
    throw std::runtime_error("report template: " + page_template.error_message());
  page_template.set_custom_escape([](const std::string& s) { return html_text(s); });
  std::string html = page_template.render(data);
  if (!page_template.is_valid())
    throw std::runtime_error("report template: " + page_template.error_message());
  return html;
}

} // namespace apod::report
