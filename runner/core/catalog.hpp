// An experiment's declaration: the one contract between an experiment and everything that reads
// its results. Each experiment declares, once, in its own folder
// (experiments/NAME/declaration.cpp): its parameters, its metrics (unit, direction, class, limit),
// the extra keys it records, the figures it is headlined by, and its charts as data (a shape the
// report offers, with the keys it draws). The runner checks every record against it, the store
// keeps each point's class, compare gates by that class and the report draws the declared charts;
// none of them spells an experiment's name or metric. `apod list --json` prints the whole catalog
// (docs/results-format.md, "The catalog"), and the report reads it in that form.
//
// Modelled on nvbench: a benchmark declares its axes and its summaries carry a hint; the writers
// format by hint and never name a benchmark.
#pragma once

#include "core/device.hpp"
#include "core/measurement.hpp"
#include "core/metric_class.hpp"
#include "core/vocabulary.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod {

/// The report's chapters: the first screen groups experiments by them, in this order.
enum class Chapter {
  device_memory,      ///< DRAM bandwidth and its access patterns
  caches_on_chip,     ///< latency, caches, shared memory
  compute,            ///< arithmetic, instructions, tensor cores
  host_link,          ///< transfers between host and device
  gpu_link,           ///< transfers between GPUs
  concurrency_launch, ///< launches, streams, overlap, occupancy
  scaling,            ///< Amdahl, Gustafson, SM partitions
};

inline constexpr Chapter chapters[] = {
    Chapter::device_memory, Chapter::caches_on_chip,     Chapter::compute, Chapter::host_link,
    Chapter::gpu_link,      Chapter::concurrency_launch, Chapter::scaling};

const char* chapter_name(Chapter c);  ///< "device_memory", ...
const char* chapter_title(Chapter c); ///< "Device memory", "Caches and on-chip memory", ...
std::optional<Chapter> find_chapter(const std::string& name);

/// A parameter axis: the key of Measurement::params, and how a reader sees it.
struct Param {
  std::string key;   ///< as stored: "offset"
  std::string title; ///< axis and column words: "offset (words)"
  /// Its values' unit: "bytes" writes them as sizes ("64 MiB"); "" for counts and words.
  std::string unit;
  /// Words for some values (heatmap rows, legends): {"wave", "one resident wave"}.
  std::vector<std::pair<std::string, std::string>> labels;

  /// The words for a stored value: its label, else the value as text.
  std::string label_of(const json& value) const;
};

/// A point of a metric that takes another class than its metric's: the points whose param (or,
/// when no param has the key, extra) `key` equals `equals`, or is a number below `below`.
struct ClassCase {
  std::string key;
  json equals = nullptr;       ///< a value to match exactly; null: not used
  std::optional<double> below; ///< a number under this matches; nothing: not used
  MetricClass then = MetricClass::derived;
  std::string why; ///< one sentence, for the catalog and the docs

  bool matches(const json& params, const json& extra) const;
};

/// A metric's name, unit and the direction in which it improves, its class and the limit its
/// figures are read against.
struct Metric {
  std::string name; ///< e.g. "effective_bandwidth"
  std::string unit; ///< e.g. "GB/s"; "1" for a dimensionless figure
  Direction direction = Direction::higher;
  MetricClass metric_class = MetricClass::derived;
  /// The limit of its figures in GB/s (none for figures in other units; a point may carry its
  /// own, extra[keys::limit_gbs] or extra[keys::limit]).
  LimitKind limit = LimitKind::none;
  std::string title;            ///< "" : the name as prose
  std::vector<ClassCase> cases; ///< points that take another class, first match wins
  /// 0 is a measured value of it (the error of an exactly rounded result), not a failed or
  /// vanished timing: the gpu suite then accepts samples of 0 (it refuses them for every other
  /// metric), and compare leaves a point of median 0 out ("no positive median"), as it does any.
  bool zero_is_a_value = false;

  /// The class of a point of this metric with these params and extra.
  MetricClass class_of(const json& params, const json& extra) const;
  /// The same metric read against `kind`.
  Metric against(LimitKind kind) const;
  /// The same metric with a class case added.
  Metric with_case(ClassCase c) const;
  /// The same metric of another class.
  Metric of_class(MetricClass c) const;
};

/// A key an experiment writes into Measurement::extra, with what it means.
struct Extra {
  std::string key;
  std::string meaning;
};

/// One figure of the matrix, named by its experiment, metric and the params it must have:
/// what a chart or a model of another experiment reads (the run's DRAM latency).
struct FigureRef {
  std::string experiment;
  std::string metric;
  json params = json::object();
};

/// The shapes the report draws (report/charts/): a declaration picks one and names its keys.
enum class ChartShape {
  sweep,   ///< a metric against one parameter, a series per colour value (line, point or bar)
  heatmap, ///< a metric over two parameters in cells, panels per a third, coloured by % of peak
  bars,    ///< grouped bars: a bar per series value at each x, panels per panel parameters
};
const char* shape_name(ChartShape s);

