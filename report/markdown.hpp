// `apod report --format markdown`: the results as markdown tables for a terminal or a CI job
// summary.
#pragma once

#include "options.hpp"

#include "core/run_record.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace apod::report {

/// The results render_html draws (report.hpp), as markdown, for a terminal or a CI job summary
/// (`apod report --format markdown`), in the first screen's order: the verdict once (the newest
/// run against the pinned baseline, or the previous run of its machine: baseline_verdict), the
/// headline figures of the newest run against the baseline per device model grouped by chapter
/// (change, noise, compare's word, % of limit, trust flags), then per experiment and run a table
/// in nvbench's shape (parameters, samples, GPU time, noise, median, % of limit, status). Past
/// runs_drawn_apart runs, the tables show the newest run of each device model. Every cell is
/// escaped for markdown.
std::string render_markdown(const nlohmann::ordered_json& results,
                            const nlohmann::ordered_json& catalog,
                            const RenderOptions& options = {});
/// The same from runs already read.
std::string render_markdown(const std::vector<RunRecord>& runs,
                            const nlohmann::ordered_json& catalog, const RenderOptions& options);

} // namespace apod::report
