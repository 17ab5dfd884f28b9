// A node's GPUs judged against each other (`apod run --device all`, `apod compare --siblings`):
// the GPUs of one model on one host measure the same points, so a GPU that is slower than its
// siblings by more than GPUs of that model differ is the one to look at, whatever its history.
// docs/siblings.md documents the method and where its numbers come from:
//
// - per point, each GPU's level is the median of its runs' medians; its deviation is ln(level /
//   the median of its siblings' levels), turned so that positive is slower;
// - per experiment and metric class, a GPU's deviation is the median of its points' (at least
//   min_whole_points gated points): a transient on one point moves it not at all, a GPU slower
//   everywhere moves every one; per class, the lower median over its experiments' deviations;
// - a class taken over its experiments fails the check; one experiment alone fails it only where
//   the GPU's own run-to-run noise of that experiment is known (one experiment moves between runs
//   by more than GPUs differ), and is otherwise said as unconfirmed;
// - the siblings' spread: each sibling's deviation against the same reference; a GPU is flagged
//   where it is slower than the slowest of its siblings by more than the margin, the larger of
//   min_margin and z standard deviations of the GPU-to-GPU noise of that class (measured on the
//   committed multi-GPU runs, sibling_sigma) combined with the GPU's own run-to-run noise of the
//   experiment taken whole where its repeats or history show it (noise.hpp). A GPU faster than
//   its siblings by as much is said, and does not fail;
// - the device facts (the stored device and gpu_state objects, compared key by key) where a GPU
//   differs from most of its siblings: a link trained narrower, lower clocks or power limit,
//   ECC errors, an NVLink down. Said beside the figures; they do not fail the check themselves.
// Derived figures (models, ratios) are never judged.
#pragma once

#include "analysis/metric_class.hpp"
#include "analysis/noise.hpp"
#include "core/run_record.hpp"

#include <string>
#include <vector>

namespace apod {

struct SiblingOptions {
  /// The smallest deviation that counts: compare's threshold (docs/ci.md), so that the two
  /// judgements agree on what a change is.
  double min_margin = 0.015;
  /// Standard deviations of the noise a flagged GPU lies beyond its slowest sibling: with about
  /// 60 experiment-class levels per GPU and eight GPUs (~500 tests a node), 4 sigma of a normal
  /// spread gives 0.02 false alarms a node (docs/siblings.md).
  double z = 4;
};

/// The spread between GPUs of one model, as the standard deviation of ln(level) of an
/// experiment's points of class `c` taken whole, measured on the committed runs of several GPUs
/// of one machine (docs/siblings.md says which runs and what they showed).
double sibling_sigma(MetricClass c);

/// One GPU's deviation from its siblings: an experiment's points of one class taken whole, or
/// (experiment "") the class over all its experiments.
struct SiblingLevel {
  std::string experiment; ///< "" for the class taken over every experiment
  MetricClass metric_class = MetricClass::device_memory;
  int points = 0;           ///< points behind it (for a class: experiments)
  double slowdown = 0;      ///< ln(this GPU / its siblings' median), positive slower
  double siblings_low = 0;  ///< the fastest sibling against the same reference (ln)
  double siblings_high = 0; ///< the slowest sibling against the same reference (ln)
  double noise = 0;         ///< the standard deviation the margin is made of (ln)
  double margin = 0;        ///< how far beyond its siblings' spread a GPU must lie (ln)
  bool slower = false;      ///< beyond the slowest sibling by more than the margin
  /// A slower level fails the check (flags the GPU): a class taken over its experiments, or one
  /// experiment where this GPU's own run-to-run noise of it is known (--repeat 3, a history).
  /// Otherwise it is said as unconfirmed.
  bool gating = true;
  bool faster = false;     ///< beyond the fastest sibling by more than the margin: said
  std::string worst_point; ///< the point of this level most slower than its siblings
  double worst_point_slowdown = 0;
};

/// A stored fact of the device or its settings where this GPU differs from most of its siblings.
struct FactDifference {
  std::string fact;     ///< its path in the run record: "device.pcie_current_width"
  std::string value;    ///< this GPU's, as stored ("8"; "absent")
  std::string siblings; ///< the siblings' most common value
};

struct SiblingGpu {
  std::string uuid, pci_bus_id;
  int ordinal = 0;
  std::vector<std::string> run_ids;
  int own_noise_runs = 0;            ///< runs of this GPU behind its own run-to-run noise
  std::vector<SiblingLevel> levels;  ///< per experiment and class, then per class taken whole
  std::vector<FactDifference> facts; ///< where its device or settings differ from its siblings'
  int points_missing = 0; ///< gated points that failed here and most of its siblings measured
  bool flagged() const;   ///< slower than its siblings somewhere
};

/// The GPUs of one model on one host.
struct SiblingSet {
  std::string model, host;
  std::vector<SiblingGpu> gpus; ///< by ordinal
  std::string not_judged;       ///< why nothing was judged (one GPU only); "" when judged
};

struct SiblingVerdict {
  SiblingOptions options;
  std::vector<SiblingSet> sets;
  /// Some of the runs are `--quick` ones: a smoke test at small sizes, not a measurement. The
  /// verdict is said and never fails (exit_code 0).
  bool quick = false;
  int flagged() const; ///< GPUs flagged
  /// 0 when no GPU is flagged (or the runs are quick ones), else exit_regression (1): a GPU slower
  /// than its siblings is a regression of that GPU.
  int exit_code() const;
};

/// Judges the GPUs of `runs` against their siblings: grouped by host and GPU model, each GPU's
/// runs pooled. `own` gives each GPU's own run-to-run noise (its repeats, its history); a model
/// without any leaves the measured GPU-to-GPU noise alone.
SiblingVerdict judge_siblings(const std::vector<const RunRecord*>& runs, const NoiseModel& own,
                              const SiblingOptions& options = {});

/// The runs of each `apod run --device all` in `runs` (any order), oldest first: runs that carry
/// `device_all`, of one host and one mode, in start order, where each GPU contributes one
/// --repeat batch (or one run); a GPU met again with another batch begins the next set.
std::vector<std::vector<const RunRecord*>> device_all_sets(const std::vector<RunRecord>& runs);

/// The verdict for a terminal: each set, each GPU's figures against its siblings', the flagged
/// ones with the levels that flag them and the facts that differ.
std::string format_siblings_text(const SiblingVerdict& verdict);
std::string format_siblings_markdown(const SiblingVerdict& verdict);
json to_json(const SiblingVerdict& verdict);

} // namespace apod