/// A line a chart adds from the figures of the same run (one per series and panel).
struct RuleSpec {
  enum class From {
    fixed,     ///< at `value`
    metric,    ///< at the median of `metric`'s points (where params `only` match)
    extra,     ///< at extra[`extra`] of `metric`'s points
    published, ///< at the source documents' figures of `metric`
  };
  From from = From::fixed;
  bool vertical = false;
  std::string metric;
  std::string extra;
  std::pair<std::string, json> only; ///< {param, value}; "" : every point
  double value = 0;                  ///< From::fixed
  double scale = 1;                  ///< multiplies the figure (KB stored, bytes on the axis)
  std::string label;                 ///< "balance": drawn "balance fp32: 3.2 FLOP/B"
  std::string unit;                  ///< the figure's unit in the label ("" : the metric's)
  bool per_series = false;           ///< drawn in each series' colour, labelled with its value
  bool per_model = false;            ///< one per device model (median of its runs), not per run
  std::string kind = "marker";       ///< marker | baseline | published
};

/// Labelled points a chart adds: `metric`'s points where param `param` is not `except`, at x =
/// their `x` param, or at `x_value` / extra[`x_extra`]; labelled with `label` or the param value.
struct NoteSpec {
  std::string metric;
  std::pair<std::string, json> only;   ///< points whose param equals this ("" : all)
  std::pair<std::string, json> except; ///< points whose param does not equal this
  std::string x_param;                 ///< their x: this param's value
  std::string x_extra;                 ///< else this extra's value
  json x_value = nullptr;              ///< else this value
  std::string label;                   ///< fixed words, or "" : the `label_param` value in capitals
  std::string label_param;
  std::string tip; ///< the tooltip's words before the figure
};

/// An experiment's chart, as data: the report interprets the shape with these keys.
struct Chart {
  ChartShape shape = ChartShape::sweep;
  std::string metric;
  std::string caption;                ///< what is drawn, first sentence of the caption
  std::vector<std::string> sentences; ///< what explains it (models, marks), after the runs sentence
  // Axes and series.
  std::string x; ///< a declared param
  bool log_x = false;
  int log_base = 0; ///< 0: 2 for sizes in bytes, else 10
  bool log_y = false;
  std::string y_title;               ///< "" : the metric's title and unit
  std::string color;                 ///< a declared param splitting the series; "" : one series
  std::string mark = "line";         ///< line | point | bar
  std::pair<std::string, json> only; ///< draw only points whose param equals this
  // What it is read against.
  bool limits = true;       ///< the devices' (or the points' own) limits as rules
  std::string model_extra;  ///< the model, a number in each point's extra
  std::string model_metric; ///< or the point of the same params in this metric
  std::string model_label;
  /// The model's stated accuracy, relative: |measured / model - 1| at most this on every point of
  /// the committed runs of both GPU models (tests/unit/test_declared_models.cpp holds it); 0: the
  /// model claims no bound and its residual is drawn for reading only.
  double model_bound = 0;
  std::string ideal_extra; ///< a bound along x from each point's extra (S = N), drawn as a limit
  std::string ideal_label;
  std::optional<FigureRef> littles_law_latency; ///< draw each launch's Little's-law bound
  std::vector<std::string> published_metrics;   ///< more metrics whose published figures it draws
  std::vector<RuleSpec> rules;
  std::vector<NoteSpec> notes;
  /// Points whose extra[`marker_extra`] exceeds `marker_above` get another marker shape.
  std::string marker_extra;
  double marker_above = 0;
  std::string marker_title, marker_above_label, marker_else_label;
  /// Metrics stated in the caption per device model ("tT (copy alone) 12.3 ms"), their words.
  std::vector<std::pair<std::string, std::string>> caption_figures;
  std::string figures_lead; ///< the words before them: "Fitted parallel fractions (3.1.3)"
  // heatmap: rows from `y` (a param) with extra[`y_extra`] before it, panels per `panel`.
  std::string y;
  std::string y_extra, y_extra_unit;
  std::vector<std::string> panels; ///< params whose values make the panels (bars, heatmap)

  // Builders: Chart::sweep(flop_rate).x(intensity, true).color(precision)...
  static Chart sweep_of(const Metric& metric);
  static Chart heatmap_of(const Metric& metric);
  static Chart bars_of(const Metric& metric);
  Chart& along(const Param& param, bool log = false, int base = 0);
  Chart& colour(const Param& param);
  Chart& only_where(const Param& param, json value);
  Chart& model(const std::string& extra_key, std::string label);
  Chart& model(const Metric& metric, std::string label);
  /// The model's bound: .model("model_gbs", "sector model").within(0.10).
  Chart& within(double bound);
  Chart& says(std::string what, std::vector<std::string> more = {});
};

