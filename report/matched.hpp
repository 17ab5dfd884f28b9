// Matched points: the same experiment at the same version, parameters and metric measured on two
// or more device models, the only figures the report sets side by side across models (the first
// screen's "which is better for what", the buyer's comparison, its markdown). Each model's value
// is the median of its runs' medians, with their range; relative performance, per-$ and per-W
// follow from it, and per workload class a geometric mean of the figures of that class.
#pragma once

#include "aggregate.hpp"
#include "model.hpp"
#include "options.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// What a buyer asks a figure for, from the metric's declaration (class, limit, unit,
/// direction, a param in bytes): never from an experiment's name.
enum class Workload {
  memory_bound, ///< device-memory bandwidth read against DRAM (GB/s, more is better)
  compute,      ///< on-chip FLOP/s, one class per value of the experiment's text params
  host_link,    ///< host-link transfers (more is better)
  gpu_link,     ///< GPU-to-GPU transfers (more is better)
  latency,      ///< a device-memory latency at the largest working set (DRAM; less is better)
  other,        ///< none of the above: in the tables, in no class line
};

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

/// One workload class over the compared models: the geometric mean, over the class's headline
/// figures that every model measured, of each model's figure relative to the first model's.
struct ClassLine {
  Workload workload = Workload::other;
  std::string label;
  std::size_t figures = 0;
  std::string best, runner_up;   ///< the best model by that mean, and the next
  double ratio = 1;              ///< best over runner-up, >= 1
  std::optional<double> per_usd; ///< the same ratio per dollar, where both have a price
  std::string per_usd_missing;   ///< without it: why
  std::optional<double> per_w;   ///< per watt measured during the work, where both have one
  std::size_t per_w_figures = 0; ///< the figures per_w is over (may be fewer than `figures`)
  std::string per_w_missing;     ///< without it: why

  /// "memory-bound: NVIDIA H200 1.42× over NVIDIA H100 80GB HBM3, per $ 1.11×, per W n/a (...);
  /// geometric mean of 9 figures".
  std::string text() const;
  /// text()'s parts after the model and ratio: "per $ 1.11×, per W n/a (...)".
  std::string efficiency_text() const;
};

/// The class lines of `headline` (matched_figures(..., true)), in Workload order.
std::vector<ClassLine> class_lines(const std::vector<MatchedFigure>& headline,
                                   const std::vector<std::string>& models);

/// A workload class some model measured that no class line compares.
struct ClassNotCompared {
  std::string label;               ///< "GPU-GPU link"
  std::vector<std::string> models; ///< the models with a verified headline point of it
  /// "n/a (measured on NVIDIA H200 only)"; `name` writes each model name (markdown escapes it).
  std::string why(std::string (*name)(const std::string&) = nullptr) const;
};

/// The classes of `page` that `lines` leave out, in Workload order.
std::vector<ClassNotCompared> classes_not_compared(const PageModel& page,
                                                   const std::vector<ClassLine>& lines);

/// The words for a family in a heading: "device memory (DRAM)", "host link (PCIe)", "GFLOP/s".
std::string family_title(const std::string& family);

/// The price of `model` in `prices`, if given.
std::optional<double> price_of(const Prices& prices, const std::string& model);

/// Whether less is better, as a header says it: "more is better" / "less is better".
std::string direction_words(const MetricView& metric);

} // namespace apod::report
