// Escaping for the two contexts the report writes data into. HTML text and attributes go
// through the template's {{var}} (kainjow's escaper: & < > " '); JSON goes into
// <script type="application/json"> blocks through `json_for_script`.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace apod::report {

/// `value` as JSON that is safe as the whole content of a <script> element: `<`, `>` and `&`
/// become \u003c, \u003e and \u0026, so neither "</script>" nor "<!--" can appear and end or
/// bend the element, and U+2028/U+2029 become \u2028/\u2029 for consumers that parse it as
/// JavaScript. Invalid UTF-8 is replaced by U+FFFD rather than throwing. JSON.parse gives back
/// exactly `value`.
std::string json_for_script(const nlohmann::ordered_json& value);

} // namespace apod::report
