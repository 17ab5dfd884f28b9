// What every section of the page is built from, and the one signature a section has:
//   mustache::data NAME_section(const PageContext&)   (report/sections/NAME.cpp)
// drawn by its own partial (templates/sections/NAME.mustache). The context holds the model of
// the runs, their headline series, the published figures, the catalog, the caller's options and
// the baseline verdict; the chart numbering is the only thing sections share that changes while
// the page is built.
#pragma once

#include "headlines.hpp"
#include "options.hpp"
#include "tables.hpp"
#include "verdict.hpp"

#include <string>
#include <vector>

namespace apod::report {

/// Numbers the charts of the page in page order: chart-1, chart-2, ...
class ChartIds {
public:
  std::string next() { return "chart-" + std::to_string(++last_); }

private:
  int last_ = 0;
};

struct PageContext {
  const PageModel& page;
  const std::vector<HeadlineSeries>& headlines;
  const std::vector<const json*>& published; ///< published figures (data/reference)
  const json& catalog;                       ///< catalog_json()
  const RenderOptions& options;
  const BaselineVerdict& verdict; ///< the newest run against the pinned baseline
  ChartIds& charts;
};

/// A chart as data for the chart_figure partial: its element id, its caption, and its spec made
/// safe for a <script> block. charts.js draws it when the page loads.
mustache::data chart_block(const json& spec, const std::string& caption, ChartIds& ids);

/// A list of strings as mustache data (for {{#notes}}{{.}}{{/notes}}).
mustache::data text_list(const std::vector<std::string>& texts);

/// The published figures in `references`: an array of figures, a document of data/reference/
/// ({"source", "figures": [...]}), or an array of such documents.
std::vector<const json*> published_figures(const json& references);

} // namespace apod::report
