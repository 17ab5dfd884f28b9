// Inside the report's charts (report/charts/): how the points of one chart are chosen, split into
// series a reader can tell apart, and drawn with what explains them (limits in words, the model,
// the source documents' figures, rules a design adds). Every chart shape builds on this.
#pragma once

#include "charts.hpp"
#include "model.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace apod::report::charts {

/// Which ok points of a metric a chart draws (null: all of them).
using Keep = std::function<bool(const PointView&)>;

/// How the page's runs appear in one chart (issue 14: no chart with more series than a reader
/// can tell apart).
struct SeriesPlan {
  bool runs_apart = false;     ///< several runs, each its own series (few enough series)
  bool aggregated = false;     ///< one row per device model and point: median of the run medians
  bool models_apart = false;   ///< aggregated with several models: the model is in the series
  bool facet_by_model = false; ///< aggregated, one panel per device model (still too many series)
  std::string colour;          ///< the parameter that splits series; "" none
  std::string legend_title;
};

/// One drawn point: one run's point, or one device model's point across its runs.
struct Plotted {
  const RunView* run = nullptr; ///< the run; nullptr when summarised across runs
  std::string device_model;
  const json* params = nullptr;         ///< the (first run's) point's parameters
  std::vector<const PointView*> points; ///< the run's point, or one per run
  double y = 0, low = 0, high = 0;      ///< median; whiskers (samples' or run medians' range)
  std::string series;                   ///< colour key ("" when the chart has one series)
  std::string facet;                    ///< panel ("" without panels)
};

/// A line a design adds: horizontal at y = value, or vertical at x = value.
struct Rule {
  double value = 0;
  std::string label; ///< drawn beside it and in its tooltip
  bool vertical = false;
  std::string series;        ///< "": drawn in the rule colour; else in that series' colour
  std::string facet;         ///< the panel; "" for every panel
  std::string kind = "rule"; ///< limit | bound | baseline | published | marker
};

/// A labelled point a design adds (memory_latency's L1, L2 and DRAM levels).
struct Note {
  json x;
  double y = 0;
  std::string label; ///< a word or two beside the point
  std::string series, facet;
  std::string tip; ///< its tooltip: the figure with its unit
};

/// The ok points of `metric` that `keep` accepts, in stored order.
std::vector<const PointView*> kept_points(const MetricView& metric, const Keep& keep);

/// Runs apart while runs x colour values fit the series limit (and the page does not summarise
/// runs); else summarised per device model: a line per model where the model is the only split,
/// else one panel per model.
SeriesPlan plan_series(const PageModel& page, const std::vector<const PointView*>& points,
                       const std::string& colour, const std::string& colour_title);

/// The plotted points under `plan`, in first-seen order.
std::vector<Plotted> plot_points(const std::vector<const PointView*>& points,
                                 const SeriesPlan& plan);

/// The ok points of `metric` that `keep` accepts, plotted under another chart's plan, so a rule
/// or note made from them follows that chart's series and panels.
std::vector<Plotted> plotted_as(const MetricView& metric, const Keep& keep, const SeriesPlan& plan);

/// Several runs always summarised per device model (charts that cannot draw runs apart: a
/// heatmap, grouped bars; caption figures), with several models in panels or as the series.
SeriesPlan summarised_plan(const std::vector<const PointView*>& points, const std::string& colour,
                           bool panels);

/// `value` added to `list` unless it is there already (first-seen order).
void add_unique(std::vector<std::string>& list, const std::string& value);

/// The series and panel a run's figure belongs to under `plan` (for rules that follow a series).
std::string series_of(const SeriesPlan& plan, const RunView& run, const json& params);
std::string facet_of(const SeriesPlan& plan, const RunView& run);

/// A number as a label: whole numbers without decimals ("16", "512"), others as format_number.
std::string plain_number(double value);

