// Matched points: the same experiment at the same version, parameters and metric measured on two
// or more device models, the only figures the report sets side by side across models (the first
// screen's "which is better for what", the buyer's comparison, its markdown). Each model's value
// is the median of its runs' medians, with their range; relative performance, per-$ and per-W
// follow from it (report/class_lines.hpp: per workload class, a geometric mean).
#pragma once

#include "aggregate.hpp"
#include "model.hpp"
#include "options.hpp"
#include "workload.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// One model's figure at a matched point.
struct ModelFigure {
  std::string model;
  PointAcrossRuns across;         ///< its runs' points at this point (median, range, % of limit)
  std::optional<double> per_kusd; ///< per $1000 of the model's price (throughput figures)
  std::optional<double> per_w;    ///< median over runs of the figure over its work's power
  std::string per_w_missing;      ///< without per_w: why ("power not measured during ...")
};

struct MatchedFigure {
  const ExperimentView* experiment = nullptr;
  const MetricView* metric = nullptr;
  json params; ///< the first model's point (each model's own: models[i].across.params)
  /// The family of its limit, which is also its scale: "DRAM", "PCIe" (limit_word), or the unit
  /// of a figure read against its own extra.limit ("GFLOP/s"); "" for figures with no limit.
  std::string family;
  bool headline = false; ///< the experiment's headline figure
  long long version = 0; ///< the experiment version every model's points here were measured by
  /// Versions some model also measured that are left out (the comparison never mixes versions).
  std::vector<long long> other_versions;
  Workload workload = Workload::other;
  std::string workload_label; ///< "memory-bound", "compute fp32", "latency at DRAM"
  /// Each model at its own best point of the headline sweep (a peak), not at one shared point.
  bool own_best = false;
  std::vector<ModelFigure> models; ///< in the page's model order, only those that measured it

  /// "Misaligned copy: effective bandwidth".
  std::string title() const;
  /// The model whose figure is best by the metric's direction.
  const ModelFigure& best() const;
  /// best() over `figure` (both directions read as "how many times better"), >= 1.
  double advantage(const ModelFigure& figure) const;
  /// Whether per-$ and per-W mean anything: a throughput (higher is better) in GB/s or with a
  /// limit, or of a workload class.
  bool is_throughput() const;
};

/// The matched points of `page`. `headlines_only`: per headline metric of each experiment, at
/// the newest version every compared model measured, one figure per workload class it belongs
/// to (throughputs: each model's best point among those every model measured; a latency: the
/// largest working set; others: the point best on the first model); otherwise every matched
/// point. Empty with fewer than two models.
std::vector<MatchedFigure> matched_figures(const PageModel& page, const Prices& prices,
                                           bool headlines_only);

/// The words for a family in a heading: "device memory (DRAM)", "host link (PCIe)", "GFLOP/s".
std::string family_title(const std::string& family);

/// The price of `model` in `prices`, if given.
std::optional<double> price_of(const Prices& prices, const std::string& model);

/// Whether less is better, as a header says it: "more is better" / "less is better".
std::string direction_words(const MetricView& metric);

} // namespace apod::report
