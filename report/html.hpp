// Escaping for the two contexts the report writes data into. HTML text and attributes go
// through the template's {{var}}, which render_mustache writes with core/text.hpp's html_text,
// the one HTML escaper; JSON goes into <script type="application/json"> blocks through
// `json_for_script`. {{{var}}} is for markup apod built itself and nothing else.
#pragma once

#include <kainjow/mustache.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace apod::report {

/// `value` as JSON that is safe as the whole content of a <script> element: `<`, `>` and `&`
/// become \u003c, \u003e and \u0026, so neither "</script>" nor "<!--" can appear and end or
/// bend the element, and U+2028/U+2029 become \u2028/\u2029 for consumers that parse it as
/// JavaScript. Invalid UTF-8 is replaced by U+FFFD rather than throwing. JSON.parse gives back
/// exactly `value`.
std::string json_for_script(const nlohmann::ordered_json& value);

/// `text`, a mustache template, rendered with `data`, every {{var}} (in its partials too)
/// written through html_text (core/text.hpp) rather than kainjow's own escaper, which lets
/// terminal controls and bidirectional overrides through. Throws std::runtime_error naming
/// the template's error when it cannot be rendered.
std::string render_mustache(std::string_view text, const kainjow::mustache::data& data);

} // namespace apod::report
