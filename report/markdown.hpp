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
/// (`apod report --format markdown`): the headline figures with their % of limit and spread, the
/// verdict against the pinned baseline, and per experiment and run a table in nvbench's shape
/// (parameters, samples, GPU time, noise, median, % of limit, status). Past runs_drawn_apart runs,
/// the tables show the newest run of each device model. Every cell is escaped for markdown.
std::string render_markdown(const nlohmann::ordered_json& results,
                            const nlohmann::ordered_json& catalog,
                            const RenderOptions& options = {});
/// The same from runs already read.
std::string render_markdown(const std::vector<RunRecord>& runs,
                            const nlohmann::ordered_json& catalog, const RenderOptions& options);

} // namespace apod::report
