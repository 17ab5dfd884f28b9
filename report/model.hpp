// The report's view of an apod-results document: runs with their devices and limits, and each
// experiment's points grouped by metric, with failures kept apart from figures. Everything the
// page shows is derived here once, so the charts and the tables cannot disagree.
#pragma once

#include "core/catalog.hpp"
#include "core/point_key.hpp"
#include "core/run_record.hpp"
#include "core/vocabulary.hpp"

#include <nlohmann/json.hpp>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace apod::report {

using json = nlohmann::ordered_json;

/// Up to this many runs every chart draws each run as its own series and every table lists each
/// run's points; past it, points are summarised across the runs of each device model (median of
/// the run medians, their range), which keeps the page readable and small (docs/report.md).
inline constexpr std::size_t runs_drawn_apart = 8;

/// No chart draws more series (colours) than a reader can tell apart: the browser test fails a
/// page with a legend longer than this (data-series-limit on <body>).
inline constexpr std::size_t series_limit = 12;

struct RunView {
  const RunRecord* run = nullptr; ///< the run, read by run_from_json (core/run_record.hpp)
  std::size_t index = 0;          ///< position in the document
  std::string id;
  std::string name; ///< label; id prefix added when the label is empty or shared
  /// The name when short, else the id's first 8 characters: a chart's axis or legend names a run
  /// so, neither filling the chart with a long label nor cutting it (the name is in the tooltip).
  std::string chart_name() const { return name.size() <= 24 ? name : id.substr(0, 8); }
  std::string device_key;         ///< uuid, or name when no uuid was stored
  std::string device_model;       ///< the device's name: runs of one model are compared
  std::string started_at;         ///< as stored (ISO 8601 sorts in time order); may be empty
  std::optional<double> dram_gbs; ///< its device's theoretical_bandwidth_gbs() when known
  std::optional<double> pcie_gbs; ///< its device's theoretical_pcie_gbs() when known
  std::optional<double> peak_gbs; ///< the run's verified achievable_peak, if it measured one
  /// The run's verified achievable_peak_by_access per access type (keys::access_peak).
  std::map<std::string, double> access_peak_gbs;
  std::string host;   ///< environment.host, "" where not stored
  std::string commit; ///< environment.apod_commit, "" where not stored
  /// The machine the run ran on: host and GPU uuid (runs of one model on different machines are
  /// different series in the history).
  std::string machine_key;
  std::string machine_label; ///< "host · GPU-1a2b3c4d", or the uuid alone without a host
  /// started_at as seconds since 1970 (UTC), or nothing when it is not an ISO 8601 timestamp.
  std::optional<double> started_s;
  std::optional<double> median_power_w; ///< median power_w of the run's telemetry
};

struct PointView {
  const Measurement* measurement = nullptr;
  const RunView* run = nullptr;
  /// The point's identity (core/point_key.hpp): the same point in another run has the same key.
  /// Interned by the page model, so equal keys share one address and grouping compares pointers.
  const PointKey* key = nullptr;
  bool ok = false;     ///< point_status() is ok: only such points carry figures
  std::string failure; ///< point_status()'s reason when not ok
  double median = 0, min = 0, max = 0;
  SampleCounts samples;                  ///< used (the median's) and excluded: both are shown
  std::optional<double> ci_low, ci_high; ///< 95% confidence interval of the median, if stored
  bool noisy = false;              ///< sampling stopped before the confidence target was reached
  std::optional<double> limit_gbs; ///< the theoretical limit this point is compared with
  bool own_limit = false;          ///< limit_gbs is the point's extra.limit_gbs, not its device's
  /// The limit in the point's own unit: limit_gbs for GB/s figures, else extra.limit (peak
  /// FLOP/s, banks x 4 bytes per clock) where the experiment stored one.
  std::optional<double> limit_value;
  std::string_view limit_text; ///< the limit's words (limit_words, or extra.limit_label); interned
  std::optional<double> pct_of_limit; ///< median as a percentage of limit_value
  /// Median as a percentage of its own run's achievable peak (of its access type where the run
  /// measured one for it): DRAM GB/s figures of runs that measured one.
  std::optional<double> pct_of_peak;
  std::string peak_access_type; ///< the access type whose peak pct_of_peak is of; "" for the best
  /// extra[keys::limit]: the theoretical limit of a figure not in GB/s, in its own unit (peak
  /// FLOP/s, bytes per clock per SM); limit_value then holds it too.
  std::optional<double> unit_limit;
};

/// One point (device model and parameters) across the runs that measured it (group_across_runs).
struct PointAcrossRuns {
  std::string device_model;
  const json* params = nullptr;         ///< of the first run's point
  std::vector<const PointView*> points; ///< the verified points, one per run, in stored order
  double median = 0, min = 0, max = 0;  ///< of the run medians
  std::optional<double> pct_of_limit;   ///< median of the runs' % of theoretical
  std::optional<double> pct_of_peak;    ///< median of the runs' % of achievable peak
  std::size_t runs_with_peak = 0;
};

struct MetricView {
  std::string metric;
  std::string unit;
  bool higher_is_better = true;
  /// What the experiment declares of it (its title, class and limit); for a metric no
  /// declaration names, one made from the stored points (derived, no limit).
  const Metric* declared = nullptr;
  std::vector<PointView> points; ///< in stored order, failed ones included
  /// The verified points grouped by device model and parameters (points_across_runs).
  std::vector<PointAcrossRuns> across;

