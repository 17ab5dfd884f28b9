// How the timeline is drawn (issue 25). Nothing of it is drawn in C++: the page carries one
// compact JSON block for the whole history section (the runs of each model in start order, and
// per figure row its values) and templates/page.js draws from it
// - a row's sparkline, a small SVG, when the row scrolls into view or its folded group opens
//   (an inline SVG per row was 5 MB of a 51-run page: 2,571 rows of polylines nobody looked at);
// - a row's full chart, with Vega-Lite from the one base spec below, when the row is opened.
// Both put the runs in run order (x = the run's ordinal among its model's runs, 1..N, RunOrder),
// break their lines at a gap (Gap) and mark it with its length.
//
// A row's values are relative to the figure's reference: the baseline's value where the verdict
// judged the figure (verdict.hpp: the pinned run, or the previous run of the machine), else the
// median of the model's runs. They travel as integers in units of 1e-4 (a basis point) of the
// natural log of value / reference, so a steady figure's row is a list of small numbers: `4685.8,
// 4686.1` becomes "0,1". That resolves 0.005 % (the tooltips show 4 digits), and the sparkline's
// fixed scale (spark_domain_rel) is on the same numbers.
#pragma once

#include "timeline.hpp"

#include <string>

namespace apod::report {

/// Past this many runs of its model, a figure other than a headline one is drawn as this many
/// buckets of consecutive runs (the median of each bucket's run medians, their range as the band,
/// at the bucket's middle run): a year of nightly runs of ~470 figures stays in the page budget.
/// Headline figures are drawn run by run.
inline constexpr std::size_t bucketed_past_runs = 64;
inline constexpr std::size_t buckets_per_figure = 32;
/// Every sparkline spans ±5 % of its reference, the same for every row, so that a 0.09 % wobble
/// is flat and an 8 % fall hits the edge (points beyond it are drawn on the edge as a triangle
/// pointing out). A figure noisier than that shows it: its grey noise band fills the row.
inline constexpr double spark_domain_rel = 0.05;
/// The sparkline's noise band, light enough for the lines to read over it.
inline constexpr const char* noise_colour = "#e6e4e1";
/// The noise band is ± this many standard deviations of the run-to-run change (noise_sd).
inline constexpr double noise_band_sd = 2;
/// At most this many date labels on a chart's run axis: the first run of a date, spread out.
inline constexpr std::size_t max_date_labels = 6;
/// Values and intervals in the page: round(1e4 * ln(value / reference)).
inline constexpr double value_unit = 1e-4;

/// The figure's reference: compare's baseline median where the verdict paired the figure, else
/// the median of the medians of the model's runs.
double figure_reference(const FigureHistory& figure);

/// The figure's run-to-run noise as the standard deviation of ln(run / run before): compare's own
/// for the pair where the verdict paired the figure (PointVerdict::noise), else 1.4826 times the
/// median absolute change between consecutive runs of one machine (robust to a step, which is one
/// change), from 3 such changes up; nothing below that.
std::optional<double> noise_sd(const FigureHistory& figure);

/// The spec every full chart shares: x the run's ordinal (page.js sets its domain and date labels
/// per model), y the median per run, a line per machine broken at gaps (field "line"), the noise
/// band around the reference, the 95 % CI band (headline figures) or the buckets' range, gap
/// rules with their length, change points, the baseline and the verdict's dot. page.js fills its
/// datasets from the history block: "points" {o, m, lo, hi, rel, line, t, run, label, commit,
/// machine, colour}, "noise" {o, lo, hi} (the axis' two ends), "band" (the points with lo and
/// hi), "gaps" {o, text, y_px}, "steps" {o, text}, "baseline" {o, text}, "verdict" {o, m, text,
/// colour_of_verdict}.
json timeline_base_spec();

/// The per-model part of the history block: {model, runs: [[t ms or null, run, label, commit,
/// machine index]], machines: [[label, colour]], gaps: [[after, text]], ticks: [[ordinal, date]],
/// baseline: ordinal or 0, baseline_text, candidate: ordinal or 0}.
json model_order(const Timeline& timeline, const std::string& model,
                 const BaselineVerdict& verdict);

/// A figure row's part of the history block: {y (axis title; the section replaces it by its index
/// in the block's "titles"), ref, sc (only for a figure with a value <= 0, coded linearly: value
/// = ref + v * 1e-4 * sc), a (first ordinal; absent: 1), v (the values, a comma-separated string
/// over ordinals a.., "" for a run without a point, "_k" for k), l and h (the CI's distance below
/// and above each value, same form; headline figures and buckets only), n (noise band half
/// width, same unit; absent without a noise estimate), b (1: bucketed), s ([ordinal, text] per
/// change point)}. The verdict is not repeated: page.js reads the row's verdict word (and its
/// class, for the dot's colour) from the row's own HTML.
json figure_chart(const FigureHistory& figure, const Timeline& timeline);

/// Whether figure_chart draws the figure run by run (headline figures, and every figure of a
/// history up to bucketed_past_runs points), else in buckets.
bool drawn_in_full(const FigureHistory& figure);

} // namespace apod::report
