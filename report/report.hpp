// apod's report: an apod-results document in, one self-contained HTML page out.
#pragma once

#include "core/run_record.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace apod::report {

/// Device model (the device's `name`, e.g. "NVIDIA H200") -> price in US dollars, in file order.
using Prices = std::vector<std::pair<std::string, double>>;

/// What the caller adds to the results.
struct RenderOptions {
  /// Prices for the hardware comparison's GB/s per $1000 (`apod report --prices`); may be empty.
  Prices prices;
  /// The id of the pinned baseline run (the store's baseline_run setting, `apod baseline set`):
  /// the first screen and the history judge the newest run of its device model against it.
  /// Empty: none pinned.
  std::string baseline_run;
};

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

/// The same results as markdown, for a terminal or a CI job summary (`apod report --format
/// markdown`): the headline figures with their % of limit and spread, the verdict against the
/// pinned baseline, and per experiment and run a table in nvbench's shape (parameters, samples,
/// GPU time, noise, median, % of limit, status). Past runs_drawn_apart runs, the tables show the
/// newest run of each device model. Every cell is escaped for markdown.
std::string render_markdown(const nlohmann::ordered_json& results,
                            const nlohmann::ordered_json& catalog,
                            const RenderOptions& options = {});
/// The same from runs already read.
std::string render_markdown(const std::vector<RunRecord>& runs,
                            const nlohmann::ordered_json& catalog, const RenderOptions& options);

/// The published figures of the source documents (data/reference/*.json, compiled in), as the
/// array of documents render_html takes.
nlohmann::ordered_json reference_figures();

/// Checks a prices document: an object of device model -> positive, finite number (USD).
/// Throws apod::InputError (exit code 2) naming `origin` and the offending entry otherwise.
Prices parse_prices(const nlohmann::ordered_json& document, const std::string& origin = "prices");

/// Reads and checks the prices file at `path`; apod::InputError when it cannot be read, is not
/// JSON, or fails parse_prices.
Prices load_prices(const std::string& path);

} // namespace apod::report
