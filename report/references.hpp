// The published figures of the source documents (data/reference/), compiled in.
#pragma once

#include <nlohmann/json.hpp>

namespace apod::report {

/// The published figures of the source documents (data/reference/*.json, compiled in), as the
/// array of documents render_html takes.
nlohmann::ordered_json reference_figures();

} // namespace apod::report