/// The values of one point an experiment will measure (`apod list --json`, the fixtures).
struct PlannedPoint {
  json params = json::object();
  std::vector<std::string> metrics;
  /// Empty: the point is measured on every run. Otherwise the condition, in words, under which
  /// the run adds it (a batched point for a transfer too short to time alone; a latency chase
  /// of an experiment's own when the experiment it reads did not run first): the gpu suite
  /// accepts a recorded point that matches it, and a run where the condition does not hold
  /// lacks it.
  std::string when;
};

/// What the plan of points may depend on: the device (nominal_device() when none is visible)
/// and whether the run is --quick or --full.
struct PlanInput {
  DeviceInfo device = nominal_device();
  bool quick = false;
  bool full = false; ///< RunOptions::full: the long sweeps' points too
};

/// An experiment's whole declaration.
struct Declaration {
  std::string name; ///< identifier used by --only and in the store
  std::string title;
  std::string description; ///< what it measures and why, with its source
  std::string citation;    ///< document and section it reproduces
  int version = 1;         ///< bump when results stop being comparable with older ones
  int order = 100;         ///< position in the matrix (lower runs first)
  Chapter chapter = Chapter::device_memory;
  bool hidden = false; ///< test-only: not listed, not in the default matrix, runs only via --only
  std::vector<Param> params;
  std::vector<Metric> metrics;
  std::vector<Extra> extras;
  /// The metric that stands for the experiment in summaries (the first metric when empty).
  std::string headline;
  std::vector<Chart> charts;
  /// The points a run measures (params and metrics); null: not enumerable before the run.
  std::vector<PlannedPoint> (*plan)(const PlanInput&) = nullptr;

  const Metric* find_metric(const std::string& metric) const;
  const Param* find_param(const std::string& key) const;
  const Metric& headline_metric() const;
};

/// The point that stands for an experiment among one run's points: of its declared headline
/// metric, the verified point it marked keys::headline, else the verified one with the best
/// median by the metric's direction. nullptr when none is verified. The run summary and the
/// report's headlines both ask this.
const Measurement* headline_point(const Declaration& declaration,
                                  const std::vector<const Measurement*>& points);

/// Registers a declaration at static-initialisation time (APOD_DECLARE); throws on a name
/// registered twice.
bool declare_experiment(Declaration declaration);

/// Every declaration linked into this binary, in matrix order (hidden ones included).
const std::vector<Declaration>& declarations();
/// The declaration called `name`, or nullptr.
const Declaration* find_declaration(const std::string& name);

/// The class of a stored point by its experiment's declaration: for points stored without one
/// (documents and databases of apods before the catalog). An undeclared experiment or metric
/// is derived: nothing gates on a figure no declaration vouches for.
MetricClass declared_class(const std::string& experiment, const std::string& metric,
                           const json& params, const json& extra);

/// The class of a point of `declaration` (its metric's class_of); derived for an undeclared metric.
MetricClass declared_class(const Declaration& declaration, const Measurement& m);

/// The keys every experiment may write into extra without declaring them (core's: bytes moved,
/// the SM clocks, the sampling window, output checks, launch facts, limits, model, headline).
const std::vector<Extra>& common_extras();

/// Why a record does not match its declaration (an undeclared metric or param, another unit or
/// direction, an undeclared extra key, a class the metric does not declare), or "" when it does.
std::string declaration_mismatch(const Declaration& declaration, const Measurement& m);

/// Every problem of a declaration itself (a chart naming an undeclared metric or param, a
/// metric declared twice, a headline that is no metric), one sentence each; empty when sound.
std::vector<std::string> declaration_problems(const Declaration& declaration);

/// The catalog's wire form (`apod list --json`): one object per declaration, in matrix order.
json to_json(const Declaration& declaration, const PlanInput* plan_input = nullptr);
json catalog_json(const PlanInput* plan_input = nullptr);
/// Reads one declaration back (the report reads the catalog so); throws InputError naming
/// `where` and the field.
Declaration declaration_from_json(const json& j, const std::string& where);
/// Reads a whole catalog: `apod list --json`'s document, an array of declarations, or an
/// object keyed by name.
std::vector<Declaration> catalog_from_json(const json& j);

} // namespace apod

/// Registers an experiment's declaration: APOD_DECLARE(Declaration{...});
#define APOD_DECLARE_CONCAT_INNER(a, b) a##b
#define APOD_DECLARE_CONCAT(a, b) APOD_DECLARE_CONCAT_INNER(a, b)
#define APOD_DECLARE(...)                                                                          \
  [[maybe_unused]] static const bool APOD_DECLARE_CONCAT(apod_declared_, __LINE__) =               \
      ::apod::declare_experiment(__VA_ARGS__)
