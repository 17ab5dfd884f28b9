// What a reader sees on hovering a point: the run (or device), the point, its figures with
// units, and what they are read against, in words; and the published figures a chart draws.
#pragma once

#include "charts/plot.hpp"

#include <string>
#include <vector>

namespace apod::report::charts {

/// The words a point's limit goes by: its extra.limit_label, else the experiment's limit phrase.
std::string limit_words_of(const ExperimentView& experiment, const PointView& point);

/// A point's parameters in the page's words: each declared title with its value as the page
/// writes it ("offset (words) 4, word size 4 B"), not the stored keys (issue 25).
std::string params_in_words(const ExperimentView& experiment, const json& params);

/// Tooltip texts of a plotted point (run or device, point, median, interval, n, % of limit and
/// of the achievable peak), as row fields, and the matching tooltip encoding.
void add_tooltip_fields(json& row, const Plotted& plotted, const ExperimentView& experiment,
                        const MetricView& metric);
json measured_tooltip(const ExperimentView& experiment, const MetricView& metric,
                      const SeriesPlan& plan, const std::vector<Plotted>& plotted, bool with_model);

/// The source documents' figures of this experiment and metric.
std::vector<const json*> published_for(const std::vector<const json*>& figures,
                                       const ExperimentView& experiment, const std::string& metric);

} // namespace apod::report::charts
