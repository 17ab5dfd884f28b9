// The parts of the page that come from experiments: the summary table and one section per
// experiment (chart specs, values, failures, published figures), as mustache data.
#pragma once

#include "model.hpp"
#include "tables.hpp"

namespace apod::report {

/// The published figures in `references`: an array of figures, a document of data/reference/
/// ({"source", "figures": [...]}), or an array of such documents.
std::vector<const json*> published_figures(const json& references);

/// A chart as data for the page's chart partial: its element id (chart-N, `next_chart` numbers
/// the charts across the page), its caption, and its spec made safe for a <script> block.
mustache::data chart_block(const json& spec, const std::string& caption, int& next_chart);

/// The section of one experiment, listing the `figures` published for it. `next_chart`
/// numbers the charts' element ids across the page.
mustache::data experiment_section(const PageModel& page, const ExperimentView& experiment,
                                  const std::vector<const json*>& figures, int& next_chart);

} // namespace apod::report