/// A published figure as a label: "512 threads", "800 cycles", "1.50" (no unit for "1").
std::string number_with_unit(double value, const std::string& unit);

/// Whose figure a plotted point is, where the chart tells runs or devices apart: the run's
/// name (runs apart), the device model (several models summarised), else "".
std::string who_of(const SeriesPlan& plan, const Plotted& plotted);

/// The median over the plotted points of the number at `extra[key]`, or nothing.
std::optional<double> extra_median(const Plotted& plotted, const std::string& key);

/// The parameter's value as a chart value: the number, or its text.
json axis_value(const json& params, const std::string& key);

/// The words a point's limit goes by: its extra.limit_label, else the experiment's limit phrase.
std::string limit_words_of(const ExperimentView& experiment, const PointView& point);

/// Tooltip texts of a plotted point (run or device, point, median, interval, n, % of limit and
/// of the achievable peak), as row fields, and the matching tooltip encoding.
void add_tooltip_fields(json& row, const Plotted& plotted, const ExperimentView& experiment,
                        const MetricView& metric);
json measured_tooltip(const ExperimentView& experiment, const MetricView& metric,
                      const SeriesPlan& plan, const std::vector<Plotted>& plotted, bool with_model);

/// The source documents' figures of this experiment and metric.
std::vector<const json*> published_for(const std::vector<const json*>& figures,
                                       const ExperimentView& experiment, const std::string& metric);

/// A chart's colour encoding with its domain in series order and a legend that is never cut.
json colour_encoding(const std::vector<std::string>& series, const std::string& title);

/// The distinct series of `plotted`, in first-seen order ("" left out).
std::vector<std::string> series_order(const std::vector<Plotted>& plotted);

/// What a chart draws against one parameter: the measured median, whiskers or a band, the
/// model, limits in words, the published figures and the rules of its design.
struct Sweep {
  const MetricView* metric = nullptr;
  Keep keep;
  std::string x, x_title;
  bool x_in_bytes = false; ///< the x param is a size in bytes (its declared unit)
  bool log_x = false;
  int log_base = 0; ///< 0: 2 for sizes in bytes, else 10
  bool log_y = false;
  std::string colour, colour_title;
  std::string mark = "line"; ///< line | point | bar
  std::string y_title;       ///< "" : the metric's title with its unit
  /// The model beside the measurement: a number in each point's extra, or the point of the same
  /// parameters in another metric (stride_copy's sector model, staged_copy's model_ms).
  std::string model_key;
  const MetricView* model_metric = nullptr;
  std::string model_label;
  bool device_limits = true; ///< rules at the devices' theoretical limits
  /// A bound that varies along x, drawn as a limit line (scaling's ideal S = N).
  std::function<std::optional<double>(const Plotted&)> ideal;
  std::string ideal_label;
  std::vector<Rule> rules;                               ///< what the design adds
  std::vector<const json*> published;                    ///< the source documents' figures to draw
  std::vector<Note> notes;                               ///< labelled points the design adds
  std::function<std::string(const PointView&)> shape_of; ///< a marker shape's legend word
  std::string shape_title;
  int height = 300;
  /// The caption's sentences after the runs sentence: the declaration's, its bounds', its
  /// figures'.
  std::vector<std::string> sentences;
};

/// The points a sweep draws: its keep, and only points that have its x parameter.
Keep sweep_keep(const Sweep& sweep);

/// A plotted point's x: its x parameter, or, for an experiment without one, its run (or device
/// model when summarised).
json x_of(const Sweep& sweep, const Plotted& plotted);

/// The Vega-Lite spec of a sweep.
json sweep_spec(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep);

/// The plan a sweep's points get (for captions and rules that follow its series).
SeriesPlan sweep_plan(const PageModel& page, const Sweep& sweep);

/// "…; runs summarised per device model …" etc.: how the runs are drawn, for a caption.
std::string runs_sentence(const PageModel& page, const SeriesPlan& plan);

} // namespace apod::report::charts
