// Inside the report's charts (report/charts/): the types every chart shape builds on (types only,
// no .cpp). The functions on them choose the points of one chart and split them into series a
// reader can tell apart (series.hpp), and draw them with what explains them: limits in words, the
// model, the source documents' figures, rules a design adds (tooltips.hpp, sweep_rows.hpp,
// sweep.hpp).
#pragma once

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
  double model_bound = 0;    ///< the model's stated relative bound (0: none stated)
  bool device_limits = true; ///< rules at the devices' theoretical limits
  /// A bound that varies along x, drawn as a limit line (scaling's ideal S = N).
  std::function<std::optional<double>(const Plotted&)> ideal;
  std::string ideal_label;
  std::vector<Rule> rules;                               ///< what the design adds
  std::vector<const json*> published;                    ///< the source documents' figures to draw
  std::vector<Note> notes;                               ///< labelled points the design adds
  std::function<std::string(const PointView&)> shape_of; ///< a marker shape's legend word
  std::string shape_title;
  /// Drawn as % of each device's own theoretical limit (limit_gbs), the published figures as %
  /// of the limit their source states for their device: shape beside shape (issue 25: a 2009
  /// GPU's 46-80 GB/s on a 0-3500 GB/s axis hides the drop it was published to show).
  bool as_pct_of_limit = false;
  LimitKind limit_kind = LimitKind::none; ///< which of a figure's stated limits applies
  int height = 300;
  /// The caption's sentences after the runs sentence: the declaration's, its bounds', its
  /// figures'.
  std::vector<std::string> sentences;
};

} // namespace apod::report::charts
