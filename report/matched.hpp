// Matched points: the same experiment, parameters and metric measured on two or more device
// models, the only figures the report sets side by side across models (the first screen's "which
// is better for what", the buyer's comparison). Each model's value is the median of its runs'
// medians; relative performance, per-$ and per-W follow from it.
#pragma once

#include "aggregate.hpp"
#include "model.hpp"
#include "options.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// One model's figure at a matched point.
struct ModelFigure {
  std::string model;
  PointAcrossRuns across;         ///< its runs' points at this point (median, range, % of limit)
  std::optional<double> per_kusd; ///< per $1000 of the model's price (throughput figures)
  std::optional<double> per_w;    ///< median over runs of the figure over the power of its work
};

struct MatchedFigure {
  const ExperimentView* experiment = nullptr;
  const MetricView* metric = nullptr;
  json params;
  /// The family of its limit, which is also its scale: "DRAM", "PCIe" (limit_word), or the unit
  /// of a figure read against its own extra.limit ("GFLOP/s"); "" for figures with no limit.
  std::string family;
  bool headline = false;           ///< the experiment's headline figure
  std::vector<ModelFigure> models; ///< in the page's model order, only those that measured it

  /// "Misaligned copy: effective bandwidth".
  std::string title() const;
  /// The model whose figure is best by the metric's direction.
  const ModelFigure& best() const;
  /// best() over `figure` (both directions read as "how many times better"), >= 1.
  double advantage(const ModelFigure& figure) const;
  /// Whether per-$ and per-W mean anything: a throughput (higher is better) in GB/s or with a
  /// limit.
  bool is_throughput() const;
};

/// The matched points of `page`. `headlines_only`: one per headline metric of each experiment
/// (ExperimentView::headline_metrics) at the point that is best on the first model among those
/// every compared model measured; otherwise every matched point. Empty with fewer than two models.
std::vector<MatchedFigure> matched_figures(const PageModel& page, const Prices& prices,
                                           bool headlines_only);

/// The words for a family in a heading: "device memory (DRAM)", "host link (PCIe)", "GFLOP/s".
std::string family_title(const std::string& family);

/// The price of `model` in `prices`, if given.
std::optional<double> price_of(const Prices& prices, const std::string& model);

} // namespace apod::report
