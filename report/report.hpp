// apod's report: an apod-results document in, one self-contained HTML page out. The library's
// public face: render_html here, and what a caller also needs (the options, --prices, the
// published figures, the markdown form) from the headers below, one per file of report/.
#pragma once

#include "markdown.hpp"
#include "options.hpp"
#include "prices.hpp"
#include "references.hpp"

#include "core/run_record.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace apod::report {

/// Renders the report page for `results` (an apod-results document, docs/results-format.md,
/// with any number of runs), described by `catalog` (catalog_json(): titles, citations,
/// chart settings) and compared with `references` (an array of published figures, may be
/// empty). The page carries vega, vega-lite and vega-embed inline and makes no request of its
/// own; every string from the inputs is escaped. Throws std::runtime_error when the template
/// cannot be rendered. See docs/report.md.
std::string render_html(const nlohmann::ordered_json& results,
                        const nlohmann::ordered_json& catalog,
                        const nlohmann::ordered_json& references,
                        const RenderOptions& options = {});

/// The same page from runs already read (Store::read_runs), without a JSON round trip; the page
/// says the results were written by `generator`.
std::string render_html(const std::vector<RunRecord>& runs, const nlohmann::ordered_json& catalog,
                        const nlohmann::ordered_json& references, const RenderOptions& options,
                        const std::string& generator);

} // namespace apod::report
