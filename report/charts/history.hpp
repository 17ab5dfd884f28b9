// How the timeline is drawn: a sparkline per figure (inline SVG, built here, drawn with the page)
// and a full chart per figure drawn on demand (templates/page.js, when its row is opened) from a
// Vega-Lite spec shared by the page plus the figure's own data. Sharing the spec keeps a history
// of 1000 runs and hundreds of figures under the page's size budget (docs/performance.md).
#pragma once

#include "timeline.hpp"

#include <string>

namespace apod::report {

/// Past this many runs of a machine, a figure's non-headline series is drawn as this many
/// buckets (median of the runs' medians per bucket); headline figures are drawn run by run.
inline constexpr std::size_t bucketed_past_runs = 64;
inline constexpr std::size_t buckets_per_machine = 32;
/// A sparkline has at most this many points per machine.
inline constexpr std::size_t sparkline_points = 40;

/// The spec the on-demand charts share: dates on x, the median per machine (colour from the
/// runs dataset), the 95% CI band when `band`, the model's median over its machines per day
/// when `model_line`, change points, the pinned baseline and the compare verdict. page.js adds
/// the page's dataset "runs" (r: the run's index in the page, t: its start in ms since 1970, run,
/// label, commit, machine, colour) and the figure's datasets "points", "steps", "baseline",
/// "verdict".
json timeline_base_spec(bool band, bool model_line);

/// The name of the base spec a figure uses ("band-model", "line", ...).
std::string base_name(bool band, bool model_line);

/// A figure's own part of its chart: {"base", "y_title", "datasets": {points: [{r, m, lo, hi}]
/// (columns, flattened by the spec), steps: [{r, text}], baseline: [{r, text}], verdict:
/// [{r, m, text, good}]}}.
json figure_chart(const FigureHistory& figure, const BaselineVerdict& verdict);

/// Whether figure_chart draws the figure run by run with its CI band (headline figures, and
/// every figure of a short history), else bucketed without a band.
bool drawn_in_full(const FigureHistory& figure);

/// The figure's sparkline: an inline SVG (numbers and palette colours only, so it is safe to
/// inline), one polyline per machine on the model's time axis, red ticks at change points, a
/// grey line at the pinned baseline, and a dot at the compared run (red: regression).
std::string sparkline_svg(const FigureHistory& figure, const Timeline& timeline,
                          const BaselineVerdict& verdict);

} // namespace apod::report