  /// The best ok point by the metric's direction, or nullptr when none is ok.
  const PointView* best() const;
  int ok_count() const;
  /// The limit its GB/s figures are read against (the declaration's).
  LimitKind limit() const { return declared ? declared->limit : LimitKind::none; }
  /// "effective bandwidth": the declared title, else the name as prose.
  std::string title() const;
};

struct ExperimentFailure {
  const RunView* run = nullptr;
  std::string error;
};

struct ExperimentView {
  std::string name;
  std::string anchor; ///< HTML id of its section
  std::string title, description, citation;
  bool in_catalog = false;
  int order = 0;
  Chapter chapter = Chapter::device_memory;
  std::optional<long long> catalog_version;
  std::vector<long long> measured_versions; ///< versions the runs recorded, distinct
  /// Its declaration from the catalog; for an experiment the catalog lacks, one made from the
  /// stored points (every param and metric as stored, one generic chart per metric). Never null
  /// once the page is built.
  const Declaration* declaration = nullptr;
  std::vector<std::string> param_keys; ///< every parameter name seen, in first-seen order
  std::vector<MetricView> metrics;     ///< in first-seen order
  std::vector<ExperimentFailure> failures;

  /// The metric the summary reports: the declared headline.
  const MetricView* headline() const;
  /// The summary's figures: the headline metric.
  std::vector<const MetricView*> headline_metrics() const;
  /// Whether `metric`'s figures are also read against the run's achievable peak: device-memory
  /// bandwidth, i.e. GB/s read against the theoretical DRAM bandwidth.
  bool compares_with_peak(const MetricView& metric) const {
    return metric.limit() == LimitKind::dram && metric.unit == "GB/s";
  }
  /// The declared param `key`, or nullptr.
  const Param* param(const std::string& key) const;
  /// A param's value as the page writes it: its declared label, a size for a "bytes" param,
  /// the value with its declared unit ("16 Ki floats"), else the value.
  std::string param_text(const std::string& key, const json& value) const;
  /// A param's axis and column words: its declared title, else the key as prose.
  std::string param_title(const std::string& key) const;
};

/// Its views point into the runs it was built from: its own `records` (from a document) or the
/// caller's (which must then outlive it). A move keeps them valid.
struct PageModel {
  std::vector<RunRecord> records; ///< the runs read from a document; empty when not owned
  std::vector<RunView> runs;
  std::vector<ExperimentView> experiments; ///< by catalog order, then name; unknown ones last

  PageModel() = default;
  PageModel(PageModel&&) = default;
  PageModel& operator=(PageModel&&) = default;
  PageModel(const PageModel&) = delete; // the views hold pointers into `runs`
  PageModel& operator=(const PageModel&) = delete;

  std::vector<std::string> device_models; ///< distinct device names, in order of first run
  /// The catalog the page was built with, and the declarations made for experiments it lacks
  /// (a deque: ExperimentView::declaration points into both).
  std::vector<Declaration> catalog;
  std::deque<Declaration> undeclared;
  /// The strings points share (limit words) and their keys, stored once: a history of 1000 runs
  /// has hundreds of thousands of points but a few thousand distinct ones.
  std::unordered_set<std::string> interned;
  std::unordered_set<PointKey, PointKeyHash> point_keys;

  bool several_runs() const { return runs.size() > 1; }
  /// Past runs_drawn_apart runs, charts and tables summarise each point across runs.
  bool summarise_runs() const { return runs.size() > runs_drawn_apart; }
  /// The runs of one device model, oldest first (by started_at, then document order).
  std::vector<const RunView*> runs_of_model(const std::string& model) const;
  /// Whether any run, or every run, measured an achievable peak.
  bool any_peak() const;
  /// The names of the runs that did not measure an achievable peak.
  std::vector<std::string> runs_without_peak() const;
};

/// The verified points of `metric` grouped by device model and parameters, in first-seen order:
/// computed once when the page model is built (group_across_runs), read by every section.
inline const std::vector<PointAcrossRuns>& points_across_runs(const MetricView& metric) {
  return metric.across;
}

/// Groups `metric`'s verified points by device model and parameters and summarises each group
/// (summarise_across_runs, aggregate.hpp).
std::vector<PointAcrossRuns> group_across_runs(const MetricView& metric);

/// Groups runs by experiment and metric, with `catalog` (the catalog's wire form, as
/// `apod list --json` prints it: catalog_json(); read by catalog_from_json) supplying titles,
/// declared params, metrics and charts. The model points into `runs`, which must outlive it.
PageModel build_page_model(const std::vector<RunRecord>& runs, const json& catalog);
/// A temporary would leave the model's views dangling.
PageModel build_page_model(std::vector<RunRecord>&& runs, const json& catalog) = delete;
/// The same from an apod-results document, read by runs_from_document (core/results_json.hpp):
/// a document that import would refuse is refused here too (apod::InputError).
PageModel build_page_model(const json& results, const json& catalog);

/// A published figure in GB/s (data/reference) as a percentage of its own device's limit of
/// `kind`, which the figure states (theoretical_bandwidth_gbs, theoretical_pcie_gbs); nothing
/// for other units, kinds or figures that state no such limit.
std::optional<double> published_pct_of_limit(const json& figure, LimitKind kind);

/// The limit kind of `experiment`'s metric `metric` as declared (none when undeclared).
LimitKind declared_limit(const ExperimentView& experiment, const std::string& metric);

/// A point's interval as the page writes it ("3012 – 3020 GB/s", "—" without one); what kind
/// of interval it is comes from ci_label(point.samples.used) (core/vocabulary.hpp).
std::string ci_text(const PointView& point, const std::string& unit);

} // namespace apod::report
