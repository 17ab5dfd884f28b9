// apod's report: an apod-results document in, one self-contained HTML page out.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace apod::report {

/// Renders the report page for `results` (an apod-results document, docs/results-format.md,
/// with any number of runs), described by `catalog` (experiment_catalog(): titles, citations,
/// chart settings) and compared with `references` (an array of published figures, may be
/// empty). The page carries vega, vega-lite and vega-embed inline and makes no request of its
/// own; every string from the inputs is escaped. Throws std::runtime_error when the template
/// cannot be rendered. See docs/report.md.
std::string render_html(const nlohmann::ordered_json& results,
                        const nlohmann::ordered_json& catalog,
                        const nlohmann::ordered_json& references);

/// The published figures of the source documents (data/reference/*.json, compiled in), as the
/// array of documents render_html takes.
nlohmann::ordered_json reference_figures();

} // namespace apod::report
